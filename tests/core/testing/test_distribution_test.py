import sys
import types
import unittest

import numpy
import pytest

import chainer
from chainer import backend
from chainer import testing

scipy_special = pytest.importorskip("scipy.special")


def _a(x):
    return x.array if isinstance(x, chainer.Variable) else x


def _v(x):
    # Keeps the array on its device (NumPy or CuPy) as float32.
    xp = backend.get_array_module(x)
    return chainer.Variable(xp.asarray(x, dtype=xp.float32))


def _special(fn, z):
    # SciPy's special functions take NumPy arrays: compute on the CPU and
    # send the result back to the device of ``z``.
    device = backend.get_device_from_array(z)
    result = numpy.asarray(fn(backend.CpuDevice().send(z)), dtype=numpy.float32)
    return device.send(result)


class _FakeNormal:
    """A normal distribution with Chainer's Distribution interface.

    It is written against the array module of its parameters, so the GPU
    variants of the tests run it on CuPy arrays.
    """

    mean_shift = 0.0

    def __init__(self, loc, scale):
        self.loc = _a(loc)
        self.scale = _a(scale)

    @property
    def xp(self):
        return backend.get_array_module(self.loc)

    batch_shape = property(lambda self: self.loc.shape)
    event_shape = property(lambda self: ())
    support = property(lambda self: "real")
    mean = property(lambda self: _v(self.loc + self.mean_shift))
    variance = property(lambda self: _v(self.scale**2))
    stddev = property(lambda self: _v(self.scale))

    @property
    def entropy(self):
        xp = self.xp
        return _v(0.5 * xp.log(2 * numpy.pi * numpy.e * self.scale**2))

    def _z(self, x):
        return (_a(x) - self.loc) / self.scale

    def log_prob(self, x):
        xp = self.xp
        return _v(
            -0.5 * self._z(x) ** 2 - xp.log(self.scale * numpy.sqrt(2 * numpy.pi))
        )

    def prob(self, x):
        return _v(self.xp.exp(_a(self.log_prob(x))))

    def cdf(self, x):
        return _v(_special(scipy_special.ndtr, self._z(x)))

    def log_cdf(self, x):
        return _v(_special(scipy_special.log_ndtr, self._z(x)))

    def survival_function(self, x):
        return _v(_special(scipy_special.ndtr, -self._z(x)))

    def log_survival_function(self, x):
        return _v(_special(scipy_special.log_ndtr, -self._z(x)))

    def icdf(self, p):
        return _v(self.loc + self.scale * _special(scipy_special.ndtri, _a(p)))

    def sample(self, sample_shape=()):
        shape = tuple(sample_shape) + self.loc.shape
        return _v(self.loc + self.scale * self.xp.random.standard_normal(shape))


class _ShiftedNormal(_FakeNormal):
    mean_shift = 0.5


@pytest.fixture(autouse=True)
def _fake_distributions(monkeypatch):
    module = types.ModuleType("chainer.distributions")
    module.Normal = _FakeNormal
    monkeypatch.setitem(sys.modules, "chainer.distributions", module)


class _NormalMixin:
    def setUp_configure(self):
        from scipy import stats

        self.dist = _FakeNormal
        self.scipy_dist = stats.norm
        self.test_targets = {
            "batch_shape",
            "cdf",
            "entropy",
            "event_shape",
            "icdf",
            "log_cdf",
            "log_prob",
            "log_survival",
            "mean",
            "prob",
            "sample",
            "stddev",
            "support",
            "survival",
            "variance",
        }
        loc = numpy.random.uniform(-1, 1, self.shape).astype(numpy.float32)
        scale = numpy.exp(numpy.random.uniform(-1, 0, self.shape)).astype(numpy.float32)
        self.params = {"loc": loc, "scale": scale}
        self.scipy_params = {"loc": loc, "scale": scale}

    def sample_for_test(self):
        return numpy.random.normal(size=self.sample_shape + self.shape).astype(
            numpy.float32
        )


@testing.parameterize(
    *testing.product(
        {"shape": [(2, 3), ()], "is_variable": [True, False], "sample_shape": [(3,)]}
    )
)
@testing.fix_random()
class TestFakeNormal(_NormalMixin, testing.distribution_unittest):
    pass


@testing.parameterize({"shape": (2,), "is_variable": False, "sample_shape": (2,)})
class TestFakeNormalOneByOne(_NormalMixin, testing.distribution_unittest):
    scipy_onebyone = True


def _inner(cls, test_name):
    case = type(
        "Case",
        (cls, _NormalMixin),
        {"__test__": False, "shape": (2,), "is_variable": False, "sample_shape": (2,)},
    )(test_name)
    case.setUp()
    return case


def test_wrong_moment_fails():
    class Wrong(testing.distribution_unittest):
        def setUp_configure(self):
            _NormalMixin.setUp_configure(self)
            self.dist = _ShiftedNormal

    case = _inner(Wrong, "test_mean_cpu")
    case.test_variance_cpu()
    with pytest.raises(AssertionError):
        case.test_mean_cpu()


def test_non_target_is_skipped():
    class Few(testing.distribution_unittest):
        def setUp_configure(self):
            _NormalMixin.setUp_configure(self)
            self.test_targets = {"mean"}

    case = _inner(Few, "test_cdf_cpu")
    with pytest.raises(unittest.SkipTest, match="not a test target"):
        case.test_cdf_cpu()


def test_invalid_target():
    class Bad(testing.distribution_unittest):
        def setUp_configure(self):
            _NormalMixin.setUp_configure(self)
            self.test_targets = {"kurtosis"}

    with pytest.raises(ValueError, match="kurtosis"):
        _inner(Bad, "test_mean_cpu")


def test_missing_distributions_names_chainer_links(monkeypatch):
    monkeypatch.setitem(sys.modules, "chainer.distributions", None)
    with pytest.raises(RuntimeError, match="chainer-links"):
        _inner(testing.distribution_unittest, "test_mean_cpu")


def test_missing_setup_configure():
    with pytest.raises(TypeError, match="setUp_configure"):
        type("Case", (testing.distribution_unittest,), {"__test__": False})(
            "test_mean_cpu"
        ).setUp()
