import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.connection import dilated_convolution_2d as dilated_function
from chainer.links.connection import dilated_convolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"lazy": [False, True], "dtype": _FLOATS, "dilate": [1, 2]})
)
@testing.inject_backend_tests(None, [{}])
class TestDilatedConvolution2D(testing.LinkTestCase):
    param_names = ("W", "b")

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        W = numpy.random.uniform(-1, 1, (2, 3, 2, 2)).astype(self.dtype)
        return W, numpy.random.uniform(-1, 1, 2).astype(self.dtype)

    def create_link(self, inits):
        W, b = inits
        with chainer.using_config("dtype", self.dtype):
            if self.lazy:
                return dilated_convolution_2d.DilatedConvolution2D(
                    2, 2, pad=1, dilate=self.dilate, initialW=W, initial_bias=b
                )
            return dilated_convolution_2d.DilatedConvolution2D(
                3, 2, 2, 1, 1, self.dilate, False, W, b
            )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 5, 4)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        y = dilated_function.dilated_convolution_2d(
            x.astype(numpy.float64),
            link.W.array.astype(numpy.float64),
            link.b.array.astype(numpy.float64),
            1,
            1,
            self.dilate,
        )
        return (y.array.astype(self.dtype),)


def test_attributes_and_wrong_input():
    link = dilated_convolution_2d.DilatedConvolution2D(3, 4, 3, dilate=2)
    assert link.dilate == (2, 2)
    assert link(numpy.ones((1, 3, 7, 7), numpy.float32)).shape == (1, 4, 3, 3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.ones((1, 3, 4, 4), numpy.float32))


def test_serialization_round_trip():
    src = dilated_convolution_2d.DilatedConvolution2D(2, 3, 2, dilate=2)
    dst = dilated_convolution_2d.DilatedConvolution2D(3, 2, dilate=2)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)
