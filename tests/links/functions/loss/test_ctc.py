import itertools

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.loss import ctc
from chainer.utils import type_check


def _collapse(alignment, blank):
    out = []
    prev = None
    for a in alignment:
        if a != prev and a != blank:
            out.append(a)
        prev = a
    return out


def _expected(xs, t, blank, input_length, label_length):
    # Brute force: sum of the probabilities of every alignment of the label.
    xs = numpy.stack(xs).astype(numpy.float64)
    y = numpy.exp(xs - xs.max(axis=2, keepdims=True))
    y /= y.sum(axis=2, keepdims=True)
    n_unit = xs.shape[2]
    loss = []
    for b in range(xs.shape[1]):
        n_time = input_length[b]
        label = list(t[b, : label_length[b]])
        p = 0.0
        for alignment in itertools.product(range(n_unit), repeat=int(n_time)):
            if _collapse(alignment, blank) == label:
                p += numpy.prod([y[i, b, a] for i, a in enumerate(alignment)])
        loss.append(-numpy.log(p))
    return numpy.array(loss)


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (T, labels, input_length, label_length, blank)
                (4, [[1, 2], [2, 2]], None, None, 0),
                (4, [[1, 1], [0, 1]], [4, 3], [2, 1], 2),
                (5, [[2, 0], [0, 2], [2, 2]], [5, 4, 5], [1, 2, 2], 1),
                (3, [[1], [2]], [3, 2], [0, 1], 0),
            ],
            "reduce": ["mean", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestCTC(testing.FunctionTestCase):
    n_unit = 3
    skip_double_backward_test = True

    def setUp(self):
        self.n_time, labels, input_length, label_length, self.blank = self.case
        self.t = numpy.array(labels, numpy.int32)
        self.input_length = (
            None if input_length is None else numpy.array(input_length, "i")
        )
        self.label_length = (
            None if label_length is None else numpy.array(label_length, "i")
        )
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        shape = (len(self.t), self.n_unit)
        return tuple(
            numpy.random.uniform(-1, 1, shape).astype(self.dtype)
            for _ in range(self.n_time)
        )

    def forward(self, inputs, device):
        def send(a):
            return None if a is None else device.send(a)

        loss = ctc.connectionist_temporal_classification(
            list(inputs),
            send(self.t),
            self.blank,
            send(self.input_length),
            send(self.label_length),
            self.reduce,
        )
        return (loss,)

    def forward_expected(self, inputs):
        n_batch = len(self.t)
        input_length = self.input_length
        if input_length is None:
            input_length = numpy.full(n_batch, self.n_time)
        label_length = self.label_length
        if label_length is None:
            label_length = numpy.full(n_batch, self.t.shape[1])
        loss = _expected(inputs, self.t, self.blank, input_length, label_length)
        if self.reduce == "mean":
            loss = loss.mean()
        return (numpy.asarray(loss, dtype=self.dtype),)


def _inputs():
    xs = [numpy.random.uniform(-1, 1, (2, 3)).astype("f") for _ in range(4)]
    t = numpy.array([[1, 2], [1, 1]], numpy.int32)
    return xs, t


def test_long_sequence_is_finite():
    xs = [numpy.random.uniform(-5, 5, (2, 6)).astype("f") for _ in range(200)]
    t = numpy.random.randint(1, 6, (2, 30)).astype(numpy.int32)
    vs = [chainer.Variable(x) for x in xs]
    loss = ctc.connectionist_temporal_classification(vs, t, 0)
    loss.backward()
    assert numpy.isfinite(loss.array)
    assert all(numpy.isfinite(v.grad).all() for v in vs)


def test_gradient_of_each_step_sums_to_zero():
    xs, t = _inputs()
    vs = [chainer.Variable(x) for x in xs]
    ctc.connectionist_temporal_classification(vs, t, 0).backward()
    for v in vs:
        numpy.testing.assert_allclose(v.grad.sum(axis=1), 0, atol=1e-6)


def test_double_backprop_is_refused():
    xs, t = _inputs()
    vs = [chainer.Variable(x) for x in xs]
    loss = ctc.connectionist_temporal_classification(vs, t, 0)
    gxs = chainer.grad([loss], vs, enable_double_backprop=True)
    with pytest.raises(RuntimeError, match="double"):
        chainer.functions.sum(gxs[0] * gxs[0]).backward()


def test_x_must_be_a_list():
    xs, t = _inputs()
    with pytest.raises(TypeError, match="list"):
        ctc.connectionist_temporal_classification(numpy.stack(xs), t, 0)


@pytest.mark.parametrize("blank", [-1, 3, 1.0])
def test_invalid_blank_symbol(blank):
    xs, t = _inputs()
    with pytest.raises((TypeError, ValueError), match="blank_symbol"):
        ctc.connectionist_temporal_classification(xs, t, blank)


def test_invalid_reduce():
    xs, t = _inputs()
    with pytest.raises(ValueError, match="reduce"):
        ctc.connectionist_temporal_classification(xs, t, 0, reduce="sum")


@pytest.mark.parametrize(
    ("t", "kwargs"),
    [
        (numpy.array([[1, 2], [1, 1]], "f"), {}),
        (numpy.array([1, 2], "i"), {}),
        (numpy.array([[1, 2], [1, 1], [1, 1]], "i"), {}),
        (numpy.array([[1, 2], [1, 1]], "i"), {"input_length": numpy.array([4], "i")}),
        (numpy.array([[1, 2], [1, 1]], "i"), {"label_length": numpy.ones(2, "f")}),
    ],
)
def test_invalid_inputs(t, kwargs):
    xs, _ = _inputs()
    with pytest.raises(type_check.InvalidType):
        ctc.connectionist_temporal_classification(xs, t, 0, **kwargs)


@pytest.mark.parametrize("label", [3, 5, -1])
def test_out_of_range_label_raises(label):
    xs, t = _inputs()
    t[1, 0] = label
    with pytest.raises(ValueError, match=rf"classification: t\[1, 0\] = {label} "):
        ctc.connectionist_temporal_classification(xs, t, 0)


def test_labels_past_label_length_are_padding():
    xs, t = _inputs()
    t[1, 1] = -1
    label_length = numpy.array([2, 1], numpy.int32)
    loss = ctc.connectionist_temporal_classification(
        xs, t, 0, label_length=label_length, reduce="no"
    )
    assert numpy.isfinite(loss.array).all()


@pytest.mark.parametrize(
    ("input_length", "label_length", "match"),
    [
        ([4, 5], [2, 2], r"input_length\[1\] = 5 "),
        ([4, -1], [2, 2], r"input_length\[1\] = -1 "),
        ([4, 4], [3, 2], r"label_length\[0\] = 3 "),
        ([4, 4], [2, -1], r"label_length\[1\] = -1 "),
    ],
)
def test_out_of_range_lengths_raise(input_length, label_length, match):
    xs, t = _inputs()
    with pytest.raises(ValueError, match=match):
        ctc.connectionist_temporal_classification(
            xs,
            t,
            0,
            input_length=numpy.array(input_length, numpy.int32),
            label_length=numpy.array(label_length, numpy.int32),
        )
