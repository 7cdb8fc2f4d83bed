import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.normalization import decorrelated_batch_normalization as dbn
from chainer.utils import type_check


def _grouped(x, groups):
    # (n, c, ...) -> (groups, c // groups, n * prod(...))
    return numpy.moveaxis(x, 1, 0).reshape(groups, x.shape[1] // groups, -1)


def _ungrouped(y, shape):
    return numpy.moveaxis(y.reshape((shape[1], shape[0], *shape[2:])), 0, 1)


def _whiten(x, groups, eps=2e-5):
    xg = _grouped(x.astype(numpy.float64), groups)
    mean = xg.mean(axis=2, keepdims=True)
    xc = xg - mean
    cov = xc @ xc.transpose(0, 2, 1) / xg.shape[2] + eps * numpy.eye(xg.shape[1])
    projection = numpy.stack([_inv_sqrt(c) for c in cov])
    return _ungrouped(projection @ xc, x.shape), mean[:, :, 0], projection


def _inv_sqrt(a):
    w, v = numpy.linalg.eigh(a)
    return v @ numpy.diag(w**-0.5) @ v.T


_CASES = [((10, 4, 3), 2), ((8, 6), 3), ((5, 4, 2, 2), 1), ((12, 2), 2)]


@testing.parameterize(
    *testing.product(
        {
            "shape_groups": _CASES,
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDecorrelatedBatchNormalization(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.groups = self.shape_groups
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-2, "rtol": 2e-2}
            self.check_backward_options = {"atol": 1e-1, "rtol": 1e-1}
            self.check_double_backward_options = {"atol": 2e-1, "rtol": 2e-1}
        elif self.dtype == numpy.float32:
            self.check_forward_options = {"atol": 1e-4, "rtol": 1e-4}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-5, "rtol": 1e-4}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (dbn.decorrelated_batch_normalization(x, groups=self.groups),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_whiten(x, self.groups)[0].astype(self.dtype),)


@testing.parameterize(
    *testing.product(
        {"shape_groups": _CASES, "dtype": [numpy.float16, numpy.float32, numpy.float64]}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestFixedDecorrelatedBatchNormalization(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.groups = self.shape_groups
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        c = self.shape[1] // self.groups
        x = numpy.random.uniform(-1, 1, self.shape)
        mean = numpy.random.uniform(-1, 1, (self.groups, c))
        projection = numpy.random.uniform(-1, 1, (self.groups, c, c))
        return tuple(a.astype(self.dtype) for a in (x, mean, projection))

    def forward(self, inputs, device):
        x, mean, projection = inputs
        y = dbn.fixed_decorrelated_batch_normalization(
            x, mean, projection, groups=self.groups
        )
        return (y,)

    def forward_expected(self, inputs):
        x, mean, projection = (a.astype(numpy.float64) for a in inputs)
        xc = _grouped(x, self.groups) - mean[:, :, None]
        return (_ungrouped(projection @ xc, x.shape).astype(self.dtype),)


def test_output_is_white():
    x = numpy.random.uniform(-1, 1, (50, 4)) @ numpy.random.uniform(-1, 1, (4, 4))
    y = dbn.decorrelated_batch_normalization(x, groups=1, eps=0).array
    numpy.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-12)
    numpy.testing.assert_allclose(y.T @ y / 50, numpy.eye(4), atol=1e-10)


def test_running_statistics():
    x = numpy.random.uniform(-1, 1, (10, 4, 3))
    mean = numpy.random.uniform(-1, 1, (2, 2))
    projection = numpy.random.uniform(-1, 1, (2, 2, 2))
    mean0, projection0 = mean.copy(), projection.copy()
    dbn.decorrelated_batch_normalization(
        x, groups=2, running_mean=mean, running_projection=projection, decay=0.7
    )
    _, batch_mean, batch_projection = _whiten(x, 2)
    numpy.testing.assert_allclose(mean, 0.7 * mean0 + 0.3 * batch_mean)
    expected = 0.7 * projection0 + 0.3 * batch_projection * 30 / 29
    numpy.testing.assert_allclose(projection, expected)


def test_backward_is_exact_in_double_backprop():
    # Second derivatives of a scalar through the whitening, against finite
    # differences of the first derivative.
    x = numpy.random.uniform(-1, 1, (6, 2))
    direction = numpy.random.uniform(-1, 1, (6, 2))
    w = numpy.random.uniform(-1, 1, (6, 2))

    def grad(a):
        v = chainer.Variable(a)
        y = dbn.decorrelated_batch_normalization(v, groups=1)
        (g,) = chainer.grad([y], [v], grad_outputs=[w], enable_double_backprop=True)
        return v, g

    v, g = grad(x)
    (hv,) = chainer.grad([g], [v], grad_outputs=[direction])
    h = 1e-6
    numeric = []
    for i in numpy.ndindex(x.shape):
        e = numpy.zeros_like(x)
        e[i] = h
        _, gp = grad(x + e)
        _, gm = grad(x - e)
        numeric.append(((gp.array - gm.array) / (2 * h) * direction).sum())
    numpy.testing.assert_allclose(hv.array.ravel(), numeric, rtol=1e-4, atol=1e-6)


def test_invalid_arguments():
    x = numpy.zeros((4, 6), numpy.float32)
    with pytest.raises(TypeError, match="foo"):
        dbn.decorrelated_batch_normalization(x, foo=1)
    with pytest.raises(type_check.InvalidType):
        dbn.decorrelated_batch_normalization(x, groups=4)
    with pytest.raises(type_check.InvalidType):
        dbn.decorrelated_batch_normalization(x.astype(numpy.int32), groups=2)
    with pytest.raises(type_check.InvalidType):
        dbn.fixed_decorrelated_batch_normalization(
            x,
            numpy.zeros((2, 3), numpy.float32),
            numpy.zeros((2, 2, 2), numpy.float32),
            groups=2,
        )


def test_catalogue():
    import chainer.functions as F

    assert F.decorrelated_batch_normalization is dbn.decorrelated_batch_normalization
    assert (
        F.fixed_decorrelated_batch_normalization
        is dbn.fixed_decorrelated_batch_normalization
    )


def test_backward_with_fewer_samples_than_channels():
    # 5 samples of 8 channels: the covariance is eps on half of its
    # eigenvalues. float32 inputs must still get the gradient that float64
    # computation gives (P^2 amplifies float32 rounding there).
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (5, 8))
    gy = rng.uniform(-1, 1, (5, 8))

    def grad(dtype):
        v = chainer.Variable(x.astype(dtype))
        y = dbn.decorrelated_batch_normalization(v, groups=1)
        y.grad = gy.astype(dtype)
        y.backward()
        assert v.grad.dtype == dtype
        return v.grad

    numpy.testing.assert_allclose(
        grad(numpy.float32), grad(numpy.float64), rtol=1e-3, atol=1e-3
    )
