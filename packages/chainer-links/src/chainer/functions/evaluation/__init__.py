"""Evaluation functions of the catalogue (``chainer.functions.evaluation``)."""
