import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shape": [(3, 4), (1, 1), (5, 2)],
            "t_dtype": [numpy.int32, numpy.int64],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSelectItem(testing.FunctionTestCase):
    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        t = numpy.random.randint(0, self.shape[1], self.shape[0]).astype(self.t_dtype)
        return x, t

    def forward(self, inputs, device):
        x, t = inputs
        return (functions.select_item(x, t),)

    def forward_expected(self, inputs):
        x, t = inputs
        return (numpy.array([x[i, t[i]] for i in range(len(t))], self.dtype),)


@pytest.mark.parametrize(
    ("x_shape", "t_shape", "t_dtype"),
    [
        ((3, 4), (3,), numpy.float32),
        ((3, 4, 1), (3,), numpy.int32),
        ((3, 4), (3, 1), numpy.int32),
        ((3, 4), (2,), numpy.int32),
        ((3, 4), (3,), numpy.uint8),
    ],
)
def test_invalid(x_shape, t_shape, t_dtype):
    x = numpy.zeros(x_shape, numpy.float32)
    t = numpy.zeros(t_shape, t_dtype)
    with pytest.raises(type_check.InvalidType):
        functions.select_item(x, t)


@pytest.mark.parametrize("t", [[0, 3], [-1, 0]])
def test_out_of_range_labels_in_debug_mode(t):
    x = numpy.zeros((2, 3), numpy.float32)
    t = numpy.array(t, numpy.int32)
    with chainer.using_config("debug", True), pytest.raises(ValueError, match="t"):
        functions.select_item(x, t)


@pytest.mark.parametrize("label", [3, 4, -1, -3])
def test_out_of_range_index_raises(label):
    # Outside debug mode too: a negative index used to wrap around silently.
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    t = numpy.array([0, label], numpy.int32)
    with pytest.raises(ValueError, match=rf"select_item: t\[1\] = {label} is out"):
        functions.select_item(x, t)
