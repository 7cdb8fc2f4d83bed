import numpy
import pytest

from chainer import testing
from chainer.functions.evaluation import classification_summary as cs
from chainer.utils import type_check


def _expected(y, t, label_num, beta, ignore_label):
    pred = y.argmax(axis=1).ravel()
    t = t.ravel()
    keep = t != ignore_label
    pred, t = pred[keep], t[keep]
    p = numpy.empty(label_num)
    r = numpy.empty(label_num)
    s = numpy.empty(label_num)
    for c in range(label_num):
        tp = numpy.sum((pred == c) & (t == c))
        predicted = numpy.sum(pred == c)
        s[c] = numpy.sum(t == c)
        p[c] = tp / predicted if predicted else numpy.nan
        r[c] = tp / s[c] if s[c] else numpy.nan
    with numpy.errstate(invalid="ignore", divide="ignore"):
        f = (1 + beta**2) * p * r / (beta**2 * p + r)
    return p, r, f, s


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((30, 3), (30,)), ((8, 4, 5), (8, 5))],
            "label_num": [None, 5],
            "beta": [1.0, 2.0],
            "ignore_label": [-1, 9],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestClassificationSummary(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def setUp(self):
        # NaN (an undefined precision or recall) compares equal to NaN.
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        x_shape, t_shape = self.shapes
        y = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        t = numpy.random.randint(0, x_shape[1], t_shape)
        t[numpy.random.uniform(size=t_shape) < 0.2] = self.ignore_label
        return y, t.astype(numpy.int32)

    def forward(self, inputs, device):
        y, t = inputs
        return cs.classification_summary(
            y, t, self.label_num, self.beta, self.ignore_label
        )

    def forward_expected(self, inputs):
        y, t = inputs
        label_num = self.label_num
        if label_num is None:
            label_num = int(t.max()) + 1
        p, r, f, s = _expected(y, t, label_num, self.beta, self.ignore_label)
        return (
            p.astype(self.dtype),
            r.astype(self.dtype),
            f.astype(self.dtype),
            s.astype(numpy.bincount([0]).dtype),
        )


def _inputs():
    y = numpy.random.uniform(-1, 1, (20, 4)).astype(numpy.float32)
    t = numpy.random.randint(0, 4, 20).astype(numpy.int32)
    return y, t


def test_precision_recall_f1_are_parts_of_the_summary():
    y, t = _inputs()
    p, r, f, s = cs.classification_summary(y, t, label_num=4)
    for fn, expected in ((cs.precision, p), (cs.recall, r), (cs.f1_score, f)):
        value, support = fn(y, t, label_num=4)
        numpy.testing.assert_array_equal(value.array, expected.array)
        numpy.testing.assert_array_equal(support.array, s.array)


def test_fbeta_score():
    y, t = _inputs()
    _, _, f, _ = cs.classification_summary(y, t, beta=0.5)
    value, _ = cs.fbeta_score(y, t, beta=0.5)
    numpy.testing.assert_array_equal(value.array, f.array)


def test_label_num_defaults_to_max_label_plus_one():
    y, t = _inputs()
    t[:] = 1
    p, _, _, _ = cs.classification_summary(y, t)
    assert p.shape == (2,)


@pytest.mark.parametrize(
    ("y", "t"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros(2, "f")),
        (numpy.zeros((2, 3), "i"), numpy.zeros(2, "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros(3, "i")),
    ],
)
def test_invalid_inputs(y, t):
    with pytest.raises(type_check.InvalidType):
        cs.classification_summary(y, t)


@pytest.mark.parametrize(
    ("label_num", "ignore_label", "label"),
    [(3, -1, 3), (3, -1, 4), (3, -1, -2), (None, -1, -2), (3, 0, -1)],
)
def test_out_of_range_label_raises(label_num, ignore_label, label):
    # A label of label_num was counted in the ignored bin, a larger one lost.
    y = numpy.eye(3, dtype=numpy.float32)
    t = numpy.array([0, label, 2], numpy.int32)
    with pytest.raises(
        ValueError, match=rf"classification_summary: t\[1\] = {label} is out of range"
    ):
        cs.classification_summary(y, t, label_num, ignore_label=ignore_label)
