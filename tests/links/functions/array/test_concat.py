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
                # (shapes, axis)
                ([(2, 3, 4), (2, 5, 4)], 1),
                ([(2, 3, 4), (2, 3, 1), (2, 3, 2)], -1),
                ([(2, 3), (4, 3)], 0),
                ([(2,), (3,), (1,)], 0),
                ([(2, 3)], 1),
                ([(2, 0), (2, 3)], 1),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestConcat(testing.FunctionTestCase):
    def setUp(self):
        self.shapes, self.axis = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes
        )

    def forward(self, inputs, device):
        return (functions.concat(inputs, axis=self.axis),)

    def forward_expected(self, inputs):
        return (numpy.concatenate(inputs, axis=self.axis),)


def test_default_axis_is_one():
    x = numpy.zeros((2, 3), numpy.float32)
    assert functions.concat((x, x)).shape == (2, 6)


@pytest.mark.parametrize(
    ("shapes", "dtypes", "axis"),
    [
        ([(2, 3), (2, 3)], ["f", "d"], 1),
        ([(2, 3), (3, 3)], ["f", "f"], 1),
        ([(2, 3), (2, 3, 1)], ["f", "f"], 1),
        ([(2, 3), (2, 3)], ["f", "f"], 2),
        ([(2, 3), (2, 3)], ["f", "f"], -3),
        ([(), ()], ["f", "f"], 0),
    ],
)
def test_invalid(shapes, dtypes, axis):
    xs = [numpy.zeros(s, d) for s, d in zip(shapes, dtypes, strict=True)]
    with pytest.raises(type_check.InvalidType):
        functions.concat(xs, axis=axis)


def test_no_input():
    with pytest.raises(type_check.InvalidType):
        functions.concat(())


def test_axis_not_int():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(TypeError, match="axis must be int"):
        functions.concat((x, x), axis=1.0)
