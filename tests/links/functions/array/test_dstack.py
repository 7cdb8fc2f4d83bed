import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shapes": [
                [()],
                [(), ()],
                [(3,)],
                [(3,), (3,), (3,)],
                [(2, 3)],
                [(2, 3), (2, 3)],
                [(2, 3, 4)],
                [(2, 3, 1), (2, 3, 4)],
                [(2, 3, 2, 5), (2, 3, 1, 5)],
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDstack(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes
        )

    def forward(self, inputs, device):
        return (functions.dstack(inputs),)

    def forward_expected(self, inputs):
        return (numpy.dstack(inputs),)


@pytest.mark.parametrize(
    ("shapes", "dtypes"),
    [
        ([(2, 3), (2, 3)], ["f", "d"]),
        ([(2, 3), (2, 4)], ["f", "f"]),
        ([(3,), (4,)], ["f", "f"]),
        ([(2, 3, 4), (2, 2, 4)], ["f", "f"]),
        ([(2, 3), (2, 3, 1)], ["f", "f"]),
    ],
)
def test_invalid(shapes, dtypes):
    xs = [numpy.zeros(s, d) for s, d in zip(shapes, dtypes, strict=True)]
    with pytest.raises(type_check.InvalidType):
        functions.dstack(xs)


def test_no_input():
    with pytest.raises(type_check.InvalidType):
        functions.dstack([])
