"""Links: Caffe model import (:class:`CaffeFunction`)."""

from chainer.links.caffe.caffe_function import CaffeFunction

__all__ = ["CaffeFunction"]
