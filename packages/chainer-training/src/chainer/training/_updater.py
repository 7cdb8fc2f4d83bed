"""Chainer 7's private home of :class:`~chainer.training.Updater`.

Code written against Chainer 7 imports the base class from here as well as
from :mod:`chainer.training.updater`, where it is defined.
"""

from chainer.training.updater import Updater

__all__ = ["Updater"]
