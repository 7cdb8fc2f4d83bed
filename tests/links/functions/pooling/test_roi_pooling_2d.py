import math

import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.functions.pooling import roi_pooling_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]

# (batch_index, x_min, y_min, x_max, y_max), exact in float16.
_ROIS = numpy.array(
    [
        [0, 0, 0, 13, 11],
        [1, 1.75, 2.5, 11.5, 9.25],
        [1, 6, 4, 7, 5],
        [0, 8.5, 1.25, 13.75, 11],
    ]
)


def _reference(x, rois, outh, outw, scale):
    # Fast R-CNN: both end cells count, empty bins give 0.
    _, c, h, w = x.shape
    y = numpy.zeros((len(rois), c, outh, outw), x.dtype)
    for r, (b, x0, y0, x1, y1) in enumerate(rois.astype(numpy.float64)):
        y0, x0, y1, x1 = (round(v * scale) for v in (y0, x0, y1, x1))
        bin_h = max(y1 - y0 + 1, 1) / outh
        bin_w = max(x1 - x0 + 1, 1) / outw
        for i in range(outh):
            hs = min(max(math.floor(i * bin_h) + y0, 0), h)
            he = min(max(math.ceil((i + 1) * bin_h) + y0, 0), h)
            for j in range(outw):
                ws = min(max(math.floor(j * bin_w) + x0, 0), w)
                we = min(max(math.ceil((j + 1) * bin_w) + x0, 0), w)
                if he > hs and we > ws:
                    y[r, :, i, j] = x[int(b), :, hs:he, ws:we].max(axis=(1, 2))
    return y


@testing.parameterize(
    *testing.product(
        {"outsize": [(2, 3), (3, 1)], "spatial_scale": [0.5, 0.25], "dtype": _FLOATS}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestROIPooling2D(testing.FunctionTestCase):
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
        outh, outw = self.outsize
        return (functions.roi_pooling_2d(x, rois, outh, outw, self.spatial_scale),)

    def forward_expected(self, inputs):
        (x,) = inputs
        outh, outw = self.outsize
        rois = _ROIS.astype(x.dtype)
        return (_reference(x, rois, outh, outw, self.spatial_scale),)


def test_empty_bins_give_zero():
    x = chainer.Variable(numpy.random.rand(1, 2, 4, 4).astype(numpy.float32))
    rois = numpy.array([[0, -9, -9, -5, -5]], numpy.float32)
    y = functions.roi_pooling_2d(x, rois, 2, 2, 1.0)
    numpy.testing.assert_array_equal(y.array, 0)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, 0)


def test_overlapping_rois_accumulate_gradients():
    x = chainer.Variable(numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4))
    rois = numpy.array([[0, 0, 0, 3, 3], [0, 2, 2, 3, 3]], numpy.float32)
    y = functions.roi_pooling_2d(x, rois, 1, 1, 1.0)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    assert x.grad[0, 0, 3, 3] == 2
    assert x.grad.sum() == 2


def test_shared_helpers():
    assert roi_pooling_2d.roi_outsize(3) == (3, 3)
    assert roi_pooling_2d.roi_outsize((2, 5)) == (2, 5)
    assert roi_pooling_2d.roi_spatial_scale(1) == 1.0
    with pytest.raises(TypeError, match="outsize"):
        roi_pooling_2d.roi_outsize((1, 2, 3))
    with pytest.raises(TypeError, match="spatial_scale"):
        roi_pooling_2d.roi_spatial_scale(True)
    lo, hi = roi_pooling_2d.bin_bounds(numpy.array([1.0]), numpy.array([5.0]), 2, 5)
    numpy.testing.assert_array_equal(lo, [[1, 3]])
    numpy.testing.assert_array_equal(hi, [[4, 5]])


@pytest.mark.parametrize(
    "rois",
    [
        numpy.zeros((2, 4), numpy.float32),
        numpy.zeros((2, 5), numpy.float64),
        numpy.zeros(5, numpy.float32),
    ],
)
def test_invalid_input(rois):
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.roi_pooling_2d(x, rois, 2, 2, 1.0)


@pytest.mark.parametrize(("n_rois", "channels"), [(0, 3), (2, 0)])
def test_no_rois_or_no_channels(n_rois, channels):
    x = chainer.Variable(numpy.random.rand(2, channels, 4, 4).astype(numpy.float32))
    rois = numpy.tile(numpy.array([[1, 0, 0, 3, 3]], numpy.float32), (n_rois, 1))
    y = functions.roi_pooling_2d(x, rois, 2, 2, 1.0)
    assert y.shape == (n_rois, channels, 2, 2)
    y.grad = numpy.zeros(y.shape, numpy.float32)
    y.backward()
    assert x.grad.shape == x.shape
