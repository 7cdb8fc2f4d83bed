import math

import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]

# (y_min, x_min, y_max, x_max) in coordinates twice the feature map's; all
# values are exact in float16.
_ROIS = numpy.array(
    [[0, 0, 12, 14], [2.5, 1.75, 9.25, 11.5], [4, 6, 5, 7], [1.25, 8.5, 11, 13.75]]
)
_INDICES = numpy.array([0, 1, 1, 0], numpy.int32)


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _reference(x, rois, indices, outsize, scale):
    outh, outw = _pair(outsize)
    _, c, h, w = x.shape
    y = numpy.full((len(rois), c, outh, outw), -numpy.inf, x.dtype)
    for r, (y0, x0, y1, x1) in enumerate(rois.astype(numpy.float64)):
        y0, x0, y1, x1 = (round(v * scale) for v in (y0, x0, y1, x1))
        bin_h = max(y1 - y0, 1) / outh
        bin_w = max(x1 - x0, 1) / outw
        for i in range(outh):
            hs = min(max(math.floor(i * bin_h) + y0, 0), h)
            he = min(max(math.ceil((i + 1) * bin_h) + y0, 0), h)
            for j in range(outw):
                ws = min(max(math.floor(j * bin_w) + x0, 0), w)
                we = min(max(math.ceil((j + 1) * bin_w) + x0, 0), w)
                if he > hs and we > ws:
                    y[r, :, i, j] = x[indices[r], :, hs:he, ws:we].max(axis=(1, 2))
    return y


@testing.parameterize(
    *testing.product(
        {
            "outsize": [(2, 3), 1],
            "spatial_scale": [0.5, 0.25],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestROIMaxPooling2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        shape = (2, 3, 6, 7)
        perm = numpy.random.permutation(int(numpy.prod(shape))).reshape(shape)
        return ((perm * (2.0 / perm.size) - 1).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        rois = device.send(_ROIS.astype(x.dtype))
        indices = device.send(_INDICES)
        y = functions.roi_max_pooling_2d(
            x, rois, indices, self.outsize, self.spatial_scale
        )
        return (y,)

    def forward_expected(self, inputs):
        (x,) = inputs
        rois = _ROIS.astype(x.dtype)
        return (_reference(x, rois, _INDICES, self.outsize, self.spatial_scale),)


def test_empty_bins_give_minus_infinity_and_no_gradient():
    x = chainer.Variable(numpy.random.rand(1, 2, 4, 4).astype(numpy.float32))
    rois = numpy.array([[-9, -9, -5, -5], [2, 2, 6, 6]], numpy.float32)
    y = functions.roi_max_pooling_2d(x, rois, numpy.zeros(2, numpy.int32), 2, 1.0)
    assert numpy.isneginf(y.array[0]).all()
    # Bin (0, 0) of the second ROI is [2, 4) x [2, 4); the others are outside.
    expected = x.array[0, :, 2:, 2:].max(axis=(1, 2))
    numpy.testing.assert_array_equal(y.array[1, :, 0, 0], expected)
    assert numpy.isneginf(y.array[1, :, 1, 1]).all()
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    assert numpy.isfinite(x.grad).all()


def test_half_integers_round_to_even():
    x = numpy.arange(8, dtype=numpy.float32).reshape(1, 1, 1, 8)
    # x_min 2.5 -> 2, x_max 5.5 -> 6: bins [2, 4) and [4, 6).
    rois = numpy.array([[0, 2.5, 1, 5.5]], numpy.float32)
    y = functions.roi_max_pooling_2d(x, rois, numpy.zeros(1, numpy.int32), (1, 2), 1.0)
    numpy.testing.assert_array_equal(y.array.ravel(), [3, 5])


@pytest.mark.parametrize(("n_rois", "channels"), [(0, 3), (2, 0)])
def test_no_rois_or_no_channels(n_rois, channels):
    x = chainer.Variable(numpy.random.rand(2, channels, 4, 4).astype(numpy.float32))
    rois = numpy.tile(numpy.array([[0, 0, 3, 3]], numpy.float32), (n_rois, 1))
    indices = numpy.ones(n_rois, numpy.int32)
    y = functions.roi_max_pooling_2d(x, rois, indices, 2, 1.0)
    assert y.shape == (n_rois, channels, 2, 2)
    y.grad = numpy.zeros(y.shape, numpy.float32)
    y.backward()
    assert x.grad.shape == x.shape


@pytest.mark.parametrize(
    ("rois", "indices"),
    [
        (numpy.zeros((2, 4), numpy.float64), numpy.zeros(2, numpy.int32)),
        (numpy.zeros((2, 5), numpy.float32), numpy.zeros(2, numpy.int32)),
        (numpy.zeros((2, 4), numpy.float32), numpy.zeros(2, numpy.int64)),
        (numpy.zeros((2, 4), numpy.float32), numpy.zeros(3, numpy.int32)),
    ],
)
def test_invalid_input(rois, indices):
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.roi_max_pooling_2d(x, rois, indices, 2, 1.0)


@pytest.mark.parametrize(
    ("outsize", "spatial_scale"), [(0, 1.0), (2.0, 1.0), (2, -1.0), (2, "a")]
)
def test_invalid_arguments(outsize, spatial_scale):
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    rois = numpy.zeros((1, 4), numpy.float32)
    with pytest.raises(TypeError, match="must be"):
        functions.roi_max_pooling_2d(
            x, rois, numpy.zeros(1, numpy.int32), outsize, spatial_scale
        )
