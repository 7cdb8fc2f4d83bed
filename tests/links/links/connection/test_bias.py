import numpy
import pytest

import chainer
from chainer import testing
from chainer.links.connection import bias
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [((3, 2, 4), (2,), 1), ((3, 2, 4), (2, 4), 1), ((3, 2), (3,), 0)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBias(testing.LinkTestCase):
    param_names = ("b",)

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_params(self):
        return ()

    def create_link(self, inits):
        _, b_shape, axis = self.case
        with chainer.using_config("dtype", self.dtype):
            link = bias.Bias(axis=axis, shape=b_shape)
        link.b.array[...] = numpy.random.uniform(-1, 1, b_shape)
        return link

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case[0]).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        _, b_shape, axis = self.case
        b = link.b.array.reshape(
            (1,) * axis + b_shape + (1,) * (x.ndim - axis - len(b_shape))
        )
        return (x + b,)


def test_initial_value_and_dtype():
    link = bias.Bias(shape=(3,))
    assert link.b.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(3))
    assert link.axis == 1


def test_bias_as_input():
    link = bias.Bias(axis=0)
    assert not hasattr(link, "b")
    assert list(link.params()) == []
    x = numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32)
    y = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32)
    numpy.testing.assert_allclose(link(x, y).array, x + y[:, None])


def test_missing_bias():
    link = bias.Bias()
    with pytest.raises(TypeError, match="the input and the bias"):
        link(numpy.zeros((2, 3), numpy.float32))


def test_second_input_does_not_replace_the_parameter():
    link = bias.Bias(shape=(3,))
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(TypeError, match="takes one input, got 2"):
        link(x, numpy.ones(3, numpy.float32))


def test_wrong_input_shape():
    link = bias.Bias(shape=(3,))
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 4), numpy.float32))


def test_serialization_round_trip():
    src = bias.Bias(shape=(2, 3))
    src.b.array[...] = numpy.random.uniform(-1, 1, (2, 3))
    dst = bias.Bias(shape=(2, 3))
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)


@pytest.mark.parametrize(("shape", "n_inputs"), [((3,), 2), (None, 1)])
def test_wrong_number_of_inputs_is_an_assertion_in_debug_mode(shape, n_inputs):
    link = bias.Bias(shape=shape)
    xs = [numpy.zeros((2, 3), numpy.float32), numpy.ones(3, numpy.float32)]
    with chainer.using_config("debug", True), pytest.raises(AssertionError):
        link(*xs[:n_inputs])
