import numpy
import pytest

from chainer import testing
from chainer.functions.loss import decov
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shape": [(4, 3), (1, 2), (5, 1)],
            "reduce": ["half_squared_sum", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestDeCov(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (h,) = inputs
        return (decov.decov(h, reduce=self.reduce),)

    def forward_expected(self, inputs):
        h = inputs[0].astype(numpy.float64)
        hc = h - h.mean(axis=0)
        cov = numpy.einsum("ni,nj->ij", hc, hc) / len(h)
        cov[numpy.diag_indices(len(cov))] = 0
        if self.reduce == "half_squared_sum":
            cov = 0.5 * (cov**2).sum()
        return (numpy.asarray(cov, dtype=self.dtype),)


def test_invalid_reduce():
    with pytest.raises(ValueError, match="reduce"):
        decov.decov(numpy.zeros((2, 3), "f"), reduce="mean")


@pytest.mark.parametrize(
    "h", [numpy.zeros((2, 3), "i"), numpy.zeros(3, "f"), numpy.zeros((2, 3, 1), "f")]
)
def test_invalid_inputs(h):
    with pytest.raises(type_check.InvalidType):
        decov.decov(h)
