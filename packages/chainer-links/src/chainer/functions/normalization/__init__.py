"""Normalization functions of the catalogue (``chainer.functions.normalization``)."""
