"""Util functions of the catalogue (``chainer.functions.util``)."""
