import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.loss import sigmoid_cross_entropy as sce
from chainer.utils import type_check


def _expected(x, t, normalize, reduce):
    x = x.astype(numpy.float64)
    p = 1 / (1 + numpy.exp(-x))
    valid = t != -1
    loss = -(t * numpy.log(p) + (1 - t) * numpy.log(1 - p)) * valid
    if reduce == "no":
        return loss
    count = valid.sum() if normalize else (len(x) if x.ndim else 1)
    return loss.sum() / max(count, 1)


@testing.parameterize(
    *testing.product(
        {
            "shape": [(4, 3), (5,), (), (2, 3, 2)],
            "normalize": [True, False],
            "ignore": [False, True],
            "reduce": ["mean", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestSigmoidCrossEntropy(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-3, 3, self.shape).astype(self.dtype)
        low = -1 if self.ignore else 0
        t = numpy.random.randint(low, 2, self.shape).astype(numpy.int32)
        return x, t

    def forward(self, inputs, device):
        x, t = inputs
        return (sce.sigmoid_cross_entropy(x, t, self.normalize, self.reduce),)

    def forward_expected(self, inputs):
        x, t = inputs
        loss = _expected(x, t, self.normalize, self.reduce)
        return (numpy.asarray(loss, dtype=self.dtype),)


def test_large_scores_are_stable():
    x = numpy.array([-1000.0, 1000.0], numpy.float32)
    t = numpy.array([1, 0], numpy.int32)
    loss = sce.sigmoid_cross_entropy(x, t, reduce="no")
    numpy.testing.assert_allclose(loss.array, [1000, 1000])


def test_all_ignored_gives_zero():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    loss = sce.sigmoid_cross_entropy(x, numpy.full((2, 3), -1, numpy.int32))
    loss.backward()
    assert float(loss.array) == 0
    assert not x.grad.any()


def test_invalid_reduce():
    with pytest.raises(ValueError, match="reduce"):
        sce.sigmoid_cross_entropy(
            numpy.zeros(3, "f"), numpy.zeros(3, "i"), reduce="sum"
        )


@pytest.mark.parametrize(
    ("x", "t"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros((2, 3), "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros(2, "i")),
    ],
)
def test_invalid_inputs(x, t):
    with pytest.raises(type_check.InvalidType):
        sce.sigmoid_cross_entropy(x, t)


@pytest.mark.parametrize("label", [2, -2])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_label_other_than_zero_one_or_ignored_raises(label, reduce):
    # A label of 2 used to give a loss minimised at x = +inf, without a word.
    x = numpy.zeros((2, 2), numpy.float32)
    t = numpy.array([[0, 1], [-1, label]], numpy.int32)
    with pytest.raises(
        ValueError, match=rf"sigmoid_cross_entropy: t\[1, 1\] = {label} is out"
    ):
        sce.sigmoid_cross_entropy(x, t, reduce=reduce)
