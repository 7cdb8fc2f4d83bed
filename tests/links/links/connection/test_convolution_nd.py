import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.functions.connection import convolution_nd as convolution_nd_function
from chainer.links.connection import convolution_nd

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            # spatial shape, ksize, stride, pad, cover_all, groups
            "conv": [
                ((5,), 3, 1, 1, False, 1),
                ((4, 3, 3), 2, (2, 1, 1), 1, True, 2),
                ((3, 2, 2, 3), 2, 1, 0, False, 1),
            ],
            "lazy": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestConvolutionND(testing.LinkTestCase):
    param_names = ("W", "b")

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        spatial, ksize, _, _, _, groups = self.conv
        shape = (4, 4 // groups) + (ksize,) * len(spatial)
        W = numpy.random.uniform(-1, 1, shape).astype(self.dtype)
        return W, numpy.random.uniform(-1, 1, 4).astype(self.dtype)

    def create_link(self, inits):
        spatial, ksize, stride, pad, cover_all, groups = self.conv
        ndim = len(spatial)
        W, b = inits
        in_channels = None if self.lazy else 4
        with chainer.using_config("dtype", self.dtype):
            if ndim == 1:
                cls = convolution_nd.Convolution1D
            elif ndim == 3:
                cls = convolution_nd.Convolution3D
            else:
                return convolution_nd.ConvolutionND(
                    ndim, in_channels, 4, ksize, stride, pad, initialW=W,
                    initial_bias=b, cover_all=cover_all, groups=groups,
                )  # fmt: skip
            return cls(
                in_channels, 4, ksize, stride, pad, initialW=W, initial_bias=b,
                cover_all=cover_all, groups=groups,
            )  # fmt: skip

    def generate_inputs(self):
        spatial = self.conv[0]
        return (numpy.random.uniform(-1, 1, (2, 4, *spatial)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        _, _, stride, pad, cover_all, groups = self.conv
        with chainer.using_config("type_check", True):
            y = convolution_nd_function.convolution_nd(
                x.astype(numpy.float64),
                link.W.array.astype(numpy.float64),
                link.b.array.astype(numpy.float64),
                stride, pad, cover_all, groups=groups,
            )  # fmt: skip
        return (y.array.astype(self.dtype),)


@testing.parameterize(*testing.product({"dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestConvolutionNDInitializers(testing.LinkInitializersTestCase):
    param_names = ("W", "b")

    def get_initializers(self):
        return ([initializers.Constant(2.0), 0.5], [initializers.Constant(1.0), 3])

    def generate_params(self):
        return (initializers.Constant(2.0), initializers.Constant(1.0))

    def create_link(self, inits):
        W, b = inits
        with chainer.using_config("dtype", self.dtype):
            return convolution_nd.ConvolutionND(3, 2, 3, 2, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (1, 2, 3, 3, 3)).astype(self.dtype),)


def test_short_form_nobias_and_shapes():
    link = convolution_nd.ConvolutionND(2, 5, 3, nobias=True)
    assert link.W.array is None
    assert link.b is None
    y = link(numpy.ones((1, 2, 4, 4), numpy.float32))
    assert y.shape == (1, 5, 2, 2)
    assert link.W.shape == (5, 2, 3, 3)
    assert isinstance(link.W.initializer, initializers.LeCunNormal)
    assert "ConvolutionND(in_channels=2, out_channels=5" in repr(link)
    link1 = convolution_nd.Convolution1D(2, 3, 2, dilate=2)
    assert link1(numpy.ones((1, 2, 5), numpy.float32)).shape == (1, 3, 3)
    link3 = convolution_nd.Convolution3D(None, 3, (1, 2, 1))
    assert link3(numpy.ones((1, 2, 2, 2, 2), numpy.float32)).shape == (1, 3, 2, 1, 2)
    assert link3.W.shape == (3, 2, 1, 2, 1)


def test_invalid():
    with pytest.raises(ValueError, match="output channels must be divisible"):
        convolution_nd.ConvolutionND(1, 2, 3, 2, groups=2)
    with pytest.raises(ValueError, match="sequence of 2"):
        convolution_nd.ConvolutionND(2, 2, 3, (2, 2, 2))
    link = convolution_nd.Convolution3D(2, 3, 2)
    with pytest.raises(ValueError, match="expected an input of 5 dimensions"):
        link(numpy.ones((1, 2, 4, 4), numpy.float32))


def test_serialization_round_trip():
    src = convolution_nd.ConvolutionND(1, 2, 3, 2)
    dst = convolution_nd.ConvolutionND(1, 2, 3, 2)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)
