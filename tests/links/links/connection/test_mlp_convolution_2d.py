import numpy
import pytest

from chainer import functions
from chainer import initializers
from chainer import testing
from chainer.links.connection import mlp_convolution_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _conv(x, W, b, stride=1, pad=0):
    x = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out_c, _, kh, kw = W.shape
    out_h = (x.shape[2] - kh) // stride + 1
    out_w = (x.shape[3] - kw) // stride + 1
    y = numpy.zeros((len(x), out_c, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
            y[:, :, i, j] = numpy.einsum("ncpq,ocpq->no", patch, W)
    return y + b[None, :, None, None]


@testing.parameterize(
    *testing.product(
        {
            "activation": ["relu", "tanh"],
            "lazy": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestMLPConvolution2D(testing.LinkTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        return (
            initializers.Normal(dtype=self.dtype),
            initializers.Normal(dtype=self.dtype),
        )

    def create_link(self, inits):
        conv_init, bias_init = inits
        activation = getattr(functions, self.activation)
        if self.lazy:
            return mlp_convolution_2d.MLPConvolution2D(
                (3, 2, 4),
                2,
                stride=2,
                pad=1,
                activation=activation,
                conv_init=conv_init,
                bias_init=bias_init,
            )
        return mlp_convolution_2d.MLPConvolution2D(
            2,
            (3, 2, 4),
            2,
            2,
            1,
            activation,
            conv_init=conv_init,
            bias_init=bias_init,
        )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 2, 5, 4)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        f = numpy.tanh if self.activation == "tanh" else lambda a: numpy.maximum(a, 0)
        h = x.astype(numpy.float64)
        for k, layer in enumerate(link):
            if k == 0:
                h = _conv(h, layer.W.array, layer.b.array, stride=2, pad=1)
            else:
                h = _conv(f(h), layer.W.array, layer.b.array)
        return (h.astype(self.dtype),)


def test_structure():
    link = mlp_convolution_2d.MLPConvolution2D(3, (4, 5, 6), 3, stride=2, pad=1)
    assert len(link) == 3
    assert link[0].W.shape == (4, 3, 3, 3)
    assert link[1].W.shape == (5, 4, 1, 1)
    assert link[2].W.shape == (6, 5, 1, 1)
    assert link.activation is functions.relu
    y = link(numpy.zeros((1, 3, 7, 7), numpy.float32))
    assert y.shape == (1, 6, 4, 4)


def test_initializers():
    link = mlp_convolution_2d.MLPConvolution2D(
        2, (3, 4), 1, conv_init=initializers.One(), bias_init=initializers.Constant(2)
    )
    for layer in link:
        numpy.testing.assert_array_equal(layer.W.array, numpy.ones(layer.W.shape))
        numpy.testing.assert_array_equal(layer.b.array, numpy.full(layer.b.shape, 2))


def test_v1_arguments_rejected():
    with pytest.raises(TypeError, match="wscale"):
        mlp_convolution_2d.MLPConvolution2D(3, (4,), 3, 1, 0, functions.relu, 1.0)
    with pytest.raises(TypeError, match="wscale"):
        mlp_convolution_2d.MLPConvolution2D(3, (4,), 3, wscale=1.0)
    with pytest.raises(TypeError, match="unexpected"):
        mlp_convolution_2d.MLPConvolution2D(3, (4,), 3, foo=1)


def test_empty_out_channels():
    with pytest.raises(ValueError, match="out_channels"):
        mlp_convolution_2d.MLPConvolution2D(3, (), 3)


def test_wrong_input_channels():
    link = mlp_convolution_2d.MLPConvolution2D(3, (4,), 1)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((1, 2, 3, 3), numpy.float32))


def test_serialization_round_trip():
    src = mlp_convolution_2d.MLPConvolution2D(3, (4, 2), 3)
    dst = mlp_convolution_2d.MLPConvolution2D(3, (4, 2), 3)
    testing.save_and_load_npz(src, dst)
    for (name, p), (_, q) in zip(
        sorted(src.namedparams()), sorted(dst.namedparams()), strict=True
    ):
        numpy.testing.assert_array_equal(q.array, p.array, err_msg=name)
