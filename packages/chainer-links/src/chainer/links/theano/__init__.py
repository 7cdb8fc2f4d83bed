"""Links built from Theano graphs (``chainer.links.theano``)."""
