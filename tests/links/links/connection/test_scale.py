import numpy
import pytest

import chainer
from chainer import testing
from chainer.links.connection import scale
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _reshaped(a, x_ndim, axis):
    return a.reshape((1,) * axis + a.shape + (1,) * (x_ndim - axis - a.ndim))


@testing.parameterize(
    *testing.product(
        {
            "case": [((3, 2, 4), (2,), 1), ((3, 2, 4), (2, 4), 1), ((3, 2), (3,), 0)],
            "bias_term": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestScale(testing.LinkTestCase):
    def setUp(self):
        # The bias' gradient is checked in test_bias_gradient.
        self.param_names = ("W",)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_params(self):
        return ()

    def create_link(self, inits):
        _, w_shape, axis = self.case
        with chainer.using_config("dtype", self.dtype):
            link = scale.Scale(axis=axis, W_shape=w_shape, bias_term=self.bias_term)
        link.W.array[...] = numpy.random.uniform(-1, 1, w_shape)
        if self.bias_term:
            link.bias.b.array[...] = numpy.random.uniform(-1, 1, w_shape)
        return link

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case[0]).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        axis = self.case[2]
        y = x * _reshaped(link.W.array, x.ndim, axis)
        if self.bias_term:
            y = y + _reshaped(link.bias.b.array, x.ndim, axis)
        return (y.astype(self.dtype),)


def test_bias_gradient():
    link = scale.Scale(W_shape=(3,), bias_term=True)
    link.cleargrads()  # a new parameter's gradient is NaN, as in Chainer
    x = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    y = link(x)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_allclose(link.bias.b.grad, [2, 2, 2])
    numpy.testing.assert_allclose(link.W.grad, x.sum(axis=0), rtol=1e-6)


def test_initial_values():
    link = scale.Scale(W_shape=(3,), bias_term=True)
    numpy.testing.assert_array_equal(link.W.array, numpy.ones(3))
    numpy.testing.assert_array_equal(link.bias.b.array, numpy.zeros(3))
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/bias/b"]


def test_weight_as_input():
    link = scale.Scale(axis=1, bias_term=True, bias_shape=(3,))
    assert not hasattr(link, "W")
    x = numpy.random.uniform(-1, 1, (2, 3, 4)).astype(numpy.float32)
    w = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32)
    link.bias.b.array[...] = [1, 2, 3]
    expected = x * w[:, None] + numpy.array([1, 2, 3], numpy.float32)[:, None]
    numpy.testing.assert_allclose(link(x, w).array, expected, rtol=1e-6)


def test_weight_as_input_without_bias():
    link = scale.Scale()
    x = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    w = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32)
    numpy.testing.assert_allclose(link(x, w).array, x * w)
    assert list(link.params()) == []


def test_bias_shape_required():
    with pytest.raises(ValueError, match="bias_shape"):
        scale.Scale(bias_term=True)


def test_wrong_number_of_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(TypeError):
        scale.Scale(W_shape=(3,))(x, x)
    with pytest.raises(TypeError):
        scale.Scale()(x)


def test_wrong_input_shape():
    link = scale.Scale(W_shape=(3,))
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 4), numpy.float32))


def test_serialization_round_trip():
    src = scale.Scale(W_shape=(2,), bias_term=True)
    src.W.array[...] = [3, 4]
    src.bias.b.array[...] = [5, 6]
    dst = scale.Scale(W_shape=(2,), bias_term=True)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, [3, 4])
    numpy.testing.assert_array_equal(dst.bias.b.array, [5, 6])


@pytest.mark.parametrize(("W_shape", "n_inputs"), [((3,), 2), (None, 1)])
def test_wrong_number_of_inputs_is_an_assertion_in_debug_mode(W_shape, n_inputs):
    link = scale.Scale(W_shape=W_shape)
    xs = [numpy.zeros((2, 3), numpy.float32), numpy.ones(3, numpy.float32)]
    with chainer.using_config("debug", True), pytest.raises(AssertionError):
        link(*xs[:n_inputs])
