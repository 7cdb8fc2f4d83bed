"""Fast paths of ``chainer.functions``, at the catalogue's paths."""
