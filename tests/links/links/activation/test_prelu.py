import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.activation import prelu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shapes": [
                ((4, 3), ()),
                ((4, 3), (3,)),
                ((2, 3, 4), (3,)),
                ((2, 3, 2), (3, 2)),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestPReLU(testing.LinkTestCase):
    param_names = ("W",)

    def setUp(self):
        self.x_shape, self.w_shape = self.shapes
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_params(self):
        return (numpy.random.uniform(-1, 1, self.w_shape).astype(self.dtype),)

    def create_link(self, inits):
        (init,) = inits
        # As in Chainer, the parameter takes the default dtype.
        with chainer.using_config("dtype", self.dtype):
            return prelu.PReLU(self.w_shape, init)

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        x[abs(x) < 0.1] = 0.5  # away from the kink at 0
        return (x,)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        W = link.W.array.reshape(
            (1, *self.w_shape) + (1,) * (x.ndim - 1 - len(self.w_shape))
        )
        return (numpy.where(x < 0, x * W, x).astype(self.dtype),)


@testing.inject_backend_tests(None, [{}])
class TestPReLUInitializers(testing.LinkInitializersTestCase):
    param_names = ("W",)

    def generate_params(self):
        return (0.25,)

    def create_link(self, inits):
        (init,) = inits
        return prelu.PReLU((3,), init)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32),)

    def get_initializers(self):
        return (
            (0.5, initializers.Constant(-1.0), numpy.arange(3, dtype=numpy.float32)),
        )


def test_default_slope():
    link = prelu.PReLU()
    assert link.W.shape == ()
    assert float(link.W.array) == 0.25
    y = link(numpy.array([[-4.0, 2.0]], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [[-1.0, 2.0]])


def test_mismatched_input_is_invalid():
    link = prelu.PReLU((3,))
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 4), numpy.float32))


def test_serialization_round_trip():
    src = prelu.PReLU((3,), initializers.Normal())
    dst = prelu.PReLU((3,))
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)


def test_registered_in_catalogue():
    import chainer.links as L

    assert L.PReLU is prelu.PReLU
    assert isinstance(L.PReLU(), chainer.Link)
