import itertools

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.connection import deconvolution_nd
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tuple(v, n):
    return tuple(v) if isinstance(v, tuple) else (v,) * n


def _reference(x, W, b, stride, pad, outsize, dilate, groups):
    # Every input element scatters its filter-weighted copy onto the output.
    nd = x.ndim - 2
    stride, pad, dilate = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    ksize = W.shape[2:]
    in_size = x.shape[2:]
    if outsize is None:
        outsize = tuple(
            s * (i - 1) + (k - 1) * d + 1 - 2 * p
            for i, k, s, p, d in zip(in_size, ksize, stride, pad, dilate, strict=True)
        )
    full = tuple(
        max(s * (i - 1) + (k - 1) * d + 1, p + o)
        for i, k, s, p, d, o in zip(
            in_size, ksize, stride, pad, dilate, outsize, strict=True
        )
    )
    n, c_in = x.shape[:2]
    c_out = W.shape[1] * groups
    ig, og = c_in // groups, c_out // groups
    y = numpy.zeros((n, c_out, *full))
    for tap in itertools.product(*(range(k) for k in ksize)):
        dst = tuple(
            slice(t * d, t * d + s * (i - 1) + 1, s)
            for t, d, s, i in zip(tap, dilate, stride, in_size, strict=True)
        )
        for g in range(groups):
            w_tap = W[(slice(g * ig, (g + 1) * ig), slice(None), *tap)]
            y[(slice(None), slice(g * og, (g + 1) * og), *dst)] += numpy.einsum(
                "nc...,co->no...", x[:, g * ig : (g + 1) * ig], w_tap
            )
    crop = tuple(slice(p, p + o) for p, o in zip(pad, outsize, strict=True))
    y = y[(slice(None), slice(None), *crop)]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


@testing.parameterize(
    *testing.product(
        {
            "deconv": [
                # spatial, ksize, stride, pad, outsize, dilate, groups, (c_I, c_O)
                ((5,), 3, 1, 1, None, 1, 1, (2, 4)),
                ((4,), 2, 3, 0, (10,), 1, 1, (2, 2)),
                ((4,), 3, 2, 1, None, 2, 2, (4, 2)),
                ((3, 4), (2, 3), (2, 1), (1, 0), None, (1, 2), 2, (2, 4)),
                ((2, 3, 2), 2, 1, 0, None, 1, 1, (2, 4)),
                ((2, 3, 2), 2, 1, (1, 0, 1), None, (1, 1, 2), 2, (4, 2)),
                ((2, 2, 1, 2), 2, (1, 2, 1, 1), 0, (3, 4, 2, 3), 1, 1, (2, 2)),
            ],
            "nobias": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDeconvolutionND(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        spatial, ksize, _, _, _, _, groups, (c_in, c_out) = self.deconv
        ksize = _tuple(ksize, len(spatial))
        x = numpy.random.uniform(-1, 1, (2, c_in, *spatial)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (c_in, c_out // groups, *ksize))
        W = W.astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, numpy.random.uniform(-1, 1, c_out).astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        _, _, stride, pad, outsize, dilate, groups, _ = self.deconv
        if x.ndim == 3:
            func = deconvolution_nd.deconvolution_1d
        elif x.ndim == 5:
            func = deconvolution_nd.deconvolution_3d
        else:
            func = deconvolution_nd.deconvolution_nd
        return (func(x, W, b, stride, pad, outsize, dilate, groups),)

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        _, _, stride, pad, outsize, dilate, groups, _ = self.deconv
        y = _reference(x, W, b, stride, pad, outsize, dilate, groups)
        return (y.astype(self.dtype),)


def test_node_and_cover_all_backward():
    # outsize 10 needs cover_all in the convolution that maps it back to 4.
    x = chainer.Variable(numpy.random.uniform(-1, 1, (1, 2, 4)))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3, 2)))
    y = deconvolution_nd.deconvolution_nd(x, W, stride=3, outsize=(10,))
    assert isinstance(y.creator, deconvolution_nd.DeconvolutionND)
    assert y.creator.cover_all
    assert y.shape == (1, 3, 10)
    y.grad = numpy.ones(y.shape)
    y.backward()
    assert x.grad.shape == x.shape


def test_wrappers_check_ndim():
    x = numpy.zeros((1, 1, 4, 4), numpy.float32)
    W = numpy.zeros((1, 1, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match="should be 1"):
        deconvolution_nd.deconvolution_1d(x, W)
    with pytest.raises(ValueError, match="should be 3"):
        deconvolution_nd.deconvolution_3d(x, W)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "kwargs"),
    [
        ((1, 2, 4), (3, 2, 2), {}),  # channels
        ((1, 2, 4, 4), (2, 2, 2), {}),  # W ndim
        ((1, 3, 4), (3, 2, 2), {"groups": 2}),  # c_I % groups
        ((1, 2, 4), (2, 2, 2), {"stride": 2, "outsize": (12,)}),  # outsize too big
        ((1, 2, 4), (2, 2, 2), {"stride": 2, "outsize": (6,)}),  # outsize too small
        ((1, 2, 1), (2, 2, 1), {"pad": 1}),  # empty output
    ],
)
def test_invalid_types(x_shape, w_shape, kwargs):
    x = numpy.zeros(x_shape, numpy.float32)
    W = numpy.zeros(w_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        deconvolution_nd.deconvolution_nd(x, W, **kwargs)


def test_invalid_bias_and_options():
    x = numpy.zeros((1, 2, 4), numpy.float32)
    W = numpy.zeros((2, 2, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        deconvolution_nd.deconvolution_nd(x, W, numpy.zeros(3, numpy.float32))
    with pytest.raises(ValueError, match="must be positive"):
        deconvolution_nd.deconvolution_nd(x, W, dilate=0)
    with pytest.raises(ValueError, match="outsize must be an int or a sequence of 1"):
        deconvolution_nd.deconvolution_nd(x, W, outsize=(4, 4))


def test_estimated_output_size_not_positive():
    # Chainer asserts on it: the error is an AssertionError and an InvalidType.
    x = numpy.zeros((2, 3, 4), numpy.float32)
    W = numpy.zeros((3, 2, 2), numpy.float32)
    with pytest.raises(AssertionError, match="output size"):
        deconvolution_nd.deconvolution_nd(x, W, pad=10)
    with pytest.raises(type_check.InvalidType):
        deconvolution_nd.deconvolution_nd(x, W, pad=10)


@pytest.mark.parametrize("channels", [(2, 4), (4, 2)])
def test_empty_batch(channels):
    c_in, c_out = channels
    x = chainer.Variable(numpy.zeros((0, c_in, 3, 3), numpy.float32))
    W = chainer.Variable(numpy.ones((c_in, c_out, 3, 3), numpy.float32))
    y = deconvolution_nd.deconvolution_nd(x, W, pad=1)
    assert y.shape == (0, c_out, 3, 3)
    y.grad = numpy.zeros(y.shape, numpy.float32)
    y.backward()
    assert x.grad.shape == x.shape
    numpy.testing.assert_array_equal(W.grad, numpy.zeros(W.shape))
