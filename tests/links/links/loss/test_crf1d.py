import itertools

import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import initializers
from chainer import testing
from chainer.links.loss import crf1d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]
_K = 3


def _score(cost, x, y):
    return x[numpy.arange(len(y)), y].sum() + sum(
        cost[a, b] for a, b in itertools.pairwise(y)
    )


def _nll(cost, x, y):
    # Brute force over every label path of sequence x (shape (L, K)).
    scores = [_score(cost, x, p) for p in itertools.product(range(_K), repeat=len(x))]
    return numpy.logaddexp.reduce(scores) - _score(cost, x, y)


def _best(cost, x):
    paths = list(itertools.product(range(_K), repeat=len(x)))
    scores = [_score(cost, x, p) for p in paths]
    i = int(numpy.argmax(scores))
    return scores[i], numpy.array(paths[i])


def _sequences(dtype, lengths):
    xs = [numpy.random.uniform(-1, 1, (n, _K)).astype(dtype) for n in lengths]
    ys = [numpy.random.randint(0, _K, n).astype(numpy.int32) for n in lengths]
    return xs, ys


def _time_major(seqs):
    # seqs sorted by decreasing length -> one array per step.
    return [
        numpy.stack([s[i] for s in seqs if len(s) > i]) for i in range(len(seqs[0]))
    ]


def _make_link(dtype):
    cost = numpy.random.uniform(-1, 1, (_K, _K)).astype(dtype)
    with chainer.using_config("dtype", dtype):
        return crf1d.CRF1d(_K, initial_cost=cost)


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("transpose", [False, True])
def test_forward(dtype, reduce, transpose):
    link = _make_link(dtype)
    lengths = [2, 4, 1, 3] if transpose else [4, 3, 3, 1]
    seqs, labels = _sequences(dtype, lengths)
    if transpose:
        loss = link(seqs, labels, reduce=reduce, transpose=True)
    else:
        loss = link(_time_major(seqs), _time_major(labels), reduce=reduce)
    cost = link.cost.array.astype(numpy.float64)
    expected = numpy.array(
        [
            _nll(cost, x.astype(numpy.float64), y)
            for x, y in zip(seqs, labels, strict=True)
        ]
    )
    if reduce == "mean":
        expected = expected.mean()
    assert loss.dtype == dtype
    tol = 1e-2 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(loss.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize("transpose", [False, True])
def test_backward(transpose):
    link = _make_link(numpy.float64)
    lengths = [2, 3, 1] if transpose else [3, 2, 1]
    seqs, labels = _sequences(numpy.float64, lengths)
    if not transpose:
        seqs, labels = _time_major(seqs), _time_major(labels)

    def f(*xs):
        return link(list(xs), labels, reduce="no", transpose=transpose)

    gy = numpy.random.uniform(-1, 1, 3)
    gradient_check.check_backward(
        f, tuple(seqs), gy, params=(link.cost,), atol=1e-5, rtol=1e-4
    )


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("transpose", [False, True])
def test_argmax(dtype, transpose):
    link = _make_link(dtype)
    lengths = [2, 4, 1, 3] if transpose else [4, 3, 3, 1]
    seqs, _ = _sequences(dtype, lengths)
    cost = link.cost.array
    if transpose:
        score, path = link.argmax(seqs, transpose=True)
        assert len(path) == len(seqs)
    else:
        score, path = link.argmax(_time_major(seqs))
        assert [p.shape for p in path] == [(4,), (3,), (3,), (1,)]
        path = [
            numpy.array([p[j] for p in path if len(p) > j]) for j in range(len(seqs))
        ]
    for j, x in enumerate(seqs):
        best_score, best_path = _best(cost, x)
        numpy.testing.assert_array_equal(path[j], best_path)
        testing.assert_allclose(score.array[j], best_score, rtol=1e-5)


def test_default_cost_is_zero():
    link = crf1d.CRF1d(4)
    numpy.testing.assert_array_equal(link.cost.array, numpy.zeros((4, 4), "f"))
    link = crf1d.CRF1d(2, initial_cost=initializers.One())
    numpy.testing.assert_array_equal(link.cost.array, numpy.ones((2, 2), "f"))


def test_wrong_label_count_is_invalid():
    link = crf1d.CRF1d(_K)
    xs = [numpy.zeros((2, _K + 1), numpy.float32)]
    ys = [numpy.zeros(2, numpy.int32)]
    with pytest.raises(type_check.InvalidType):
        link(xs, ys)


def test_unsorted_steps_are_invalid():
    link = crf1d.CRF1d(_K)
    xs = [numpy.zeros((1, _K), numpy.float32), numpy.zeros((2, _K), numpy.float32)]
    ys = [numpy.zeros(1, numpy.int32), numpy.zeros(2, numpy.int32)]
    with pytest.raises(type_check.InvalidType):
        link(xs, ys)


def test_transpose_rejects_empty_and_mismatched_sequences():
    link = crf1d.CRF1d(_K)
    xs = [numpy.zeros((2, _K), numpy.float32), numpy.zeros((0, _K), numpy.float32)]
    ys = [numpy.zeros(2, numpy.int32), numpy.zeros(0, numpy.int32)]
    with pytest.raises(ValueError, match="empty"):
        link(xs, ys, transpose=True)
    with pytest.raises(ValueError, match="len"):
        link(xs[:1], ys, transpose=True)


def test_serialization_round_trip():
    src = _make_link(numpy.float32)
    dst = crf1d.CRF1d(_K)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.cost.array, src.cost.array)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("label", [_K, -1])
def test_out_of_range_label_raises(transpose, label):
    link = _make_link(numpy.float32)
    seqs = [numpy.zeros((3, _K), numpy.float32), numpy.zeros((2, _K), numpy.float32)]
    labels = [numpy.array([0, 1, label], numpy.int32), numpy.array([1, 0], numpy.int32)]
    if not transpose:
        seqs, labels = _time_major(seqs), _time_major(labels)
    with pytest.raises(ValueError, match=rf"crf1d: ys\[2\]\[0\] = {label} "):
        link(seqs, labels, transpose=transpose)
