import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.functions.connection import convolution_2d as convolution_2d_function
from chainer.links.connection import convolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _im2col_reference(x, W, b, stride, pad, dilate, groups):
    # Loop-free reference: gather windows, then one einsum per group.
    h, w = x.shape[2:]
    out_c, cg, kh, kw = W.shape
    out_h = (h + 2 * pad - (kh - 1) * dilate - 1) // stride + 1
    out_w = (w + 2 * pad - (kw - 1) * dilate - 1) // stride + 1
    xp = numpy.pad(x.astype(numpy.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    rows = (numpy.arange(out_h) * stride)[:, None] + numpy.arange(kh) * dilate
    cols = (numpy.arange(out_w) * stride)[:, None] + numpy.arange(kw) * dilate
    win = xp[:, :, rows[:, None, :, None], cols[None, :, None, :]]  # n c oh ow kh kw
    og = out_c // groups
    ys = [
        numpy.einsum(
            "ncyxij,ocij->noyx",
            win[:, g * cg : (g + 1) * cg],
            W[g * og : (g + 1) * og].astype(numpy.float64),
        )
        for g in range(groups)
    ]
    y = numpy.concatenate(ys, axis=1)
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


@testing.parameterize(
    *testing.product(
        {
            # stride, pad, dilate, groups
            "conv": [(1, 1, 1, 1), (2, 0, 1, 2), (1, 2, 2, 1)],
            "nobias": [False, True],
            "lazy": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestConvolution2D(testing.LinkTestCase):
    def setUp(self):
        self.param_names = ("W",) if self.nobias else ("W", "b")
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        groups = self.conv[3]
        W = numpy.random.uniform(-1, 1, (4, 4 // groups, 3, 2)).astype(self.dtype)
        if self.nobias:
            return (W,)
        return W, numpy.random.uniform(-1, 1, 4).astype(self.dtype)

    def create_link(self, inits):
        stride, pad, dilate, groups = self.conv
        W = inits[0]
        b = None if self.nobias else inits[1]
        with chainer.using_config("dtype", self.dtype):
            if self.lazy:
                return convolution_2d.Convolution2D(
                    4, (3, 2), stride=stride, pad=pad, nobias=self.nobias,
                    initialW=W, initial_bias=b, dilate=dilate, groups=groups,
                )  # fmt: skip
            return convolution_2d.Convolution2D(
                4, 4, (3, 2), stride, pad, self.nobias, W, b,
                dilate=dilate, groups=groups,
            )  # fmt: skip

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 4, 5, 6)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        stride, pad, dilate, groups = self.conv
        b = None if link.b is None else link.b.array
        y = _im2col_reference(x, link.W.array, b, stride, pad, dilate, groups)
        return (y.astype(self.dtype),)


@testing.parameterize(*testing.product({"dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestConvolution2DInitializers(testing.LinkInitializersTestCase):
    param_names = ("W", "b")

    def get_initializers(self):
        return (
            [
                initializers.Constant(2.0),
                0.5,
                numpy.full((3, 2, 2, 2), 1.5, self.dtype),
            ],
            [initializers.Constant(1.0), 3],
        )

    def generate_params(self):
        return (initializers.Constant(2.0), initializers.Constant(1.0))

    def create_link(self, inits):
        W, b = inits
        with chainer.using_config("dtype", self.dtype):
            return convolution_2d.Convolution2D(2, 3, 2, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (1, 2, 3, 3)).astype(self.dtype),)


def test_defaults_short_form_and_repr():
    link = convolution_2d.Convolution2D(5, 3)
    assert link.W.array is None
    assert link.in_channels is None
    assert isinstance(link.W.initializer, initializers.LeCunNormal)
    y = link(numpy.ones((2, 3, 6, 6), numpy.float32))
    assert y.shape == (2, 5, 4, 4)
    assert link.W.shape == (5, 3, 3, 3)
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(5))
    assert link.stride == (1, 1)
    assert link.pad == (0, 0)
    assert repr(link) == (
        "Convolution2D(in_channels=3, out_channels=5, ksize=(3, 3), stride=(1, 1), "
        "pad=(0, 0), nobias=False, dilate=(1, 1), groups=1)"
    )
    assert isinstance(y.creator, convolution_2d_function.Convolution2DFunction)


def test_none_in_channels_and_groups():
    link = convolution_2d.Convolution2D(None, 4, 3, pad=1, groups=2)
    link(numpy.ones((1, 6, 4, 4), numpy.float32))
    assert link.W.shape == (4, 3, 3, 3)


def test_invalid_groups_and_kwargs():
    with pytest.raises(ValueError, match="output channels must be divisible"):
        convolution_2d.Convolution2D(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="input channels must be divisible"):
        convolution_2d.Convolution2D(3, 4, 3, groups=2)
    link = convolution_2d.Convolution2D(4, 3, groups=2)
    with pytest.raises(ValueError, match="input channels must be divisible"):
        link(numpy.ones((1, 3, 4, 4), numpy.float32))
    with pytest.raises(ValueError, match="deterministic argument"):
        convolution_2d.Convolution2D(1, 1, 1, deterministic=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        convolution_2d.Convolution2D(1, 1, 1, cover_all=True)


def test_wrong_input():
    link = convolution_2d.Convolution2D(3, 2, 3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.ones((1, 4, 5, 5), numpy.float32))
    with pytest.raises(ValueError, match="expected an input of 4 dimensions"):
        link(numpy.ones((1, 3, 5), numpy.float32))


def test_from_params():
    W = numpy.random.uniform(-1, 1, (4, 1, 3, 3)).astype(numpy.float32)
    b = numpy.random.uniform(-1, 1, 4).astype(numpy.float32)
    link = convolution_2d.Convolution2D.from_params(W, b, stride=2, pad=1, groups=2)
    assert link.in_channels == 2
    assert link.groups == 2
    assert link.stride == (2, 2)
    numpy.testing.assert_array_equal(link.W.array, W)
    numpy.testing.assert_array_equal(link.b.array, b)
    assert convolution_2d.Convolution2D.from_params(W, nobias=True).b is None


def test_serialization_round_trip():
    src = convolution_2d.Convolution2D(2, 3, 2)
    dst = convolution_2d.Convolution2D(2, 3, 2)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)
    lazy = convolution_2d.Convolution2D(3, 2)
    testing.save_and_load_npz(src, lazy)
    numpy.testing.assert_array_equal(lazy.W.array, src.W.array)
