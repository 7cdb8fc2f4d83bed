import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tolerances(test):
    if test.dtype == numpy.float16:
        test.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
        test.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}


@testing.parameterize(
    *testing.product(
        {
            "shapes": [
                [(3, 1), (1, 4)],
                [(2, 3), (3,)],
                [(), (2, 2)],
                [(), ()],
                [(2, 1, 3), (4, 1), (1, 1, 1)],
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBroadcast(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes
        )

    def forward(self, inputs, device):
        return functions.broadcast(*inputs)

    def forward_expected(self, inputs):
        return tuple(numpy.array(y) for y in numpy.broadcast_arrays(*inputs))


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((3, 1), (2, 3, 4)), ((), (2, 3)), ((4,), (3, 4)), ((2,), (2,))],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBroadcastTo(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)
        self.in_shape, self.out_shape = self.shapes

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.in_shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.broadcast_to(x, self.out_shape),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.broadcast_to(x, self.out_shape).copy(),)


def test_single_argument_is_a_variable():
    x = numpy.zeros((2, 3), numpy.float32)
    y = functions.broadcast(x)
    assert isinstance(y, chainer.Variable)
    assert y.array is x


def test_broadcast_incompatible():
    x = numpy.zeros(2, numpy.float32)
    z = numpy.zeros(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.broadcast(x, z)


def test_broadcast_no_argument():
    with pytest.raises(type_check.InvalidType):
        functions.broadcast()


@pytest.mark.parametrize(("in_shape", "out_shape"), [((2,), (3,)), ((2, 3), (3,))])
def test_broadcast_to_incompatible(in_shape, out_shape):
    x = numpy.zeros(in_shape, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.broadcast_to(x, out_shape)
