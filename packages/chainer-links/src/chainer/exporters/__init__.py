"""Exporters of Chainer models to other frameworks' formats.

:mod:`chainer.exporters.caffe` writes a model's computational graph as a
Caffe network definition (``.prototxt``) and its weights (``.caffemodel``).
"""

from chainer.exporters import caffe

__all__ = ["caffe"]
