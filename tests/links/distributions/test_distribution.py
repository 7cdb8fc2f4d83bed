"""The Distribution interface, the KL registry and parameter handling."""

import numpy
import pytest

import chainer
from chainer import distributions
from chainer import testing


class _Point(chainer.Distribution):
    """A distribution defining only what the generic methods build on."""

    def __init__(self, value):
        self.value = chainer.as_variable(value)

    @property
    def batch_shape(self):
        return self.value.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"value": self.value}

    def log_prob(self, x):
        return self.value * 0.0 - (self.value - x) ** 2

    def cdf(self, x):
        return (
            chainer.as_variable(numpy.asarray(x >= self.value.array, self.value.dtype))
            * 0.5
            + 0.25
        )

    @property
    def variance(self):
        return self.value * 0.0 + 4.0

    def sample_n(self, n):
        xp = self.value.xp
        return chainer.Variable(
            xp.broadcast_to(self.value.array, (n, *self.value.shape))
        )


class _SubPoint(_Point):
    pass


def test_reexported_from_chainer():
    assert chainer.Distribution is distributions.Distribution
    assert chainer.kl_divergence is distributions.kl_divergence
    assert chainer.register_kl is distributions.register_kl
    assert chainer.cross_entropy is distributions.cross_entropy


def test_generic_methods():
    d = _Point(numpy.array([1.0, 2.0], numpy.float32))
    x = numpy.array([1.0, 3.0], numpy.float32)
    testing.assert_allclose(d.prob(x).array, numpy.exp([0.0, -1.0]))
    testing.assert_allclose(d.perplexity(x).array, numpy.exp([0.0, 1.0]))
    testing.assert_allclose(d.log_cdf(x).array, numpy.log([0.75, 0.75]))
    testing.assert_allclose(d.survival_function(x).array, [0.25, 0.25])
    testing.assert_allclose(d.log_survival_function(x).array, numpy.log([0.25, 0.25]))
    testing.assert_allclose(d.stddev.array, [2.0, 2.0])
    assert d.xp is numpy
    assert d.sample().shape == (2,)
    assert d.sample(3).shape == (3, 2)
    assert d.sample((4, 3)).shape == (4, 3, 2)
    assert d.sample(numpy.int64(2)).shape == (2, 2)


@pytest.mark.parametrize(
    "name",
    [
        "batch_shape",
        "covariance",
        "entropy",
        "event_shape",
        "mean",
        "mode",
        "params",
        "support",
        "variance",
    ],
)
def test_unimplemented_properties_raise(name):
    with pytest.raises(TypeError, match=name):
        getattr(chainer.Distribution(), name)


@pytest.mark.parametrize("name", ["cdf", "icdf", "log_prob", "sample_n"])
def test_unimplemented_methods_raise(name):
    with pytest.raises(TypeError, match=name):
        getattr(chainer.Distribution(), name)(numpy.zeros(1, numpy.float32))


def test_register_kl_and_dispatch():
    calls = []

    @chainer.register_kl(_Point, _Point)
    def kl_point(dist1, dist2):
        calls.append("base")
        return (dist1.value - dist2.value) ** 2

    a = _Point(numpy.array([1.0], numpy.float32))
    b = _SubPoint(numpy.array([3.0], numpy.float32))
    # A subclass falls back to its parent's registration.
    testing.assert_allclose(chainer.kl_divergence(a, b).array, [4.0])

    @chainer.register_kl(_SubPoint, _SubPoint)
    def kl_sub(dist1, dist2):
        calls.append("sub")
        return dist1.value * 0.0

    testing.assert_allclose(chainer.kl_divergence(b, b).array, [0.0])
    chainer.kl_divergence(b, a)
    assert calls == ["base", "sub", "base"]
    assert kl_sub.__name__ == "kl_sub"  # the decorator returns the function

    h = chainer.cross_entropy(
        distributions.Normal(numpy.zeros(1), numpy.ones(1)),
        distributions.Normal(numpy.ones(1), numpy.ones(1)),
    )
    testing.assert_allclose(h.array, 0.5 * numpy.log(2 * numpy.pi * numpy.e) + 0.5)


def test_unregistered_pair():
    a = distributions.Normal(numpy.zeros(1), numpy.ones(1))
    b = distributions.Laplace(numpy.zeros(1), numpy.ones(1))
    with pytest.raises(TypeError, match=r"\(Normal, Laplace\)"):
        chainer.kl_divergence(a, b)


def test_scalar_parameters_take_the_default_dtype():
    d = distributions.Normal(0.0, 1.0)
    assert d.loc.dtype == numpy.float32
    assert d.batch_shape == ()
    with chainer.using_config("dtype", numpy.float64):
        assert distributions.Exponential(2.0).lam.dtype == numpy.float64
    assert distributions.Normal(numpy.float64(0), numpy.float64(1)).loc.dtype == (
        numpy.float64
    )


def test_variable_parameters_are_kept():
    loc = chainer.Variable(numpy.zeros(3, numpy.float32))
    scale = chainer.Variable(numpy.ones(3, numpy.float32))
    d = distributions.Normal(loc, scale)
    assert d.loc is loc
    loss = d.log_prob(numpy.ones(3, numpy.float32))
    loss.grad = numpy.ones(3, numpy.float32)
    loss.backward()
    testing.assert_allclose(loc.grad, numpy.ones(3))
    testing.assert_allclose(scale.grad, numpy.zeros(3))


def test_points_are_cast_to_the_parameter_dtype():
    d = distributions.Normal(
        numpy.zeros(2, numpy.float32), numpy.ones(2, numpy.float32)
    )
    assert d.log_prob(numpy.zeros(2, numpy.float64)).dtype == numpy.float32
    assert d.log_prob([0.0, 1.0]).dtype == numpy.float32
    x = chainer.Variable(numpy.zeros(2, numpy.float64))
    assert d.log_prob(x).dtype == numpy.float32


def test_bad_parameter_types():
    with pytest.raises(TypeError, match="loc must be a Variable"):
        distributions.Normal(None, 1.0)
    with pytest.raises(TypeError, match="must have a float dtype"):
        distributions.Normal(numpy.array([1, 2]), numpy.array([1, 2]))
