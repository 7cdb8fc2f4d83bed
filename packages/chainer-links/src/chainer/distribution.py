"""Chainer 7's module path of the distribution base (``chainer.distribution``)."""

from chainer.distributions import Distribution
from chainer.distributions import cross_entropy
from chainer.distributions import kl_divergence
from chainer.distributions import register_kl

__all__ = ["Distribution", "cross_entropy", "kl_divergence", "register_kl"]
