"""Array functions of the catalogue (``chainer.functions.array``)."""
