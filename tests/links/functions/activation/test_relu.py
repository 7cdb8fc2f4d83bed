import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import relu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 2), (), (2, 0)], "dtype": _FLOATS})
)
@testing.inject_backend_tests(None, [{}])
class TestReLU(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        # Keep away from the kink at 0, where the numerical gradient is off.
        x[abs(x) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (relu.relu(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.where(x > 0, x, 0).astype(self.dtype),)


def test_gradient_at_zero_is_zero():
    x = chainer.Variable(numpy.zeros(3, numpy.float32))
    y = relu.relu(x)
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.zeros(3, numpy.float32))


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        relu.relu(numpy.arange(3, dtype=numpy.int32))


def test_two_inputs_are_invalid():
    x = numpy.zeros(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        relu.ReLU().apply((x, x))


def _large_inputs():
    # Large inputs in several memory orders (chainer-cpu's kernel takes dense
    # ones row by row; the reference takes any).
    rng = numpy.random.RandomState(0)
    base = rng.standard_normal((4, 3, 65, 89)).astype(numpy.float32)
    base[0, 0, 0, :3] = [numpy.nan, -0.0, numpy.inf]
    return {
        "c_order": base,
        "f_order": numpy.asfortranarray(base),
        "channel_major": numpy.ascontiguousarray(base.swapaxes(0, 1)).swapaxes(0, 1),
        "padded_view": numpy.pad(base, ((0, 0), (0, 0), (1, 1), (1, 1)))[
            :, :, 1:-1, 1:-1
        ],
        "reversed": base[:, :, ::-1],
        "float64": base.astype(numpy.float64),
        "exact_rows": rng.standard_normal(65536).astype(numpy.float32),
    }


@pytest.mark.parametrize("name", sorted(_large_inputs()))
def test_large_inputs_match_maximum(name):
    x = _large_inputs()[name]
    y = relu.relu(x).array
    expected = numpy.maximum(x, 0)
    numpy.testing.assert_array_equal(y, expected)
    assert y.dtype == x.dtype
    assert y.shape == x.shape
    # Signed zeros and NaN as numpy.maximum gives them.
    numpy.testing.assert_array_equal(numpy.signbit(y), numpy.signbit(expected))


def test_large_input_keeps_its_memory_order():
    x = numpy.zeros((3, 64, 32, 32), numpy.float32).swapaxes(0, 1)
    y = relu.relu(x).array
    assert y.strides == x.strides


def test_large_input_backward():
    x = chainer.Variable(
        numpy.random.RandomState(1).uniform(-1, 1, (8, 4, 64, 64)).astype(numpy.float32)
    )
    y = relu.relu(x)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, (x.array > 0).astype(numpy.float32))
