import itertools

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.loss import crf1d
from chainer.utils import type_check


def _sequences(xs, batch_sizes):
    # Per-sequence (T_b, K) costs from the transposed, length-sorted steps.
    return [
        numpy.stack([x[b] for x in xs if len(x) > b]) for b in range(batch_sizes[0])
    ]


def _path_score(cost, seq, path):
    score = sum(seq[i, p] for i, p in enumerate(path))
    return score + sum(cost[a, b] for a, b in itertools.pairwise(path))


def _all_scores(cost, seq):
    k = cost.shape[0]
    paths = list(itertools.product(range(k), repeat=len(seq)))
    return paths, numpy.array([_path_score(cost, seq, p) for p in paths])


def _expected_nll(cost, xs, ys, batch_sizes):
    cost = cost.astype(numpy.float64)
    xs = [x.astype(numpy.float64) for x in xs]
    seqs = _sequences(xs, batch_sizes)
    labels = _sequences([y[:, None] for y in ys], batch_sizes)
    loss = []
    for seq, label in zip(seqs, labels, strict=True):
        _, scores = _all_scores(cost, seq)
        logz = numpy.log(numpy.exp(scores).sum())
        loss.append(logz - _path_score(cost, seq, label[:, 0]))
    return numpy.array(loss)


@testing.parameterize(
    *testing.product(
        {
            "batch_sizes": [(2, 2, 2), (3, 2, 1), (1,), (3, 3, 1)],
            "reduce": ["mean", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestCRF1d(testing.FunctionTestCase):
    n_label = 3

    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        k = self.n_label
        cost = numpy.random.uniform(-1, 1, (k, k)).astype(self.dtype)
        xs = [
            numpy.random.uniform(-1, 1, (b, k)).astype(self.dtype)
            for b in self.batch_sizes
        ]
        ys = [
            numpy.random.randint(0, k, b).astype(numpy.int32) for b in self.batch_sizes
        ]
        return (cost, *xs, *ys)

    def forward(self, inputs, device):
        n = len(self.batch_sizes)
        cost, xs, ys = inputs[0], inputs[1 : n + 1], inputs[n + 1 :]
        return (crf1d.crf1d(cost, list(xs), list(ys), reduce=self.reduce),)

    def forward_expected(self, inputs):
        n = len(self.batch_sizes)
        cost, xs, ys = inputs[0], inputs[1 : n + 1], inputs[n + 1 :]
        loss = _expected_nll(cost, xs, ys, self.batch_sizes)
        if self.reduce == "mean":
            loss = loss.mean()
        return (numpy.asarray(loss, dtype=self.dtype),)


@testing.parameterize(
    *testing.product(
        {
            "batch_sizes": [(2, 2, 2), (3, 2, 1), (1,)],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestArgmaxCRF1d(testing.FunctionTestCase):
    n_label = 3

    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        k = self.n_label
        while True:
            cost = numpy.random.uniform(-1, 1, (k, k))
            xs = [numpy.random.uniform(-1, 1, (b, k)) for b in self.batch_sizes]
            # No near-ties between the best paths: the max is differentiable.
            gaps = []
            for seq in _sequences(xs, self.batch_sizes):
                top = numpy.sort(_all_scores(cost, seq)[1])[-2:]
                gaps.append(top[1] - top[0] if len(top) == 2 else 1.0)
            if min(gaps) > 0.1:
                return tuple(a.astype(self.dtype) for a in (cost, *xs))

    def forward(self, inputs, device):
        s, path = crf1d.argmax_crf1d(inputs[0], list(inputs[1:]))
        self.path = [
            device.xp.asnumpy(p) if device.xp is not numpy else p for p in path
        ]
        return (s,)

    def forward_expected(self, inputs):
        cost = inputs[0].astype(numpy.float64)
        xs = [x.astype(numpy.float64) for x in inputs[1:]]
        best = []
        for seq in _sequences(xs, self.batch_sizes):
            paths, scores = _all_scores(cost, seq)
            best.append((scores.max(), paths[int(scores.argmax())]))
        self.expected_path = [
            numpy.array([p[i] for _, p in best if len(p) > i], numpy.int32)
            for i in range(len(self.batch_sizes))
        ]
        return (numpy.array([s for s, _ in best], dtype=self.dtype),)

    def check_forward_outputs(self, outputs, expected_outputs):
        super().check_forward_outputs(outputs, expected_outputs)
        assert len(self.path) == len(self.expected_path)
        for p, e in zip(self.path, self.expected_path, strict=True):
            assert p.dtype == numpy.int32
            numpy.testing.assert_array_equal(p, e)


def _inputs():
    cost = numpy.zeros((3, 3), "f")
    xs = [numpy.zeros((2, 3), "f"), numpy.zeros((1, 3), "f")]
    ys = [numpy.zeros(2, "i"), numpy.zeros(1, "i")]
    return cost, xs, ys


def test_argmax_score_is_the_max_of_crf_scores():
    cost, xs, _ = _inputs()
    cost = numpy.random.uniform(-1, 1, cost.shape).astype("f")
    xs = [numpy.random.uniform(-1, 1, x.shape).astype("f") for x in xs]
    _, path = crf1d.argmax_crf1d(chainer.Variable(cost), xs)
    # The best path has the smallest negative log-likelihood.
    nll_best = crf1d.crf1d(cost, xs, path, reduce="no").array
    for a0, a1, b0 in itertools.product(range(3), repeat=3):
        ys = [numpy.array([a0, b0], "i"), numpy.array([a1], "i")]
        nll = crf1d.crf1d(cost, xs, ys, reduce="no").array
        assert (nll >= nll_best - 1e-6).all()


def test_invalid_reduce():
    with pytest.raises(ValueError, match="reduce"):
        crf1d.crf1d(*_inputs(), reduce="sum")


def test_unsorted_lengths():
    cost, xs, ys = _inputs()
    with pytest.raises(type_check.InvalidType):
        crf1d.crf1d(cost, xs[::-1], ys[::-1])


@pytest.mark.parametrize(
    "change",
    [
        lambda c, xs, ys: (numpy.zeros((3, 2), "f"), xs, ys),
        lambda c, xs, ys: (c, [numpy.zeros((2, 4), "f"), xs[1]], ys),
        lambda c, xs, ys: (c, xs, [numpy.zeros(2, "f"), ys[1]]),
        lambda c, xs, ys: (c, xs, [numpy.zeros(3, "i"), ys[1]]),
    ],
)
def test_invalid_inputs(change):
    with pytest.raises(type_check.InvalidType):
        crf1d.crf1d(*change(*_inputs()))
    cost, xs, _ = change(*_inputs())
    if cost.shape != (3, 3) or xs[0].shape[1] != 3:
        with pytest.raises(type_check.InvalidType):
            crf1d.argmax_crf1d(cost, xs)


@pytest.mark.parametrize("label", [3, -1])
def test_out_of_range_label_raises(label):
    cost = numpy.zeros((3, 3), numpy.float32)
    xs = [numpy.zeros((2, 3), numpy.float32), numpy.zeros((1, 3), numpy.float32)]
    ys = [numpy.array([0, 1], numpy.int32), numpy.array([label], numpy.int32)]
    with pytest.raises(ValueError, match=rf"crf1d: ys\[1\]\[0\] = {label} "):
        crf1d.crf1d(cost, xs, ys)
