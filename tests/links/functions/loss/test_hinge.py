import numpy
import pytest

from chainer import testing
from chainer.functions.loss import hinge
from chainer.utils import type_check


def _expected(x, t, norm, reduce):
    x = x.astype(numpy.float64)
    n, k = x.shape
    loss = numpy.empty_like(x)
    for i in range(n):
        for j in range(k):
            s = -1.0 if t[i] == j else 1.0
            loss[i, j] = max(0.0, 1.0 + s * x[i, j])
    if norm == "L2":
        loss = loss**2
    if reduce == "mean":
        return loss.sum() / n
    return loss


@testing.parameterize(
    *testing.product(
        {
            "shape": [(5, 4), (1, 3)],
            "norm": ["L1", "L2"],
            "reduce": ["mean", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestHinge(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        # Scores away from the kinks at +-1.
        x = numpy.random.uniform(0.2, 0.8, self.shape)
        x *= numpy.random.choice([-1, 1], self.shape)
        x += numpy.random.choice([-2, 0, 2], self.shape)
        t = numpy.random.randint(0, self.shape[1], self.shape[0]).astype(numpy.int32)
        return x.astype(self.dtype), t

    def forward(self, inputs, device):
        x, t = inputs
        return (hinge.hinge(x, t, self.norm, self.reduce),)

    def forward_expected(self, inputs):
        x, t = inputs
        y = _expected(x, t, self.norm, self.reduce)
        return (numpy.asarray(y, dtype=self.dtype),)


@pytest.mark.parametrize("error", [ValueError, NotImplementedError])
def test_invalid_norm(error):
    # Chainer raises NotImplementedError; ours is a ValueError as well.
    with pytest.raises(error, match="norm"):
        hinge.hinge(numpy.zeros((2, 3), "f"), numpy.zeros(2, "i"), norm="L3")


def test_invalid_reduce():
    with pytest.raises(ValueError, match="reduce"):
        hinge.hinge(numpy.zeros((2, 3), "f"), numpy.zeros(2, "i"), reduce="sum")


@pytest.mark.parametrize(
    ("x", "t"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros(2, "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros(2, "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros(3, "i")),
        (numpy.zeros((2, 3, 1), "f"), numpy.zeros(2, "i")),
    ],
)
def test_invalid_inputs(x, t):
    with pytest.raises(type_check.InvalidType):
        hinge.hinge(x, t)


@pytest.mark.parametrize("label", [3, -1, -3])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_out_of_range_label_raises(label, reduce):
    x = numpy.zeros((2, 3), numpy.float32)
    t = numpy.array([0, label], numpy.int32)
    with pytest.raises(ValueError, match=rf"hinge: t\[1\] = {label} is out of range"):
        hinge.hinge(x, t, reduce=reduce)
