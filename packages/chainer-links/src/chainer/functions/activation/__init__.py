"""Activation functions of the catalogue (``chainer.functions.activation``)."""
