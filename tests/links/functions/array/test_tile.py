import numpy
import pytest

from chainer import functions
from chainer import testing

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (shape, reps)
                ((3,), 2),
                ((2, 3), (2, 1)),
                ((2, 3), (2, 1, 2)),
                ((2, 3, 2), (3,)),
                ((), (2, 3)),
                ((), 1),
                ((2,), (1, 1)),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestTile(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.reps = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.tile(x, self.reps),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.asarray(numpy.tile(x, self.reps)),)


def test_zero_reps():
    x = numpy.ones((2, 3), numpy.float32)
    y = functions.tile(x, (0, 2))
    assert y.shape == (0, 6)


@pytest.mark.parametrize("reps", [1.5, [2], (2, "a"), None])
def test_reps_type(reps):
    x = numpy.zeros((2,), numpy.float32)
    with pytest.raises(TypeError, match="reps must be"):
        functions.tile(x, reps)


def test_negative_reps():
    x = numpy.zeros((2,), numpy.float32)
    with pytest.raises(ValueError, match="zero or larger"):
        functions.tile(x, (2, -1))
