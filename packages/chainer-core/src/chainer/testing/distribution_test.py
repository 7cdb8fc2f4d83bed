"""Base test case comparing Chainer distributions with SciPy's."""

from __future__ import annotations

import importlib
import unittest

import numpy

import chainer
from chainer.testing import _checks
from chainer.testing import array as array_module
from chainer.testing import attr
from chainer.utils import install_hint

_TARGETS = frozenset(
    {
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
)


def _require_distributions():
    try:
        importlib.import_module("chainer.distributions")
    except ModuleNotFoundError as e:
        if e.name not in ("chainer.distributions", "chainer"):
            raise
        raise RuntimeError(
            "distribution_unittest tests chainer.distributions, which is "
            "provided by the chainer-links distribution: "
            f"{install_hint.install_hint('chainer-links')}"
        ) from None


def _to_gpu(array):
    from chainer.backends import cuda

    if not cuda.available:
        raise unittest.SkipTest("CUDA (CuPy with chainer-cuda) is not available")
    return cuda.to_gpu(array)


def _array(x):
    return x.array if isinstance(x, chainer.Variable) else x


def _cpu(x):
    return chainer.backend.CpuDevice().send(_array(x))


class distribution_unittest(_checks.CollectSubclasses, unittest.TestCase):
    """Base class comparing a distribution with its SciPy counterpart.

    Subclasses are parameterized with ``shape`` (batch shape), ``is_variable``
    and usually ``sample_shape``, and implement:

    * ``setUp_configure(self)``: set ``self.dist`` (the distribution class),
      ``self.scipy_dist`` (the ``scipy.stats`` distribution),
      ``self.test_targets`` (set of names among ``batch_shape``, ``cdf``,
      ``entropy``, ``event_shape``, ``icdf``, ``log_cdf``, ``log_prob``,
      ``log_survival``, ``mean``, ``prob``, ``sample``, ``stddev``,
      ``support``, ``survival``, ``variance``), ``self.params`` (constructor
      arguments) and ``self.scipy_params``; optionally ``self.support``,
      ``self.event_shape``, ``self.continuous`` and ``self.options``.
    * ``sample_for_test(self)``: an array of points where densities and
      distribution functions are evaluated.

    Set ``scipy_onebyone = True`` when SciPy cannot broadcast the parameters
    and must be called once per batch element.
    """

    scipy_onebyone = False

    # A base class, not a runnable test; its subclasses are collected.
    __test__ = False

    def setUp(self):
        _require_distributions()
        try:
            importlib.import_module("scipy.stats")
        except ImportError:
            raise unittest.SkipTest("requires: scipy") from None
        self.support = "real"
        if not hasattr(self, "event_shape"):
            self.event_shape = ()
        self.continuous = True
        self.test_targets = set()
        self.options = {}
        self.setUp_configure()
        unknown = set(self.test_targets) - _TARGETS
        if unknown:
            raise ValueError(f"invalid target(s): {sorted(unknown)}")
        if getattr(self, "is_variable", False):
            self.params = {
                k: chainer.Variable(numpy.asarray(v)) for k, v in self.params.items()
            }

    def setUp_configure(self):
        """Configures the distribution under test (must be overridden)."""
        raise TypeError(f"{type(self).__name__} must define setUp_configure()")

    def scipy_onebyone_params_iter(self):
        """Yields SciPy parameters for each batch element."""
        for index in numpy.ndindex(self.shape):
            yield {
                k: v if numpy.isscalar(v) else numpy.asarray(v)[index]
                for k, v in self.scipy_params.items()
            }

    @property
    def cpu_dist(self):
        """The distribution built from the CPU parameters."""
        params = dict(self.params)
        params.update(self.options)
        return self.dist(**params)

    @property
    def gpu_dist(self):
        """The distribution built from parameters sent to the GPU."""
        params = {}
        for k, v in self.params.items():
            data = _to_gpu(_array(v))
            params[k] = (
                chainer.Variable(data) if getattr(self, "is_variable", False) else data
            )
        params.update(self.options)
        return self.dist(**params)

    def _dist(self, is_gpu):
        return self.gpu_dist if is_gpu else self.cpu_dist

    def _sample(self, is_gpu):
        smp = self.sample_for_test()
        return smp, (_to_gpu(smp) if is_gpu else smp)

    def _onebyone(self, method, out_shape):
        values = [method(**p) for p in self.scipy_onebyone_params_iter()]
        return numpy.vstack(values).reshape(out_shape)

    # -- checks ----------------------------------------------------------
    def check_batch_shape(self, is_gpu):
        self.assertEqual(self._dist(is_gpu).batch_shape, self.shape)

    def check_event_shape(self, is_gpu):
        self.assertEqual(self._dist(is_gpu).event_shape, self.event_shape)

    def check_support(self, is_gpu):
        self.assertEqual(self._dist(is_gpu).support, self.support)

    def _check_function(self, is_gpu, name, scipy_name):
        smp, x = self._sample(is_gpu)
        actual = _cpu(getattr(self._dist(is_gpu), name)(x))
        expected = getattr(self.scipy_dist, scipy_name)(smp, **self.scipy_params)
        array_module.assert_allclose(actual, expected)

    def check_cdf(self, is_gpu):
        self._check_function(is_gpu, "cdf", "cdf")

    def check_log_cdf(self, is_gpu):
        self._check_function(is_gpu, "log_cdf", "logcdf")

    def check_survival(self, is_gpu):
        self._check_function(is_gpu, "survival_function", "sf")

    def check_log_survival(self, is_gpu):
        self._check_function(is_gpu, "log_survival_function", "logsf")

    def check_icdf(self, is_gpu):
        smp = numpy.random.uniform(
            1e-5, 1 - 1e-5, self.sample_shape + self.shape
        ).astype(numpy.float32)
        x = _to_gpu(smp) if is_gpu else smp
        actual = _cpu(self._dist(is_gpu).icdf(x))
        expected = self.scipy_dist.ppf(smp, **self.scipy_params)
        array_module.assert_allclose(actual, expected)

    def _check_density(self, is_gpu, name, scipy_cont, scipy_disc):
        smp, x = self._sample(is_gpu)
        actual = _cpu(getattr(self._dist(is_gpu), name)(x))
        scipy_fn = getattr(
            self.scipy_dist, scipy_cont if self.continuous else scipy_disc
        )
        if not self.scipy_onebyone:
            expected = scipy_fn(smp, **self.scipy_params)
        else:
            n_batch = int(numpy.prod(self.shape, dtype=numpy.int64))
            n_sample = int(numpy.prod(self.sample_shape, dtype=numpy.int64))
            per_batch = smp.reshape(
                (n_sample, n_batch, int(numpy.prod(self.event_shape, dtype=int)))
            )
            per_batch = numpy.swapaxes(per_batch, 0, 1).reshape(
                (-1, *self.sample_shape, *self.event_shape)
            )
            values = [
                scipy_fn(one_smp, **params)
                for params, one_smp in zip(
                    self.scipy_onebyone_params_iter(), per_batch, strict=True
                )
            ]
            expected = numpy.vstack(values).reshape(n_batch, -1).T
            expected = expected.reshape(self.sample_shape + self.shape)
        array_module.assert_allclose(actual, expected)

    def check_log_prob(self, is_gpu):
        self._check_density(is_gpu, "log_prob", "logpdf", "logpmf")

    def check_prob(self, is_gpu):
        self._check_density(is_gpu, "prob", "pdf", "pmf")

    def _check_moment(self, is_gpu, name, scipy_name):
        actual = _cpu(getattr(self._dist(is_gpu), name))
        method = getattr(self.scipy_dist, scipy_name)
        if self.scipy_onebyone:
            expected = self._onebyone(method, self.shape + self.event_shape)
        else:
            expected = method(**self.scipy_params)
        array_module.assert_allclose(actual, expected)

    def check_entropy(self, is_gpu):
        actual = _cpu(self._dist(is_gpu).entropy)
        if self.scipy_onebyone:
            expected = self._onebyone(self.scipy_dist.entropy, self.shape)
        else:
            expected = self.scipy_dist.entropy(**self.scipy_params)
        array_module.assert_allclose(actual, expected)

    def check_mean(self, is_gpu):
        self._check_moment(is_gpu, "mean", "mean")

    def check_variance(self, is_gpu):
        self._check_moment(is_gpu, "variance", "var")

    def check_stddev(self, is_gpu):
        self._check_moment(is_gpu, "stddev", "std")

    def check_sample(self, is_gpu):
        n = 100000
        dist = self._dist(is_gpu)
        smp1 = _cpu(dist.sample(sample_shape=(n, *self.sample_shape)))
        event_shape = tuple(dist.event_shape)
        if self.scipy_onebyone:
            draws = [
                self.scipy_dist.rvs(size=(n, *self.sample_shape), **p)
                for p in self.scipy_onebyone_params_iter()
            ]
            n_batch = int(numpy.prod(self.shape, dtype=numpy.int64))
            smp2 = numpy.vstack(draws).reshape(
                (n_batch, n, *self.sample_shape, *event_shape)
            )
            smp2 = numpy.moveaxis(smp2, 0, smp2.ndim - len(event_shape) - 1)
            smp2 = smp2.reshape((n, *self.sample_shape, *self.shape, *event_shape))
        else:
            smp2 = self.scipy_dist.rvs(
                size=(n, *self.sample_shape, *self.shape), **self.scipy_params
            )
        array_module.assert_allclose(
            smp1.mean(axis=0), smp2.mean(axis=0), atol=3e-2, rtol=3e-2
        )
        array_module.assert_allclose(
            smp1.std(axis=0), smp2.std(axis=0), atol=3e-2, rtol=3e-2
        )


def _add_tests(target):
    def run(self, is_gpu):
        if target not in self.test_targets:
            raise unittest.SkipTest(f"{target} is not a test target")
        getattr(self, f"check_{target}")(is_gpu)

    def test_cpu(self):
        run(self, False)

    @attr.gpu
    def test_gpu(self):
        run(self, True)

    test_cpu.__name__ = f"test_{target}_cpu"
    test_gpu.__name__ = f"test_{target}_gpu"
    setattr(distribution_unittest, test_cpu.__name__, test_cpu)
    setattr(distribution_unittest, test_gpu.__name__, test_gpu)


for _target in sorted(_TARGETS):
    _add_tests(_target)
del _target
