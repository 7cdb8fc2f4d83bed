"""Shared checks for the distribution tests."""

import numpy
import pytest

import chainer


def _kl_close(dist1, dist2, n=100000, sigmas=5.0):
    # Monte-Carlo estimate E_p[log p(x) - log q(x)] from the distributions' own
    # samplers and log-densities (each checked against SciPy in its own file).
    kl = chainer.kl_divergence(dist1, dist2).array.astype(numpy.float64)
    x = dist1.sample(n)
    diff = (dist1.log_prob(x).array - dist2.log_prob(x).array).astype(numpy.float64)
    estimate = diff.mean(axis=0)
    tolerance = sigmas * diff.std(axis=0) / numpy.sqrt(n) + 1e-3 * (1 + abs(kl))
    assert kl.shape == estimate.shape
    assert numpy.all(numpy.abs(kl - estimate) <= tolerance), (kl, estimate)


@pytest.fixture
def kl_monte_carlo():
    """``check(dist1, dist2)``: kl_divergence agrees with a Monte-Carlo estimate."""
    return _kl_close
