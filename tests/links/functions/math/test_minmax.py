import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import minmax
from chainer.utils import type_check

_FUNCS = {"max": (minmax.max, numpy.amax), "min": (minmax.min, numpy.amin)}


def _distinct(shape, dtype):
    # Well separated values: ties and the numerical-gradient step never meet.
    size = int(numpy.prod(shape))
    x = numpy.random.permutation(size).reshape(shape) * 0.1 - 0.05 * size
    return x.astype(dtype)


@testing.parameterize(
    *(
        testing.product(
            {
                "func": ["max", "min"],
                "shape": [(3, 4, 2)],
                "axis": [None, 0, 1, -1, (0, 2), (2, 0), (0, 1, 2)],
                "keepdims": [False, True],
                "dtype": [numpy.float16, numpy.float32, numpy.float64],
            }
        )
        + testing.product(
            {
                "func": ["max", "min"],
                "shape": [()],
                "axis": [None],
                "keepdims": [False, True],
                "dtype": [numpy.float16, numpy.float32, numpy.float64],
            }
        )
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestMaxMin(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        return (_distinct(self.shape, self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        f = _FUNCS[self.func][0]
        return (f(x, axis=self.axis, keepdims=self.keepdims),)

    def forward_expected(self, inputs):
        (x,) = inputs
        f = _FUNCS[self.func][1]
        return (numpy.asarray(f(x, axis=self.axis, keepdims=self.keepdims)),)


@testing.parameterize(
    *testing.product(
        {
            "func": ["argmax", "argmin"],
            "shape_axis": [((3, 4), None), ((3, 4), 0), ((3, 4, 2), -1), ((), None)],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestArgMaxMin(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def generate_inputs(self):
        return (_distinct(self.shape_axis[0], self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (getattr(minmax, self.func)(x, axis=self.shape_axis[1]),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = getattr(numpy, self.func)(x, axis=self.shape_axis[1])
        return (numpy.asarray(y, numpy.int32),)


@pytest.mark.parametrize(
    ("func", "x", "expected"),
    [
        (minmax.max, [[1, 3, 3], [2, 2, 0.5]], [[0, 1, 1], [1, 1, 0]]),
        (minmax.min, [[1, 1, 3], [2, 0.5, 0.5]], [[1, 1, 0], [0, 1, 1]]),
    ],
)
def test_ties_all_get_the_gradient(func, x, expected):
    x = chainer.Variable(numpy.array(x, "f"))
    y = func(x, axis=1)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, expected)


def test_argmax_has_no_gradient():
    x = chainer.Variable(numpy.array([1.0, 3.0, 2.0], "f"))
    y = minmax.argmax(x)
    assert y.dtype == numpy.int32
    z = chainer.functions.sum(x * 2)
    z.backward()
    numpy.testing.assert_array_equal(x.grad, [2, 2, 2])


def test_exported_as_f():
    assert chainer.functions.max is minmax.max
    assert chainer.functions.argmin is minmax.argmin


@pytest.mark.parametrize("func", [minmax.max, minmax.min, minmax.argmax])
def test_axis_out_of_range(func):
    with pytest.raises(type_check.InvalidType):
        func(numpy.zeros((2, 3), "f"), axis=2)
    with pytest.raises(type_check.InvalidType):
        func(numpy.zeros((2, 3), "f"), axis=-3)


@pytest.mark.parametrize("func", [minmax.max, minmax.argmin])
def test_int_input(func):
    with pytest.raises(type_check.InvalidType):
        func(numpy.zeros((2, 3), numpy.int32))


def test_bad_axis_arguments():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(ValueError, match="duplicate"):
        minmax.max(x, axis=(0, 0))
    with pytest.raises(TypeError):
        minmax.min(x, axis=1.0)
    with pytest.raises(TypeError):
        minmax.argmax(x, axis=(0, 1))
