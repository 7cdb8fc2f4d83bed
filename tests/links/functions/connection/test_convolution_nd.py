import itertools

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.connection import convolution_nd
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tuple(v, n):
    return tuple(v) if isinstance(v, tuple) else (v,) * n


def _reference(x, W, b, stride, pad, cover_all, dilate, groups):
    # Sum over kernel taps of strided slices of the zero-padded input.
    nd = x.ndim - 2
    stride, pad, dilate = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    ksize = W.shape[2:]
    out = tuple(
        (size + 2 * p - (k - 1) * d - 1 + (s - 1 if cover_all else 0)) // s + 1
        for size, k, s, p, d in zip(
            x.shape[2:], ksize, stride, pad, dilate, strict=True
        )
    )
    spatial = tuple(
        size + 2 * p + s for size, p, s in zip(x.shape[2:], pad, stride, strict=True)
    )
    padded = numpy.zeros(x.shape[:2] + spatial)
    inner = tuple(slice(p, p + size) for p, size in zip(pad, x.shape[2:], strict=True))
    padded[(slice(None), slice(None), *inner)] = x
    n, c = x.shape[:2]
    out_c = W.shape[0]
    cg, og = c // groups, out_c // groups
    y = numpy.zeros((n, out_c, *out))
    for tap in itertools.product(*(range(k) for k in ksize)):
        taps = tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(tap, dilate, stride, out, strict=True)
        )
        window = padded[(slice(None), slice(None), *taps)]
        for g in range(groups):
            w_tap = W[(slice(g * og, (g + 1) * og), slice(None), *tap)]
            y[:, g * og : (g + 1) * og] += numpy.einsum(
                "nc...,oc->no...", window[:, g * cg : (g + 1) * cg], w_tap
            )
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd)
    return y


@testing.parameterize(
    *testing.product(
        {
            "conv": [
                # x spatial shape, ksize, stride, pad, cover_all, dilate, groups
                ((5,), 3, 1, 1, False, 1, 1),
                ((6,), 2, 3, 0, True, 2, 2),
                ((3, 4, 3), (2, 3, 2), (1, 2, 1), (1, 0, 1), False, 1, 1),
                ((4, 3, 3), 2, 2, 1, True, (1, 2, 1), 2),
                ((2, 2, 2, 3), 2, 1, 0, False, 1, 1),
            ],
            "nobias": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestConvolutionND(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        spatial, ksize, _, _, _, _, groups = self.conv
        ksize = _tuple(ksize, len(spatial))
        x = numpy.random.uniform(-1, 1, (2, 4, *spatial)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (2, 4 // groups, *ksize)).astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, numpy.random.uniform(-1, 1, 2).astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        _, _, stride, pad, cover_all, dilate, groups = self.conv
        if x.ndim == 3:
            func = convolution_nd.convolution_1d
        elif x.ndim == 5:
            func = convolution_nd.convolution_3d
        else:
            func = convolution_nd.convolution_nd
        return (func(x, W, b, stride, pad, cover_all, dilate, groups),)

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        _, _, stride, pad, cover_all, dilate, groups = self.conv
        y = _reference(x, W, b, stride, pad, cover_all, dilate, groups)
        return (y.astype(self.dtype),)


def test_node_and_gradient_graph():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (2, 2, 3, 3, 3)))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (3, 2, 2, 2, 2)))
    y = convolution_nd.convolution_nd(x, W, pad=1)
    assert isinstance(y.creator, convolution_nd.ConvolutionND)
    assert y.creator.ndim == 3
    assert y.shape == (2, 3, 4, 4, 4)
    gy = chainer.Variable(numpy.random.uniform(-1, 1, y.shape))
    gx, gW = chainer.grad([y], [x, W], [gy], enable_double_backprop=True)
    assert isinstance(gW.creator, convolution_nd.ConvolutionNDGradW)
    assert gx.shape == x.shape
    assert gW.shape == W.shape


def test_wrappers_check_ndim():
    x = numpy.zeros((1, 1, 4, 4), numpy.float32)
    W = numpy.zeros((1, 1, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match="should be 1"):
        convolution_nd.convolution_1d(x, W)
    with pytest.raises(ValueError, match="should be 3"):
        convolution_nd.convolution_3d(x, W)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "groups"),
    [
        ((1, 2, 4, 4, 4), (1, 2, 2, 2), 1),  # W ndim differs from x
        ((1, 3, 4), (2, 2, 2), 1),  # channels
        ((1, 4, 4), (3, 2, 2), 2),  # out channels not divisible by groups
        ((1, 2, 2), (1, 2, 3), 1),  # empty output
    ],
)
def test_invalid_types(x_shape, w_shape, groups):
    x = numpy.zeros(x_shape, numpy.float32)
    W = numpy.zeros(w_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        convolution_nd.convolution_nd(x, W, groups=groups)


def test_empty_output_is_an_assertion_error_too():
    # Chainer asserts that output sizes are positive.
    x = numpy.zeros((1, 2, 2), numpy.float32)
    W = numpy.zeros((1, 2, 3), numpy.float32)
    with pytest.raises(AssertionError, match="output size"):
        convolution_nd.convolution_nd(x, W)


def test_invalid_options():
    with pytest.raises(ValueError, match="groups must be positive"):
        convolution_nd.ConvolutionND(2, groups=0)
    with pytest.raises(ValueError, match="sequence of 3"):
        convolution_nd.ConvolutionND(3, pad=(1, 1))
