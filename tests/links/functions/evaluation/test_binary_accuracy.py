import numpy
import pytest

from chainer import testing
from chainer.functions.evaluation import binary_accuracy
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shape": [(10,), (4, 3), (), (2, 3, 2)],
            "with_ignored": [False, True],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestBinaryAccuracy(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def generate_inputs(self):
        y = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        low = -1 if self.with_ignored else 0
        t = numpy.random.randint(low, 2, self.shape).astype(numpy.int32)
        return y, t

    def forward(self, inputs, device):
        y, t = inputs
        return (binary_accuracy.binary_accuracy(y, t),)

    def forward_expected(self, inputs):
        y, t = inputs
        y, t = y.ravel(), t.ravel()
        valid = t != -1
        total = int(valid.sum())
        count = int(((y >= 0).astype(numpy.int32) == t)[valid].sum())
        return (numpy.asarray(count / max(total, 1), dtype=self.dtype),)


def test_all_ignored_is_zero():
    y = numpy.ones((3, 2), numpy.float32)
    t = numpy.full((3, 2), -1, numpy.int32)
    assert float(binary_accuracy.binary_accuracy(y, t).array) == 0.0


@pytest.mark.parametrize(
    ("y", "t"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros((2, 3), "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros(2, "i")),
    ],
)
def test_invalid_inputs(y, t):
    with pytest.raises(type_check.InvalidType):
        binary_accuracy.binary_accuracy(y, t)


@pytest.mark.parametrize("label", [2, -2])
def test_label_other_than_zero_one_or_ignored_raises(label):
    y = numpy.zeros(3, numpy.float32)
    t = numpy.array([1, -1, label], numpy.int32)
    with pytest.raises(ValueError, match=rf"binary_accuracy: t\[2\] = {label} is out"):
        binary_accuracy.binary_accuracy(y, t)
