"""Loss functions of the catalogue (``chainer.functions.loss``)."""
