import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import cumprod
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *(
        testing.product(
            {
                "shape": [(3, 4, 2)],
                "axis": [None, 0, 1, -1],
                "zeros": [0, 1, 2],
                "dtype": _DTYPES,
            }
        )
        + testing.product(
            {"shape": [(), (5,)], "axis": [None], "zeros": [0], "dtype": _DTYPES}
        )
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestCumprod(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(0.7, 1.3, self.shape)
        x *= numpy.random.choice([-1, 1], self.shape)
        flat = x.reshape(-1)
        # Exact zeros (zeros=2 also puts a second one behind the first).
        if self.zeros:
            flat[1] = 0
        if self.zeros == 2:
            flat[[3, 9]] = 0
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (cumprod.cumprod(x, axis=self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = numpy.cumprod(x.astype(numpy.float64), axis=self.axis)
        return (y.astype(self.dtype),)


def test_gradient_with_zero():
    x = chainer.Variable(numpy.array([2.0, 0.0, 3.0, 5.0], "f"))
    y = cumprod.cumprod(x)
    y.grad = numpy.ones(4, "f")
    y.backward()
    # y = [x0, x0 x1, x0 x1 x2, x0 x1 x2 x3]
    numpy.testing.assert_allclose(x.grad, [1.0, 2 + 6 + 30, 0.0, 0.0])


def test_exported_as_f():
    assert chainer.functions.cumprod is cumprod.cumprod


def test_int_input():
    with pytest.raises(type_check.InvalidType):
        cumprod.cumprod(numpy.ones((2, 3), numpy.int32))


def test_bad_axis():
    x = numpy.ones((2, 3), "f")
    with pytest.raises(type_check.InvalidType):
        cumprod.cumprod(x, axis=2)
    with pytest.raises(TypeError):
        cumprod.cumprod(x, axis=1.5)
