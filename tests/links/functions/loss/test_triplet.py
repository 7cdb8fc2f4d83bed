import numpy
import pytest

from chainer import testing
from chainer.functions.loss import triplet
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shape": [(5, 3), (1, 4), (3, 2, 2)],
            "reduce": ["mean", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestTriplet(testing.FunctionTestCase):
    margin = 0.2

    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        while True:
            a, p, n = (numpy.random.uniform(-1, 1, self.shape) for _ in range(3))
            dist = ((a - p) ** 2 - (a - n) ** 2).sum(axis=1) + self.margin
            # Away from the hinge's kink at 0.
            if (abs(dist) > 0.1).all():
                return tuple(v.astype(self.dtype) for v in (a, p, n))

    def forward(self, inputs, device):
        return (triplet.triplet(*inputs, margin=self.margin, reduce=self.reduce),)

    def forward_expected(self, inputs):
        a, p, n = (v.astype(numpy.float64) for v in inputs)
        dist = ((a - p) ** 2 - (a - n) ** 2).sum(axis=1) + self.margin
        loss = numpy.maximum(dist, 0)
        if self.reduce == "mean":
            loss = loss.sum() / len(a)
        return (numpy.asarray(loss, dtype=self.dtype),)


@pytest.mark.parametrize("margin", [0, -0.5])
def test_invalid_margin(margin):
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(ValueError, match="margin"):
        triplet.triplet(x, x, x, margin)


def test_invalid_reduce():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(ValueError, match="reduce"):
        triplet.triplet(x, x, x, reduce="sum")


@pytest.mark.parametrize(
    ("a", "p", "n"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "d"), numpy.zeros((2, 3), "f")),
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "f"), numpy.zeros((2, 4), "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros((2, 3), "i"), numpy.zeros((2, 3), "i")),
        (numpy.zeros(3, "f"), numpy.zeros(3, "f"), numpy.zeros(3, "f")),
    ],
)
def test_invalid_inputs(a, p, n):
    with pytest.raises(type_check.InvalidType):
        triplet.triplet(a, p, n)
