"""Noise functions of the catalogue (``chainer.functions.noise``)."""
