import math

import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]

# (y_min, x_min, y_max, x_max), exact in float16; the last ROI is partly
# outside the image.
_ROIS = numpy.array(
    [[0, 0, 12, 14], [2.5, 1.75, 9.25, 11.5], [4, 6, 5, 7], [-3, 8.5, 11, 17.75]]
)
_INDICES = numpy.array([0, 1, 1, 0], numpy.int32)


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _reference(x, rois, indices, outsize, scale):
    outh, outw = _pair(outsize)
    _, c, h, w = x.shape
    y = numpy.zeros((len(rois), c, outh, outw), x.dtype)
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
                    win = x[indices[r], :, hs:he, ws:we].astype(numpy.float64)
                    y[r, :, i, j] = win.mean(axis=(1, 2))
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
class TestROIAveragePooling2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-3, "rtol": 2e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 6, 7)).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        rois = device.send(_ROIS.astype(x.dtype))
        indices = device.send(_INDICES)
        y = functions.roi_average_pooling_2d(
            x, rois, indices, self.outsize, self.spatial_scale
        )
        return (y,)

    def forward_expected(self, inputs):
        (x,) = inputs
        rois = _ROIS.astype(x.dtype)
        return (_reference(x, rois, _INDICES, self.outsize, self.spatial_scale),)


def test_empty_bins_give_zero():
    x = chainer.Variable(numpy.random.rand(1, 2, 4, 4).astype(numpy.float32))
    rois = numpy.array([[-9, -9, -5, -5]], numpy.float32)
    y = functions.roi_average_pooling_2d(x, rois, numpy.zeros(1, numpy.int32), 2, 1.0)
    numpy.testing.assert_array_equal(y.array, 0)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, 0)


def test_large_values_keep_precision():
    # The summed-area table runs in float64, so a large offset cancels out.
    x = numpy.full((1, 1, 64, 64), 1e6, numpy.float32)
    x[0, 0, 10, 10] += 1
    rois = numpy.array([[10, 10, 11, 11]], numpy.float32)
    y = functions.roi_average_pooling_2d(x, rois, numpy.zeros(1, numpy.int32), 1, 1.0)
    assert y.array.item() == numpy.float32(1e6 + 1)


@pytest.mark.parametrize(
    ("rois", "indices"),
    [
        (numpy.zeros((2, 4), numpy.float64), numpy.zeros(2, numpy.int32)),
        (numpy.zeros((2, 4), numpy.float32), numpy.zeros((2, 1), numpy.int32)),
    ],
)
def test_invalid_input(rois, indices):
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.roi_average_pooling_2d(x, rois, indices, 2, 1.0)


def test_invalid_arguments():
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    rois = numpy.zeros((1, 4), numpy.float32)
    indices = numpy.zeros(1, numpy.int32)
    with pytest.raises(TypeError, match="outsize"):
        functions.roi_average_pooling_2d(x, rois, indices, (2, 0), 1.0)
    with pytest.raises(TypeError, match="spatial_scale"):
        functions.roi_average_pooling_2d(x, rois, indices, 2, 0.0)


@pytest.mark.parametrize(("n_rois", "channels"), [(0, 3), (2, 0)])
def test_no_rois_or_no_channels(n_rois, channels):
    x = chainer.Variable(numpy.random.rand(2, channels, 4, 4).astype(numpy.float32))
    rois = numpy.tile(numpy.array([[0, 0, 3, 3]], numpy.float32), (n_rois, 1))
    indices = numpy.ones(n_rois, numpy.int32)
    y = functions.roi_average_pooling_2d(x, rois, indices, 2, 1.0)
    assert y.shape == (n_rois, channels, 2, 2)
    y.grad = numpy.zeros(y.shape, numpy.float32)
    y.backward()
    assert x.grad.shape == x.shape
