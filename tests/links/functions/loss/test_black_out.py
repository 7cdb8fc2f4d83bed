import numpy
import pytest

from chainer import testing
from chainer.functions.loss import black_out
from chainer.utils import type_check


def _expected(x, t, W, samples, reduce):
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    loss = numpy.empty(len(x))
    for b in range(len(x)):
        ids = numpy.concatenate([[t[b]], samples[b]])
        scores = W[ids] @ x[b]
        p = numpy.exp(scores) / numpy.exp(scores).sum()
        loss[b] = -numpy.log(p[0]) - numpy.log(1 - p[1:]).sum()
    return loss.mean() if reduce == "mean" else loss


@testing.parameterize(
    *testing.product(
        {
            "batch_size": [5, 1],
            "n_samples": [3, 1],
            "reduce": ["mean", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestBlackOut(testing.FunctionTestCase):
    n_vocab = 6
    n_in = 4

    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        b, s = self.batch_size, self.n_samples
        x = numpy.random.uniform(-1, 1, (b, self.n_in)).astype(self.dtype)
        t = numpy.random.randint(0, self.n_vocab, b).astype(numpy.int32)
        W = numpy.random.uniform(-1, 1, (self.n_vocab, self.n_in)).astype(self.dtype)
        samples = numpy.random.randint(0, self.n_vocab, (b, s)).astype(numpy.int32)
        return x, t, W, samples

    def forward(self, inputs, device):
        x, t, W, samples = inputs
        return (black_out.black_out(x, t, W, samples, self.reduce),)

    def forward_expected(self, inputs):
        loss = _expected(*inputs, self.reduce)
        return (numpy.asarray(loss, dtype=self.dtype),)


def _inputs():
    x = numpy.zeros((3, 4), "f")
    t = numpy.zeros(3, "i")
    W = numpy.zeros((5, 4), "f")
    samples = numpy.zeros((3, 2), "i")
    return x, t, W, samples


def test_invalid_reduce():
    with pytest.raises(ValueError, match="reduce"):
        black_out.black_out(*_inputs(), reduce="sum")


@pytest.mark.parametrize(
    ("index", "value"),
    [
        (0, numpy.zeros((3, 4), "i")),
        (0, numpy.zeros((3, 4, 1), "f")),
        (1, numpy.zeros(3, "f")),
        (1, numpy.zeros(2, "i")),
        (2, numpy.zeros((5, 4), "d")),
        (2, numpy.zeros((5, 3), "f")),
        (3, numpy.zeros((2, 2), "i")),
    ],
)
def test_invalid_inputs(index, value):
    inputs = list(_inputs())
    inputs[index] = value
    with pytest.raises(type_check.InvalidType):
        black_out.black_out(*inputs)


@pytest.mark.parametrize(
    ("t", "samples", "match"),
    [
        ([0, 4], [[1], [2]], r"t\[1\] = 4 "),
        ([0, -1], [[1], [2]], r"t\[1\] = -1 "),
        ([0, 1], [[1], [-2]], r"samples\[1, 0\] = -2 "),
        ([0, 1], [[4], [2]], r"samples\[0, 0\] = 4 "),
    ],
)
def test_out_of_range_label_or_sample_raises(t, samples, match):
    x = numpy.zeros((2, 3), numpy.float32)
    W = numpy.zeros((4, 3), numpy.float32)
    t = numpy.array(t, numpy.int32)
    samples = numpy.array(samples, numpy.int32)
    with pytest.raises(ValueError, match="black_out: " + match):
        black_out.black_out(x, t, W, samples)
