import warnings

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.normalization import batch_normalization
from chainer.utils import type_check

# (x dtype, gamma/beta dtype): float16 data with float32 parameters is the
# mixed16 case of the link.
_DTYPES = [
    (numpy.float16, numpy.float16),
    (numpy.float32, numpy.float32),
    (numpy.float64, numpy.float64),
    (numpy.float16, numpy.float32),
]

# (x shape, gamma shape, axis)
_SHAPES = [
    ((5, 3), (3,), None),
    ((4, 3, 2, 3), (3,), None),
    ((3, 2, 3, 2), (2, 3), None),
    ((3, 4, 2), (4,), (0, 2)),
    ((3, 4, 2), (3,), (1, 2)),
    ((3, 2, 4), (3, 4), 1),
    ((2, 3, 4), (2, 4), (1,)),
    ((6,), (), None),
]


def _reduced_axes(x_ndim, gamma_ndim, axis):
    if axis is None:
        return (0, *range(gamma_ndim + 1, x_ndim))
    return (axis,) if isinstance(axis, int) else axis


def _expand(v, x_ndim, axes):
    shape = [1] * x_ndim
    key = [i for i in range(x_ndim) if i not in axes]
    for i, k in enumerate(key):
        shape[k] = v.shape[i]
    return v.reshape(shape)


def _bn(x, gamma, beta, axis, eps=2e-5):
    axes = _reduced_axes(x.ndim, gamma.ndim, axis)
    x = x.astype(numpy.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    g = _expand(gamma.astype(numpy.float64), x.ndim, axes)
    b = _expand(beta.astype(numpy.float64), x.ndim, axes)
    return g * (x - mean) / numpy.sqrt(var + eps) + b


def _tolerances(case, dtype):
    if dtype == numpy.float16:
        case.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
        case.check_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        case.check_double_backward_options = {"atol": 5e-2, "rtol": 1e-1}
    else:
        case.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        case.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-2}


@testing.parameterize(*testing.product({"shapes": _SHAPES, "dtypes": _DTYPES}))
@testing.inject_backend_tests(None, [{}])
class TestBatchNormalization(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.gamma_shape, self.axis = self.shapes
        self.dtype, self.param_dtype = self.dtypes
        _tolerances(self, self.dtype)

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        gamma = numpy.random.uniform(0.5, 1, self.gamma_shape)
        beta = numpy.random.uniform(-1, 1, self.gamma_shape)
        return x, gamma.astype(self.param_dtype), beta.astype(self.param_dtype)

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return (
            batch_normalization.batch_normalization(x, gamma, beta, axis=self.axis),
        )

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        return (_bn(x, gamma, beta, self.axis).astype(self.dtype),)


@testing.parameterize(*testing.product({"shapes": _SHAPES[:4], "dtypes": _DTYPES}))
@testing.inject_backend_tests(None, [{}])
class TestFixedBatchNormalization(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.gamma_shape, self.axis = self.shapes
        self.dtype, self.param_dtype = self.dtypes
        _tolerances(self, self.dtype)

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        params = [
            numpy.random.uniform(0.5, 1, self.gamma_shape),
            numpy.random.uniform(-1, 1, self.gamma_shape),
            numpy.random.uniform(-1, 1, self.gamma_shape),
            numpy.random.uniform(0.5, 1, self.gamma_shape),
        ]
        return (x, *(p.astype(self.param_dtype) for p in params))

    def forward(self, inputs, device):
        return (batch_normalization.fixed_batch_normalization(*inputs, axis=self.axis),)

    def forward_expected(self, inputs):
        x, gamma, beta, mean, var = (a.astype(numpy.float64) for a in inputs)
        axes = _reduced_axes(x.ndim, gamma.ndim, self.axis)
        gamma, beta, mean, var = (
            _expand(a, x.ndim, axes) for a in (gamma, beta, mean, var)
        )
        y = gamma * (x - mean) / numpy.sqrt(var + 2e-5) + beta
        return (y.astype(self.dtype),)


@pytest.mark.parametrize(("dtype", "param_dtype"), _DTYPES)
def test_running_statistics(dtype, param_dtype):
    x = numpy.random.uniform(-1, 1, (4, 3, 2)).astype(dtype)
    gamma = numpy.ones(3, param_dtype)
    beta = numpy.zeros(3, param_dtype)
    mean0 = numpy.random.uniform(-1, 1, 3).astype(param_dtype)
    var0 = numpy.random.uniform(0.5, 1, 3).astype(param_dtype)
    running_mean, running_var = mean0.copy(), var0.copy()
    batch_normalization.batch_normalization(
        x, gamma, beta, running_mean=running_mean, running_var=running_var, decay=0.7
    )
    x64 = x.astype(numpy.float64)
    m = 8
    expected_mean = 0.7 * mean0 + 0.3 * x64.mean(axis=(0, 2))
    expected_var = 0.7 * var0 + 0.3 * x64.var(axis=(0, 2)) * m / (m - 1)
    tol = 1e-3 if dtype == numpy.float16 else 1e-6
    assert running_mean.dtype == param_dtype
    numpy.testing.assert_allclose(running_mean, expected_mean, rtol=tol, atol=tol)
    numpy.testing.assert_allclose(running_var, expected_var, rtol=tol, atol=tol)


def test_gradients_when_parameters_need_none():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (5, 3)))
    gamma = numpy.random.uniform(0.5, 1, 3)
    beta = numpy.random.uniform(-1, 1, 3)
    gy = numpy.random.uniform(-1, 1, (5, 3))
    y = batch_normalization.batch_normalization(x, gamma, beta)
    y.grad = gy
    y.backward()
    gx_with_params = x.grad
    x.cleargrad()
    gv, bv = chainer.Variable(gamma), chainer.Variable(beta)
    y = batch_normalization.batch_normalization(x, gv, bv)
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(x.grad, gx_with_params)
    # The gradient of a channel sums to zero over the batch.
    numpy.testing.assert_allclose(gx_with_params.sum(axis=0), 0, atol=1e-12)
    numpy.testing.assert_allclose(bv.grad, gy.sum(axis=0))


def test_only_parameters_need_gradients():
    x = numpy.random.uniform(-1, 1, (5, 3))
    gamma = chainer.Variable(numpy.random.uniform(0.5, 1, 3))
    beta = chainer.Variable(numpy.random.uniform(-1, 1, 3))
    y = batch_normalization.batch_normalization(x, gamma, beta)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    x_hat = (x - x.mean(axis=0)) / numpy.sqrt(x.var(axis=0) + 2e-5)
    numpy.testing.assert_allclose(gamma.grad, x_hat.sum(axis=0), atol=1e-12)
    numpy.testing.assert_allclose(beta.grad, [5, 5, 5])


def test_backward_is_a_dedicated_node_with_double_backprop():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (4, 3)))
    gamma = chainer.Variable(numpy.ones(3))
    y = batch_normalization.batch_normalization(x, gamma, numpy.zeros(3))
    gy = numpy.random.uniform(-1, 1, (4, 3))
    (gx,) = chainer.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert isinstance(gx.creator, batch_normalization.BatchNormalizationGrad)
    node = y.creator
    assert node.mean.shape == (3,)
    assert node.inv_std.shape == (3,)


def test_mean_and_inverse_std_are_kept():
    x = numpy.random.uniform(-1, 1, (4, 3, 2)).astype(numpy.float32)
    node = batch_normalization.BatchNormalization()
    node.apply((x, numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)))
    numpy.testing.assert_allclose(node.mean, x.mean(axis=(0, 2)), rtol=1e-5)
    expected = 1 / numpy.sqrt(x.var(axis=(0, 2)) + 2e-5)
    numpy.testing.assert_allclose(node.inv_std, expected, rtol=1e-5)
    assert node.mean.dtype == numpy.float32


def test_single_sample_batch_warns():
    gamma, beta = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    with pytest.warns(UserWarning, match="one sample"):
        batch_normalization.batch_normalization(
            numpy.ones((1, 3), numpy.float32), gamma, beta
        )
    with pytest.warns(UserWarning, match="length one"):
        batch_normalization.batch_normalization(
            numpy.ones((3, 1), numpy.float32), gamma, beta, axis=1
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batch_normalization.batch_normalization(
            numpy.ones((1, 3, 2), numpy.float32), gamma, beta
        )


def test_empty_batch():
    x = numpy.zeros((0, 3), numpy.float32)
    mean, var = numpy.zeros(3, numpy.float32), numpy.ones(3, numpy.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = batch_normalization.batch_normalization(
            x,
            numpy.ones(3, numpy.float32),
            numpy.zeros(3, numpy.float32),
            running_mean=mean,
            running_var=var,
        )
    assert y.shape == (0, 3)
    numpy.testing.assert_array_equal(mean, 0)
    numpy.testing.assert_array_equal(var, 1)


def _args(x_shape=(4, 3), gamma_shape=(3,), dtype=numpy.float32):
    return (
        numpy.zeros(x_shape, dtype),
        numpy.ones(gamma_shape, numpy.float32),
        numpy.zeros(gamma_shape, numpy.float32),
    )


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (_args(gamma_shape=(4,)), {}),
        (_args(dtype=numpy.int32), {}),
        (_args(x_shape=(4, 3, 2), gamma_shape=(3, 3)), {}),
        (_args(), {"axis": 2}),
        (_args(), {"axis": (0, 0)}),
        ((*_args()[:2], numpy.zeros(3, numpy.float64)), {}),
    ],
)
def test_invalid_types(args, kwargs):
    with pytest.raises(type_check.InvalidType):
        batch_normalization.batch_normalization(*args, **kwargs)


def test_invalid_arguments():
    with pytest.raises(TypeError, match="foo"):
        batch_normalization.batch_normalization(*_args(), foo=1)
    with pytest.raises(ValueError, match="using_config"):
        batch_normalization.batch_normalization(*_args(), train=True)
    with pytest.raises(ValueError, match="together"):
        batch_normalization.batch_normalization(
            *_args(), running_mean=numpy.zeros(3, numpy.float32)
        )
    with pytest.raises(ValueError, match="shape of gamma"):
        batch_normalization.batch_normalization(
            *_args(),
            running_mean=numpy.zeros(3, numpy.float32),
            running_var=numpy.zeros(4, numpy.float32),
        )


def test_fixed_invalid_types():
    x, gamma, beta = _args()
    with pytest.raises(type_check.InvalidType):
        batch_normalization.fixed_batch_normalization(
            x, gamma, beta, numpy.zeros(2, numpy.float32), numpy.ones(3, numpy.float32)
        )
    with pytest.raises(type_check.InvalidType):
        batch_normalization.fixed_batch_normalization(
            x, gamma, beta, numpy.zeros(3), numpy.ones(3)
        )


def test_fixed_gradients_of_statistics():
    x = numpy.random.uniform(-1, 1, (4, 3))
    gamma = numpy.random.uniform(0.5, 1, 3)
    mean = chainer.Variable(numpy.random.uniform(-1, 1, 3))
    var = chainer.Variable(numpy.random.uniform(0.5, 1, 3))
    y = batch_normalization.fixed_batch_normalization(
        x, gamma, numpy.zeros(3), mean, var
    )
    y.grad = numpy.ones_like(y.array)
    y.backward()
    inv_std = 1 / numpy.sqrt(var.array + 2e-5)
    numpy.testing.assert_allclose(mean.grad, -4 * gamma * inv_std)
    expected = -0.5 * gamma * inv_std**3 * (x - mean.array).sum(axis=0)
    numpy.testing.assert_allclose(var.grad, expected)


def test_catalogue():
    import chainer.functions as F

    assert F.batch_normalization is batch_normalization.batch_normalization
    assert F.fixed_batch_normalization is batch_normalization.fixed_batch_normalization


@pytest.mark.parametrize("layout", ["c_order", "channel_major", "batch_innermost"])
@pytest.mark.parametrize("shape", [(4, 3, 16, 16), (2, 5, 1, 300), (3, 2, 16, 17)])
def test_per_channel_dot_of_large_maps(shape, layout):
    # The reference per-channel reductions (one einsum each) match float64
    # on large maps whatever the memory order of x (chainer-cpu's kernels
    # take faster routes over such layouts; tests/cpu checks those).
    from chainer.functions.normalization import moments

    rng = numpy.random.RandomState(3)
    c = shape[1]

    def make():
        a = rng.standard_normal(shape).astype(numpy.float32)
        if layout == "channel_major":
            return numpy.ascontiguousarray(a.swapaxes(0, 1)).swapaxes(0, 1)
        if layout == "batch_innermost":
            return numpy.ascontiguousarray(a.transpose(1, 2, 3, 0)).transpose(
                3, 0, 1, 2
            )
        return a

    a, b = make(), make()
    lay = moments.get_layout(shape, (0, 2, 3))
    got = lay.dot(lay.view(a), lay.view(b))
    expected = (a.astype(numpy.float64) * b).sum(axis=(0, 2, 3))
    assert got.shape == (c,)
    numpy.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)
    numpy.testing.assert_allclose(
        lay.sum(lay.view(a)), a.astype(numpy.float64).sum(axis=(0, 2, 3)),
        rtol=1e-5, atol=1e-4,
    )  # fmt: skip
    xv = chainer.Variable(a)
    gamma = numpy.ones(c, numpy.float32)
    beta = numpy.zeros(c, numpy.float32)
    y = batch_normalization.batch_normalization(xv, gamma, beta)
    x64 = a.astype(numpy.float64)
    mean = x64.mean(axis=(0, 2, 3), keepdims=True)
    var = x64.var(axis=(0, 2, 3), keepdims=True)
    numpy.testing.assert_allclose(
        y.array, (x64 - mean) / numpy.sqrt(var + 2e-5), rtol=1e-4, atol=1e-4
    )
    # The gradient agrees with that of a C-order copy.
    y.grad = b
    y.backward()
    xc = chainer.Variable(numpy.ascontiguousarray(a))
    yc = batch_normalization.batch_normalization(xc, gamma, beta)
    yc.grad = numpy.ascontiguousarray(b)
    yc.backward()
    numpy.testing.assert_allclose(xv.grad, xc.grad, rtol=1e-4, atol=1e-5)
