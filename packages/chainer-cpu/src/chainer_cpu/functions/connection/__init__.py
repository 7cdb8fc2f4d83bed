"""Fast paths of ``chainer.functions.connection``."""
