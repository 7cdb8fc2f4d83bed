import numpy
import pytest

from chainer import initializers
from chainer import testing
from chainer.links.connection import local_convolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _expected(x, W, b, stride):
    sy, sx = stride
    out_c, out_h, out_w, _, kh, kw = W.shape
    y = numpy.zeros((len(x), out_c, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, :, i * sy : i * sy + kh, j * sx : j * sx + kw]
            y[:, :, i, j] = numpy.einsum("ncpq,ocpq->no", patch, W[:, i, j])
    if b is not None:
        y += b
    return y


@testing.parameterize(
    *testing.product(
        {
            "stride": [1, 2],
            "nobias": [True, False],
            "lazy": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLocalConvolution2D(testing.LinkTestCase):
    def setUp(self):
        self.param_names = ("W",) if self.nobias else ("W", "b")
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        return (
            initializers.Normal(dtype=self.dtype),
            initializers.Normal(dtype=self.dtype),
        )

    def create_link(self, inits):
        W, b = inits
        if self.lazy:
            return local_convolution_2d.LocalConvolution2D(
                None,
                2,
                ksize=2,
                stride=self.stride,
                nobias=self.nobias,
                initialW=W,
                initial_bias=b,
            )
        return local_convolution_2d.LocalConvolution2D(
            3, 2, (4, 5), 2, self.stride, self.nobias, W, b
        )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 4, 5)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        b = None if self.nobias else link.b.array
        y = _expected(x, link.W.array, b, (self.stride, self.stride))
        return (y.astype(self.dtype),)


def test_shapes():
    link = local_convolution_2d.LocalConvolution2D(
        3, 4, in_size=(6, 5), ksize=(3, 2), stride=(1, 2)
    )
    assert link.W.shape == (4, 4, 2, 3, 3, 2)
    assert link.b.shape == (4, 4, 2)
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros((4, 4, 2)))
    y = link(numpy.zeros((1, 3, 6, 5), numpy.float32))
    assert y.shape == (1, 4, 4, 2)


def test_lazy_initialization():
    link = local_convolution_2d.LocalConvolution2D(None, 2, ksize=3, nobias=True)
    assert link.W.array is None
    assert link.b is None
    link(numpy.zeros((1, 3, 5, 4), numpy.float32))
    assert link.W.shape == (2, 3, 2, 3, 3, 3)


def test_wrong_input_size():
    link = local_convolution_2d.LocalConvolution2D(3, 2, in_size=5, ksize=3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((1, 3, 6, 6), numpy.float32))
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((1, 2, 5, 5), numpy.float32))


def test_input_smaller_than_filter():
    with pytest.raises(ValueError, match="smaller"):
        local_convolution_2d.LocalConvolution2D(3, 2, in_size=2, ksize=3)


def test_unexpected_arguments():
    with pytest.raises(TypeError, match="unexpected"):
        local_convolution_2d.LocalConvolution2D(3, 2, 5, 3, wscale=1)
    with pytest.raises(TypeError, match="ksize"):
        local_convolution_2d.LocalConvolution2D(3, 2, 5)


def test_serialization_round_trip():
    src = local_convolution_2d.LocalConvolution2D(3, 2, in_size=4, ksize=3)
    src.b.array[...] = numpy.random.uniform(-1, 1, src.b.shape)
    dst = local_convolution_2d.LocalConvolution2D(3, 2, in_size=4, ksize=3)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)
