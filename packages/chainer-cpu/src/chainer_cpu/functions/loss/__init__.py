"""Fast paths of ``chainer.functions.loss``."""
