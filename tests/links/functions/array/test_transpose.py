import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.functions.array import transpose
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (shape, axes)
                ((2, 3, 4), None),
                ((2, 3, 4), (2, 0, 1)),
                ((2, 3, 4), (-1, 0, 1)),
                ((2, 3), (1, 0)),
                ((), None),
                ((3,), (0,)),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestTranspose(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axes = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.transpose(x, self.axes),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (x.transpose(self.axes),)


def test_module_path():
    assert transpose.transpose is functions.transpose
    (y,) = transpose.Transpose((1, 0)).apply((numpy.zeros((2, 3), numpy.float32),))
    assert y.shape == (3, 2)


def test_wrong_number_of_axes():
    with pytest.raises(type_check.InvalidType):
        transpose.Transpose((1, 0)).apply((numpy.zeros((2, 3, 4), numpy.float32),))
    with pytest.raises(ValueError, match="permutation"):
        functions.transpose(numpy.zeros((2, 3), numpy.float32), (0, 0))
