"""Fast paths of chainer-core's ``chainer.primitive_ops``."""
