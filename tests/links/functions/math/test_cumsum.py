import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import cumsum
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *(
        testing.product(
            {
                "shape": [(3, 4, 2)],
                "axis": [None, 0, 1, -1],
                "dtype": _DTYPES,
            }
        )
        + testing.product({"shape": [(), (5,)], "axis": [None], "dtype": _DTYPES})
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestCumsum(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (cumsum.cumsum(x, axis=self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = numpy.cumsum(x.astype(numpy.float64), axis=self.axis)
        return (y.astype(self.dtype),)


def test_exported_as_f():
    assert chainer.functions.cumsum is cumsum.cumsum


def test_int_input():
    with pytest.raises(type_check.InvalidType):
        cumsum.cumsum(numpy.ones((2, 3), numpy.int32))


def test_bad_axis():
    x = numpy.ones((2, 3), "f")
    with pytest.raises(type_check.InvalidType):
        cumsum.cumsum(x, axis=2)
    with pytest.raises(type_check.InvalidType):
        cumsum.cumsum(x, axis=-3)
    with pytest.raises(TypeError):
        cumsum.cumsum(x, axis=(0,))
