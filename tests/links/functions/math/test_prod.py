import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import prod
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *(
        testing.product(
            {
                "shape": [(3, 4, 2)],
                "axis": [None, 0, -1, (0, 2)],
                "keepdims": [False, True],
                "zeros": [0, 1, 2],
                "dtype": _DTYPES,
            }
        )
        + testing.product(
            {
                "shape": [()],
                "axis": [None],
                "keepdims": [False],
                "zeros": [0],
                "dtype": _DTYPES,
            }
        )
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestProd(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        # Magnitudes near one keep products of 24 elements moderate.
        x = numpy.random.uniform(0.7, 1.3, self.shape)
        x *= numpy.random.choice([-1, 1], self.shape)
        # Exact zeros, in one slice (zeros=2 puts two in one slice).
        if self.zeros:
            x[(0,) * (x.ndim - 1) + (0,)] = 0
        if self.zeros == 2:
            x[(0,) * (x.ndim - 1) + (1,)] = 0
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (prod.prod(x, axis=self.axis, keepdims=self.keepdims),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = x.astype(numpy.float64).prod(axis=self.axis, keepdims=self.keepdims)
        return (numpy.asarray(y, self.dtype),)


def test_gradient_with_one_zero_is_product_of_others():
    x = chainer.Variable(numpy.array([2.0, 0.0, 3.0, 5.0], "f"))
    y = prod.prod(x)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 30.0, 0.0, 0.0])


def test_exported_as_f():
    assert chainer.functions.prod is prod.prod


def test_int_input():
    with pytest.raises(type_check.InvalidType):
        prod.prod(numpy.ones((2, 3), numpy.int32))


def test_bad_axis():
    x = numpy.ones((2, 3), "f")
    with pytest.raises(type_check.InvalidType):
        prod.prod(x, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        prod.prod(x, axis=(1, 1))
    with pytest.raises(TypeError):
        prod.prod(x, axis=[0])
