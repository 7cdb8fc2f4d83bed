import numpy
import pytest

from chainer import functions
from chainer import gradient_check
from chainer import initializers
from chainer import testing
from chainer.links.connection import deformable_convolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "nobias": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDeformableConvolution2D(testing.LinkTestCase):
    # The offsets computed by offset_conv lead to non-differentiable points of
    # the bilinear sampler now and then.
    dodge_nondifferentiable = True

    def setUp(self):
        # The parameters live in the child links, out of reach of
        # param_names; test_parameter_gradients checks them. The numerical
        # gradient of x runs in float64, which the float64 parameters of the
        # float64 case only can match.
        self.skip_backward_test = self.dtype != numpy.float64
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-4, "rtol": 1e-4}
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        return (
            initializers.Normal(0.3, dtype=self.dtype),
            initializers.Normal(dtype=self.dtype),
        )

    def create_link(self, inits):
        offset_init, deform_init = inits
        return deformable_convolution_2d.DeformableConvolution2D(
            2,
            3,
            (2, 3),
            stride=(1, 2),
            pad=1,
            offset_nobias=self.nobias,
            offset_initialW=offset_init,
            offset_initial_bias=initializers.Normal(0.3, dtype=self.dtype),
            deform_nobias=self.nobias,
            deform_initialW=deform_init,
            deform_initial_bias=initializers.Normal(dtype=self.dtype),
        )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 2, 4, 5)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        # The link composes its two parts; each is tested against NumPy on
        # its own.
        (x,) = inputs
        offset = functions.convolution_2d(
            x,
            link.offset_conv.W.array,
            None if self.nobias else link.offset_conv.b.array,
            stride=(1, 2),
            pad=1,
        ).array
        y = functions.deformable_convolution_2d_sampler(
            x,
            offset,
            link.deform_conv.W.array,
            None if self.nobias else link.deform_conv.b.array,
            stride=(1, 2),
            pad=1,
        )
        return (y.array,)


def test_structure():
    link = deformable_convolution_2d.DeformableConvolution2D(3, 4, 3, pad=1)
    assert link.offset_conv.W.shape == (18, 3, 3, 3)
    assert link.deform_conv.W.shape == (4, 3, 3, 3)
    numpy.testing.assert_array_equal(link.offset_conv.b.array, numpy.zeros(18))
    numpy.testing.assert_array_equal(link.deform_conv.b.array, numpy.zeros(4))
    assert sorted(name for name, _ in link.namedparams()) == [
        "/deform_conv/W",
        "/deform_conv/b",
        "/offset_conv/W",
        "/offset_conv/b",
    ]


def test_zero_offsets_give_a_convolution():
    link = deformable_convolution_2d.DeformableConvolution2D(
        3,
        4,
        3,
        stride=2,
        pad=1,
        offset_initialW=initializers.Zero(),
        deform_initialW=initializers.Normal(),
    )
    x = numpy.random.uniform(-1, 1, (2, 3, 5, 6)).astype(numpy.float32)
    y = link(x)
    expected = functions.convolution_2d(
        x, link.deform_conv.W.array, link.deform_conv.b.array, stride=2, pad=1
    )
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-5, atol=1e-5)


def test_default_deform_weight_is_zero():
    link = deformable_convolution_2d.DeformableConvolution2D(3, 4, 3, pad=1)
    numpy.testing.assert_array_equal(link.deform_conv.W.array, 0)
    assert numpy.abs(link.offset_conv.W.array).sum() > 0  # LeCun normal
    sampler = deformable_convolution_2d.DeformableConvolution2DSampler(3, 4, 3)
    numpy.testing.assert_array_equal(sampler.W.array, 0)


def test_gradients_reach_both_parts():
    # A zero deform_conv.W (the default) would stop the offsets' gradient.
    link = deformable_convolution_2d.DeformableConvolution2D(
        2, 3, 3, pad=1, deform_initialW=initializers.Normal()
    )
    link.cleargrads()  # a new parameter's gradient is NaN, as in Chainer
    x = numpy.random.uniform(-1, 1, (1, 2, 4, 4)).astype(numpy.float32)
    functions.sum(link(x)).backward()
    for name, param in link.namedparams():
        assert param.grad is not None, name
        assert numpy.abs(param.grad).sum() > 0, name


def test_parameter_gradients():
    link = deformable_convolution_2d.DeformableConvolution2D(
        2,
        3,
        2,
        pad=1,
        offset_initialW=initializers.Normal(0.3, dtype=numpy.float64),
        offset_initial_bias=initializers.Normal(0.3, dtype=numpy.float64),
        deform_initialW=initializers.Normal(dtype=numpy.float64),
        deform_initial_bias=initializers.Normal(dtype=numpy.float64),
    )
    x = numpy.random.uniform(-1, 1, (1, 2, 3, 3))
    gy = numpy.random.uniform(-1, 1, (1, 3, 4, 4))
    gradient_check.check_backward(
        link,
        x,
        gy,
        params=tuple(link.params()),
        atol=1e-4,
        rtol=1e-4,
        detect_nondifferentiable=True,
    )


def test_lazy_input_channels():
    link = deformable_convolution_2d.DeformableConvolution2D(
        None, 3, 2, deform_nobias=True, offset_nobias=True
    )
    assert link.deform_conv.b is None
    y = link(numpy.zeros((1, 4, 3, 3), numpy.float32))
    assert y.shape == (1, 3, 2, 2)
    assert link.deform_conv.W.shape == (3, 4, 2, 2)


def test_sampler_link():
    link = deformable_convolution_2d.DeformableConvolution2DSampler(
        2, 3, 2, initial_bias=initializers.One()
    )
    x = numpy.random.uniform(-1, 1, (1, 2, 3, 3)).astype(numpy.float32)
    offset = numpy.zeros((1, 8, 2, 2), numpy.float32)
    y = link(x, offset)
    expected = functions.convolution_2d(x, link.W.array, link.b.array)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-5, atol=1e-5)


def test_wrong_input_channels():
    link = deformable_convolution_2d.DeformableConvolution2D(3, 4, 3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((1, 2, 5, 5), numpy.float32))


def test_serialization_round_trip():
    src = deformable_convolution_2d.DeformableConvolution2D(2, 3, 3)
    dst = deformable_convolution_2d.DeformableConvolution2D(2, 3, 3)
    testing.save_and_load_npz(src, dst)
    for (name, p), (_, q) in zip(
        sorted(src.namedparams()), sorted(dst.namedparams()), strict=True
    ):
        numpy.testing.assert_array_equal(q.array, p.array, err_msg=name)
