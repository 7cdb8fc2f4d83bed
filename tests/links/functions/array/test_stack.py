import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (shape, n, axis)
                ((2, 3), 3, 0),
                ((2, 3), 3, 1),
                ((2, 3), 2, 2),
                ((2, 3), 2, -1),
                ((2, 3), 2, -3),
                ((), 3, 0),
                ((4,), 1, -1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestStack(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.n, self.axis = self.case

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
            for _ in range(self.n)
        )

    def forward(self, inputs, device):
        return (functions.stack(list(inputs), self.axis),)

    def forward_expected(self, inputs):
        return (numpy.stack(inputs, self.axis),)


@pytest.mark.parametrize(
    ("shapes", "dtypes", "axis"),
    [
        ([(2, 3), (3, 2)], ["f", "f"], 0),
        ([(2, 3), (2, 3)], ["f", "d"], 0),
        ([(2, 3), (2, 3)], ["f", "f"], 3),
        ([(2, 3), (2, 3)], ["f", "f"], -4),
    ],
)
def test_invalid(shapes, dtypes, axis):
    xs = [numpy.zeros(s, d) for s, d in zip(shapes, dtypes, strict=True)]
    with pytest.raises(type_check.InvalidType):
        functions.stack(xs, axis)


def test_no_input():
    with pytest.raises(type_check.InvalidType):
        functions.stack([])
