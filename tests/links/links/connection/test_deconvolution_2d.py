import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.functions.connection import deconvolution_2d as deconvolution_2d_function
from chainer.links.connection import deconvolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, W, b, stride, pad):
    # Scatter every input pixel times its filter (stride, then crop pad).
    n, _, h, w = x.shape
    _, c_out, kh, kw = W.shape
    full = numpy.zeros((n, c_out, stride * (h - 1) + kh, stride * (w - 1) + kw))
    for j in range(kh):
        for i in range(kw):
            full[
                :,
                :,
                j : j + stride * (h - 1) + 1 : stride,
                i : i + stride * (w - 1) + 1 : stride,
            ] += numpy.einsum("nchw,co->nohw", x, W[:, :, j, i])
    y = full[:, :, pad : full.shape[2] - pad, pad : full.shape[3] - pad]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


@testing.parameterize(
    *testing.product(
        {
            "conv": [(1, 0), (2, 1)],  # stride, pad
            "nobias": [False, True],
            "lazy": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDeconvolution2D(testing.LinkTestCase):
    def setUp(self):
        self.param_names = ("W",) if self.nobias else ("W", "b")
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        W = numpy.random.uniform(-1, 1, (3, 2, 3, 2)).astype(self.dtype)
        if self.nobias:
            return (W,)
        return W, numpy.random.uniform(-1, 1, 2).astype(self.dtype)

    def create_link(self, inits):
        stride, pad = self.conv
        W = inits[0]
        b = None if self.nobias else inits[1]
        with chainer.using_config("dtype", self.dtype):
            if self.lazy:
                return deconvolution_2d.Deconvolution2D(
                    2, (3, 2), stride=stride, pad=pad, nobias=self.nobias,
                    initialW=W, initial_bias=b,
                )  # fmt: skip
            return deconvolution_2d.Deconvolution2D(
                3, 2, (3, 2), stride, pad, self.nobias, None, W, b
            )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 3, 4)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        stride, pad = self.conv
        b = None if link.b is None else link.b.array
        y = _reference(x.astype(numpy.float64), link.W.array, b, stride, pad)
        return (y.astype(self.dtype),)


@testing.parameterize(*testing.product({"dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestDeconvolution2DInitializers(testing.LinkInitializersTestCase):
    param_names = ("W", "b")

    def get_initializers(self):
        return ([initializers.Constant(2.0), 0.5], [initializers.Constant(1.0), 3])

    def generate_params(self):
        return (initializers.Constant(2.0), initializers.Constant(1.0))

    def create_link(self, inits):
        W, b = inits
        with chainer.using_config("dtype", self.dtype):
            return deconvolution_2d.Deconvolution2D(2, 3, 2, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (1, 2, 3, 3)).astype(self.dtype),)


def test_outsize_groups_and_dilate():
    link = deconvolution_2d.Deconvolution2D(
        4, 6, 3, stride=2, pad=1, outsize=(8, 7), dilate=1, groups=2
    )
    y = link(numpy.ones((1, 4, 4, 4), numpy.float32))
    assert y.shape == (1, 6, 8, 7)
    assert link.W.shape == (4, 3, 3, 3)
    assert isinstance(y.creator, deconvolution_2d_function.Deconvolution2DFunction)
    link = deconvolution_2d.Deconvolution2D(2, 1, 2, dilate=2)
    assert link(numpy.ones((1, 2, 3, 3), numpy.float32)).shape == (1, 1, 5, 5)


def test_invalid():
    with pytest.raises(ValueError, match="deterministic argument"):
        deconvolution_2d.Deconvolution2D(1, 1, 1, deterministic=True)
    link = deconvolution_2d.Deconvolution2D(2, 1, 3, stride=2, outsize=(12, 12))
    with pytest.raises(type_check.InvalidType):
        link(numpy.ones((1, 2, 4, 4), numpy.float32))


def test_serialization_round_trip():
    src = deconvolution_2d.Deconvolution2D(2, 3, 2)
    dst = deconvolution_2d.Deconvolution2D(3, 2)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)
