import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import average as average_mod
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *(
        testing.product(
            {
                "shape": [(3, 4, 2)],
                "axis": [None, 1, -1, (0, 2)],
                "weighted": [False],
                "keepdims": [False, True],
                "dtype": _DTYPES,
            }
        )
        + testing.product(
            {
                "shape": [(3, 4, 2)],
                "axis": [1, -1],
                "weighted": [True],
                "keepdims": [False, True],
                "dtype": _DTYPES,
            }
        )
        + testing.product(
            {
                "shape": [()],
                "axis": [None],
                "weighted": [False],
                "keepdims": [False],
                "dtype": _DTYPES,
            }
        )
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestAverage(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        if not self.weighted:
            return (x,)
        w = numpy.random.uniform(0.5, 1.5, self.shape[self.axis]).astype(self.dtype)
        return (x, w)

    def forward(self, inputs, device):
        if self.weighted:
            x, w = inputs
            y = average_mod.average(x, self.axis, w, self.keepdims)
        else:
            (x,) = inputs
            y = average_mod.mean(x, self.axis, keepdims=self.keepdims)
        return (y,)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        w = inputs[1] if self.weighted else None
        y = numpy.average(x, self.axis, w)
        if self.keepdims:
            axes = tuple(range(x.ndim)) if self.axis is None else self.axis
            y = numpy.expand_dims(y, axes)
        return (numpy.asarray(y, self.dtype),)


def test_mean_is_average():
    assert average_mod.mean is average_mod.average
    assert chainer.functions.mean is chainer.functions.average


def test_int_input():
    with pytest.raises(type_check.InvalidType):
        average_mod.average(numpy.zeros((2, 3), numpy.int32))


def test_weights_of_wrong_length():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(ValueError):
        average_mod.average(x, axis=1, weights=numpy.ones(2, "f"))
