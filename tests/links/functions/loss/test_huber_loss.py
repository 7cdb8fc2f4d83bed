import numpy
import pytest

from chainer import testing
from chainer.functions.loss import huber_loss
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shape": [(4, 3), (2, 3, 2)],
            "reduce": ["sum_along_second_axis", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    ),
    *testing.product(
        {
            "shape": [()],
            "reduce": ["no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    ),
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestHuberLoss(testing.FunctionTestCase):
    delta = 1.0

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        # |x - t| stays away from delta, where the gradient has a kink.
        gap = numpy.random.uniform(0.1, 0.8, self.shape)
        gap += numpy.random.choice([0, 1.2], self.shape)
        gap *= numpy.random.choice([-1, 1], self.shape)
        t = numpy.random.uniform(-1, 1, self.shape)
        return (t + gap).astype(self.dtype), t.astype(self.dtype)

    def forward(self, inputs, device):
        x, t = inputs
        return (huber_loss.huber_loss(x, t, self.delta, reduce=self.reduce),)

    def forward_expected(self, inputs):
        x, t = inputs
        a = abs(x.astype(numpy.float64) - t)
        d = self.delta
        y = numpy.where(a <= d, 0.5 * a * a, d * (a - 0.5 * d))
        if self.reduce == "sum_along_second_axis":
            y = y.sum(axis=1)
        return (numpy.asarray(y, dtype=self.dtype),)


def test_invalid_reduce():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(ValueError, match="reduce"):
        huber_loss.huber_loss(x, x, 1.0, reduce="mean")


@pytest.mark.parametrize(
    ("x", "t"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "d")),
        (numpy.zeros((2, 3), "f"), numpy.zeros((3, 2), "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros((2, 3), "i")),
        (numpy.zeros(3, "f"), numpy.zeros(3, "f")),
    ],
)
def test_invalid_inputs(x, t):
    with pytest.raises(type_check.InvalidType):
        huber_loss.huber_loss(x, t, 1.0)
