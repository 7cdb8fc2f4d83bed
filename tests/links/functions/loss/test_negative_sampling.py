import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.loss import negative_sampling as ns
from chainer.utils import type_check


def _expected(x, t, W, samples, reduce):
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    loss = numpy.zeros(len(x))
    for b in range(len(x)):
        if t[b] == -1:
            continue
        pos = W[t[b]] @ x[b]
        neg = W[samples[b, 1:]] @ x[b]
        loss[b] = numpy.logaddexp(0, -pos) + numpy.logaddexp(0, neg).sum()
    return loss.sum() if reduce == "sum" else loss


@testing.parameterize(
    *testing.product(
        {
            "batch_size": [4, 1],
            "sample_size": [3, 1],
            "ignore": [False, True],
            "reduce": ["sum", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestNegativeSampling(testing.FunctionTestCase):
    n_vocab = 5
    n_in = 3

    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        shape = (self.batch_size, self.sample_size + 1)
        self.samples = numpy.random.randint(0, self.n_vocab, shape).astype(numpy.int32)

    def sampler(self, shape):
        assert shape == self.samples.shape
        return self.backend_config.device.send(self.samples)

    def generate_inputs(self):
        b = self.batch_size
        x = numpy.random.uniform(-1, 1, (b, self.n_in)).astype(self.dtype)
        t = numpy.random.randint(0, self.n_vocab, b).astype(numpy.int32)
        if self.ignore:
            t[0] = -1
        W = numpy.random.uniform(-1, 1, (self.n_vocab, self.n_in)).astype(self.dtype)
        return x, t, W

    def forward(self, inputs, device):
        x, t, W = inputs
        loss = ns.negative_sampling(
            x, t, W, self.sampler, self.sample_size, reduce=self.reduce
        )
        return (loss,)

    def forward_expected(self, inputs):
        x, t, W = inputs
        samples = self.samples.copy()
        samples[:, 0] = t
        return (numpy.asarray(_expected(x, t, W, samples, self.reduce), self.dtype),)


def _inputs():
    x = numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32)
    t = numpy.array([0, 2, 1], numpy.int32)
    W = numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float32)
    return x, t, W


def test_return_samples_and_walker_alias():
    sampler = chainer.utils.WalkerAlias([0.1, 0.2, 0.3, 0.4])
    x, t, W = _inputs()
    loss, samples = ns.negative_sampling(
        x, t, W, sampler.sample, 5, return_samples=True
    )
    assert samples.shape == (3, 6)
    numpy.testing.assert_array_equal(samples[:, 0], t)
    expected = _expected(x, t, W, samples, "sum")
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)


def test_unexpected_keyword():
    x, t, W = _inputs()
    with pytest.raises(TypeError, match="unexpected"):
        ns.negative_sampling(x, t, W, lambda s: numpy.zeros(s, "i"), 2, foo=1)


def test_invalid_reduce():
    x, t, W = _inputs()
    with pytest.raises(ValueError, match="reduce"):
        ns.negative_sampling(x, t, W, lambda s: numpy.zeros(s, "i"), 2, reduce="mean")


@pytest.mark.parametrize(
    ("index", "value"),
    [
        (0, numpy.zeros((3, 2), "i")),
        (0, numpy.zeros(3, "f")),
        (1, numpy.zeros(3, "f")),
        (1, numpy.zeros(2, "i")),
        (2, numpy.zeros((4, 2), "d")),
        (2, numpy.zeros((4, 3), "f")),
    ],
)
def test_invalid_inputs(index, value):
    inputs = list(_inputs())
    inputs[index] = value
    with pytest.raises(type_check.InvalidType):
        ns.negative_sampling(*inputs, lambda s: numpy.zeros(s, "i"), 2)


@pytest.mark.parametrize("label", [4, -2])
@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_out_of_range_label_raises(label, reduce):
    # -1 is ignored; -2 used to read W's second-to-last row, 4 to fail in
    # NumPy's indexing (and read anything on a GPU).
    x = numpy.zeros((3, 2), numpy.float32)
    W = numpy.zeros((4, 2), numpy.float32)
    t = numpy.array([0, -1, label], numpy.int32)

    def sampler(shape):
        return numpy.zeros(shape, numpy.int32)

    with pytest.raises(
        ValueError, match=rf"negative_sampling: t\[2\] = {label} is out of range"
    ):
        ns.negative_sampling(x, t, W, sampler, 2, reduce=reduce)
