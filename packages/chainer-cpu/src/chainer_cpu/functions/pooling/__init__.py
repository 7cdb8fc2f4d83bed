"""Fast paths of ``chainer.functions.pooling``."""
