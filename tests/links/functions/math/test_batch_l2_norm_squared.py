import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import batch_l2_norm_squared
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shape": [(4, 3), (4, 3, 2), (1, 5), (3, 1, 1, 2)],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestBatchL2NormSquared(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (batch_l2_norm_squared.batch_l2_norm_squared(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        x = x.astype(numpy.float64).reshape(len(x), -1)
        return ((x * x).sum(axis=1).astype(self.dtype),)


def test_exported_as_f():
    f = batch_l2_norm_squared.batch_l2_norm_squared
    assert chainer.functions.batch_l2_norm_squared is f


@pytest.mark.parametrize(("shape", "dtype"), [((3,), "f"), ((), "f"), ((2, 3), "i")])
def test_bad_input(shape, dtype):
    with pytest.raises(type_check.InvalidType):
        batch_l2_norm_squared.batch_l2_norm_squared(numpy.ones(shape, dtype))
