import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.evaluation import accuracy
from chainer.utils import type_check


def _expected(y, t, ignore_label):
    pred = y.argmax(axis=1).reshape(t.shape).ravel()
    t = t.ravel()
    count = total = 0
    for p, label in zip(pred, t, strict=True):
        if ignore_label is not None and label == ignore_label:
            continue
        total += 1
        count += int(p == label)
    return count / total if total else 0.0


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((10, 3), (10,)), ((6, 4, 5), (6, 5)), ((5, 3, 1, 1), (5,))],
            "ignore_label": [None, 0, 1],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestAccuracy(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def generate_inputs(self):
        x_shape, t_shape = self.shapes
        y = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        t = numpy.random.randint(0, x_shape[1], t_shape).astype(numpy.int32)
        return y, t

    def forward(self, inputs, device):
        y, t = inputs
        return (accuracy.accuracy(y, t, self.ignore_label),)

    def forward_expected(self, inputs):
        y, t = inputs
        return (numpy.asarray(_expected(y, t, self.ignore_label), dtype=self.dtype),)


def test_all_ignored_is_zero():
    y = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    t = numpy.full(4, -1, numpy.int32)
    acc = accuracy.accuracy(y, t, ignore_label=-1)
    assert acc.shape == ()
    assert float(acc.array) == 0.0


def test_not_differentiable():
    y = chainer.Variable(numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32))
    acc = accuracy.accuracy(y, numpy.zeros(4, numpy.int32))
    acc.backward()
    assert y.grad is None


@pytest.mark.parametrize(
    ("y", "t"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros(2, "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros(2, "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros(3, "i")),
        (numpy.zeros((2, 3, 4), "f"), numpy.zeros((2, 5), "i")),
        (numpy.zeros((2, 3, 2), "f"), numpy.zeros(2, "i")),
        (numpy.zeros(2, "f"), numpy.zeros(2, "i")),
    ],
)
def test_invalid_inputs(y, t):
    with pytest.raises(type_check.InvalidType):
        accuracy.accuracy(y, t)


@pytest.mark.parametrize(
    ("ignore_label", "label"), [(None, 3), (None, -1), (-1, -2), (-1, 3), (0, -1)]
)
def test_out_of_range_label_raises(ignore_label, label):
    # A label outside [0, K) (other than ignore_label) can never be right:
    # it used to be counted as a miss without a word.
    y = numpy.eye(3, dtype=numpy.float32)
    t = numpy.array([0, label, 2], numpy.int32)
    with pytest.raises(
        ValueError, match=rf"accuracy: t\[1\] = {label} is out of range"
    ):
        accuracy.accuracy(y, t, ignore_label=ignore_label)


def test_ignored_labels_outside_the_classes_are_allowed():
    y = numpy.eye(3, dtype=numpy.float32)
    t = numpy.array([0, -1, 2], numpy.int32)
    assert float(accuracy.accuracy(y, t, ignore_label=-1).array) == 1.0
