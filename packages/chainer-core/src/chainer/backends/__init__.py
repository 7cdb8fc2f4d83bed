"""Backend modules: ``chainer.backends.cuda`` (facade) and the CPU backend."""
