import numpy
import pytest

from chainer import testing
from chainer.functions.loss import cross_covariance
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((4, 3), (4, 2)), ((1, 2), (1, 3))],
            "reduce": ["half_squared_sum", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestCrossCovariance(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        y = numpy.random.uniform(-1, 1, self.shapes[0]).astype(self.dtype)
        z = numpy.random.uniform(-1, 1, self.shapes[1]).astype(self.dtype)
        return y, z

    def forward(self, inputs, device):
        y, z = inputs
        return (cross_covariance.cross_covariance(y, z, reduce=self.reduce),)

    def forward_expected(self, inputs):
        y, z = (v.astype(numpy.float64) for v in inputs)
        yc = y - y.mean(axis=0)
        zc = z - z.mean(axis=0)
        cov = numpy.einsum("ni,nj->ij", yc, zc) / len(y)
        if self.reduce == "half_squared_sum":
            cov = 0.5 * (cov**2).sum()
        return (numpy.asarray(cov, dtype=self.dtype),)


def test_invalid_reduce():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(ValueError, match="reduce"):
        cross_covariance.cross_covariance(x, x, reduce="mean")


@pytest.mark.parametrize(
    ("y", "z"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "d")),
        (numpy.zeros((2, 3), "f"), numpy.zeros((3, 3), "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros((2, 3), "i")),
        (numpy.zeros(3, "f"), numpy.zeros(3, "f")),
    ],
)
def test_invalid_inputs(y, z):
    with pytest.raises(type_check.InvalidType):
        cross_covariance.cross_covariance(y, z)
