"""Fast paths of ``chainer.optimizers``' update rules."""
