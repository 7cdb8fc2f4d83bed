import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.functions.array import reshape
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (in shape, out shape)
                ((2, 3), (3, 2)),
                ((2, 3, 4), (6, -1)),
                ((), (1, 1)),
                ((1,), ()),
                ((4,), 4),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestReshape(testing.FunctionTestCase):
    def setUp(self):
        self.in_shape, self.out_shape = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.in_shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.reshape(x, self.out_shape),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (x.reshape(self.out_shape),)


def test_module_path():
    assert reshape.reshape is functions.reshape
    (y,) = reshape.Reshape((3, 2)).apply((numpy.zeros((2, 3), numpy.float32),))
    assert y.shape == (3, 2)


def test_size_mismatch():
    with pytest.raises(type_check.InvalidType):
        functions.reshape(numpy.zeros((2, 3), numpy.float32), (4, 2))
