"""Pooling functions of the catalogue (``chainer.functions.pooling``)."""
