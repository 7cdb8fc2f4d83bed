"""Chainer 7's module path of :class:`distribution_unittest`.

The implementation lives in :mod:`chainer.testing.distribution_test`.
"""

from chainer.testing.distribution_test import distribution_unittest

__all__ = ["distribution_unittest"]
