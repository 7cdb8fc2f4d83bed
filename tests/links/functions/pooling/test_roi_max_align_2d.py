import math

import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]

# (y_min, x_min, y_max, x_max), exact in float16; the last ROI is partly
# outside the image (but every bin keeps a valid sample).
_ROIS = numpy.array(
    [[0, 0, 12, 14], [2.5, 1.75, 9.25, 11.5], [4, 6, 5, 7], [-3, 8.5, 11, 15.75]]
)
_INDICES = numpy.array([0, 1, 1, 0], numpy.int32)


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _bilinear(img, y, x):
    h, w = img.shape[1:]
    if y < -1 or y > h or x < -1 or x > w:
        return None
    y = min(max(y, 0), h - 1)
    x = min(max(x, 0), w - 1)
    y0, x0 = math.floor(y), math.floor(x)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = y - y0, x - x0
    return (
        (1 - ly) * (1 - lx) * img[:, y0, x0]
        + (1 - ly) * lx * img[:, y0, x1]
        + ly * (1 - lx) * img[:, y1, x0]
        + ly * lx * img[:, y1, x1]
    )


def _reference(x, rois, indices, outsize, scale, ratio):
    # Maximum over the valid samples; -inf without any.
    outh, outw = _pair(outsize)
    ratio = _pair(ratio)
    y = numpy.empty((len(rois), x.shape[1], outh, outw))
    for r, roi in enumerate(rois):
        img = x[indices[r]].astype(numpy.float64)
        y0, x0, y1, x1 = (float(v) * scale for v in roi)
        rh, rw = max(y1 - y0, 1.0), max(x1 - x0, 1.0)
        gh = ratio[0] if ratio[0] is not None else math.ceil(rh / outh)
        gw = ratio[1] if ratio[1] is not None else math.ceil(rw / outw)
        for i in range(outh):
            for j in range(outw):
                best = numpy.full(x.shape[1], -numpy.inf)
                for iy in range(gh):
                    yy = y0 + i * rh / outh + (iy + 0.5) * rh / outh / gh
                    for ix in range(gw):
                        xx = x0 + j * rw / outw + (ix + 0.5) * rw / outw / gw
                        v = _bilinear(img, yy, xx)
                        if v is not None:
                            best = numpy.maximum(best, v)
                y[r, :, i, j] = best
    return y.astype(x.dtype)


@testing.parameterize(
    *testing.product(
        {
            "outsize": [(2, 3), 1],
            "spatial_scale": [0.5, 0.25],
            "sampling_ratio": [None, 2, (1, 3)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestROIMaxAlign2D(testing.FunctionTestCase):
    dodge_nondifferentiable = True

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
        y = functions.roi_max_align_2d(
            x, rois, indices, self.outsize, self.spatial_scale, self.sampling_ratio
        )
        return (y,)

    def forward_expected(self, inputs):
        (x,) = inputs
        rois = _ROIS.astype(x.dtype)
        y = _reference(
            x, rois, _INDICES, self.outsize, self.spatial_scale, self.sampling_ratio
        )
        return (y,)


def test_roi_outside_the_image_gives_minus_infinity():
    x = chainer.Variable(numpy.random.rand(1, 2, 4, 4).astype(numpy.float32))
    rois = numpy.array([[-9, -9, -5, -5], [0, 0, 4, 4]], numpy.float32)
    y = functions.roi_max_align_2d(x, rois, numpy.zeros(2, numpy.int32), 2, 1.0)
    assert numpy.isneginf(y.array[0]).all()
    assert numpy.isfinite(y.array[1]).all()
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    assert numpy.isfinite(x.grad).all()
    numpy.testing.assert_allclose(x.grad.sum(), 2 * 4)


def test_gradient_goes_to_the_best_sample():
    # A single spike: every bin's best sample interpolates towards it.
    x = chainer.Variable(numpy.zeros((1, 1, 4, 4), numpy.float64))
    x.array[0, 0, 1, 1] = 1
    rois = numpy.array([[0, 0, 2, 2]], numpy.float64)
    y = functions.roi_max_align_2d(x, rois, numpy.zeros(1, numpy.int32), 1, 1.0, 2)
    # Samples at 0.5 and 1.5: the best one is (1.5, 1.5) or (0.5, 0.5), 0.25.
    assert y.array.item() == pytest.approx(0.25)
    y.grad = numpy.ones(y.shape)
    y.backward()
    numpy.testing.assert_allclose(x.grad.sum(), 1)


@pytest.mark.parametrize(
    ("rois", "indices"),
    [
        (numpy.zeros((2, 4), numpy.float64), numpy.zeros(2, numpy.int32)),
        (numpy.zeros((2, 4), numpy.float32), numpy.zeros(2, numpy.uint8)),
    ],
)
def test_invalid_input(rois, indices):
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.roi_max_align_2d(x, rois, indices, 2, 1.0)


def test_invalid_arguments():
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    rois = numpy.zeros((1, 4), numpy.float32)
    indices = numpy.zeros(1, numpy.int32)
    with pytest.raises(TypeError, match="sampling_ratio"):
        functions.roi_max_align_2d(x, rois, indices, 2, 1.0, (1, 0))
    with pytest.raises(TypeError, match="outsize"):
        functions.roi_max_align_2d(x, rois, indices, -1, 1.0)


@pytest.mark.parametrize(("n_rois", "channels"), [(0, 3), (2, 0)])
def test_no_rois_or_no_channels(n_rois, channels):
    x = chainer.Variable(numpy.random.rand(2, channels, 4, 4).astype(numpy.float32))
    rois = numpy.tile(numpy.array([[0, 0, 3, 3]], numpy.float32), (n_rois, 1))
    indices = numpy.ones(n_rois, numpy.int32)
    y = functions.roi_max_align_2d(x, rois, indices, 2, 1.0)
    assert y.shape == (n_rois, channels, 2, 2)
    y.grad = numpy.zeros(y.shape, numpy.float32)
    y.backward()
    assert x.grad.shape == x.shape
