"""Fast paths of ``chainer.functions.normalization``."""
