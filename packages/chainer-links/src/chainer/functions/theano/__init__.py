"""Functions wrapping Theano's compiled functions (``chainer.functions.theano``)."""
