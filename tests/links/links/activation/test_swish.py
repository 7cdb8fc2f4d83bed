import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.activation import swish
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _swish(x, beta):
    beta = beta.reshape((1, *beta.shape) + (1,) * (x.ndim - 1 - beta.ndim))
    return x / (1 + numpy.exp(-beta * x))


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((4, 3), (3,)), ((4, 3), None), ((2, 3, 4), (3,)), ((2, 3), ())],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSwish(testing.LinkTestCase):
    param_names = ("beta",)

    def setUp(self):
        self.x_shape, self.beta_shape = self.shapes
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_params(self):
        shape = self.x_shape[1:] if self.beta_shape is None else self.beta_shape
        return (numpy.random.uniform(-1, 1, shape).astype(self.dtype),)

    def create_link(self, inits):
        (init,) = inits
        # As in Chainer, the parameter takes the default dtype.
        with chainer.using_config("dtype", self.dtype):
            if self.beta_shape is None:
                return swish.Swish(None, initializers.Constant(init, self.dtype))
            return swish.Swish(self.beta_shape, init)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        return (_swish(x, link.beta.array).astype(self.dtype),)


def test_deferred_shape_comes_from_input():
    link = swish.Swish(None, 2.0)
    assert link.beta.array is None
    x = numpy.random.uniform(-1, 1, (5, 2, 3)).astype(numpy.float32)
    y = link(x)
    assert link.beta.shape == (2, 3)
    numpy.testing.assert_array_equal(link.beta.array, numpy.full((2, 3), 2, "f"))
    testing.assert_allclose(y.array, _swish(x, link.beta.array), rtol=1e-5)


def test_default_beta_is_one():
    link = swish.Swish((3,))
    numpy.testing.assert_array_equal(link.beta.array, numpy.ones(3, "f"))


def test_mismatched_input_is_invalid():
    link = swish.Swish((3,))
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 4), numpy.float32))


def test_serialization_round_trip():
    src = swish.Swish((3,), initializers.Normal())
    dst = swish.Swish(None)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.beta.array, src.beta.array)
