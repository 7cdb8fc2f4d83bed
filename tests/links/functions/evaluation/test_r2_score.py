import numpy
import pytest

from chainer import testing
from chainer.functions.evaluation import r2_score
from chainer.utils import type_check


def _expected(pred, true, multioutput):
    pred = pred.astype(numpy.float64)
    true = true.astype(numpy.float64)
    ss_res = ((pred - true) ** 2).sum(axis=0)
    ss_tot = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        ret = numpy.where(ss_tot == 0, 0.0, 1 - ss_res / ss_tot)
    return ret.mean() if multioutput == "uniform_average" else ret


@testing.parameterize(
    *testing.product(
        {
            "shape": [(10,), (8, 3), (6, 2, 2)],
            "multioutput": ["uniform_average", "raw_values"],
            "constant_target": [False, True],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestR2Score(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        true = numpy.random.uniform(-1, 1, self.shape)
        if self.constant_target:
            true[:] = 0.5
        pred = true + numpy.random.uniform(-0.3, 0.3, self.shape)
        return pred.astype(self.dtype), true.astype(self.dtype)

    def forward(self, inputs, device):
        pred, true = inputs
        return (r2_score.r2_score(pred, true, multioutput=self.multioutput),)

    def forward_expected(self, inputs):
        pred, true = inputs
        score = _expected(pred, true, self.multioutput)
        return (numpy.asarray(score, dtype=self.dtype),)


def test_sample_weight_must_be_none():
    x = numpy.zeros(3, "f")
    with pytest.raises(ValueError, match="sample_weight"):
        r2_score.r2_score(x, x, sample_weight=numpy.ones(3, "f"))


def test_invalid_multioutput():
    x = numpy.zeros(3, "f")
    with pytest.raises(ValueError, match="multioutput"):
        r2_score.r2_score(x, x, multioutput="variance_weighted")


@pytest.mark.parametrize(
    ("pred", "true"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros((3, 2), "f")),
        (numpy.zeros((), "f"), numpy.zeros((), "f")),
    ],
)
def test_invalid_inputs(pred, true):
    with pytest.raises(type_check.InvalidType):
        r2_score.r2_score(pred, true)
