"""Fast paths of ``chainer.functions.activation``."""
