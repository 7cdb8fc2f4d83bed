"""The n-step LSTM and GRU links lay out stacked weights in one buffer."""

import io

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import serializers
from chainer.functions.rnn import n_step_rnn


@pytest.fixture(
    params=[L.NStepLSTM, L.NStepBiLSTM, L.NStepGRU, L.NStepBiGRU],
    ids=lambda cls: cls.__name__,
)
def cls(request):
    return request.param


def _stacks(link):
    # Each layer's and direction's stacked weights, as the function builds them.
    rows = link._weight_rows
    return [
        [n_step_rnn.stacked_rows(numpy, [ws[j].array for j in r]) for r in rows]
        for ws in link.ws
    ]


def _assert_views(link):
    for ws, stacks in zip(link.ws, _stacks(link), strict=True):
        for rows, stacked in zip(link._weight_rows, stacks, strict=True):
            parts = [ws[j].array for j in rows]
            assert all(numpy.shares_memory(stacked, p) for p in parts)
            numpy.testing.assert_array_equal(stacked, numpy.concatenate(parts))


def _run(link, xs):
    link.cleargrads()
    if link.n_cells == 2:
        hy, cy, ys = link(None, None, xs)
        loss = chainer.functions.sum(cy * cy)
    else:
        hy, ys = link(None, xs)
        loss = 0
    loss += chainer.functions.sum(hy * hy) + sum(chainer.functions.sum(y) for y in ys)
    loss.backward()
    return [hy.array, *(y.array for y in ys)], [p.grad.copy() for p in link.params()]


def _sequences():
    rng = numpy.random.RandomState(3)
    return [rng.uniform(-1, 1, (n, 5)).astype(numpy.float32) for n in (6, 4, 4, 1)]


def test_new_links_stack_their_weights_without_a_copy(cls):
    link = cls(2, 5, 7, 0.0)
    assert link._weight_rows  # LSTM and GRU stack their gate weights
    _assert_views(link)


def test_results_equal_those_of_separate_weight_arrays(cls):
    link = cls(2, 5, 7, 0.0)
    separate = link.copy(mode="copy")
    for p in separate.params():
        p.array = p.array.copy()  # each weight its own array: stacked by copying
    xs = _sequences()
    outs, grads = _run(link, xs)
    ref_outs, ref_grads = _run(separate, xs)
    for got, expected in zip(outs + grads, ref_outs + ref_grads, strict=True):
        numpy.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    with pytest.raises(AssertionError):
        _assert_views(separate)


def test_the_layout_survives_updates_and_loading(cls):
    link = cls(1, 5, 7, 0.0)
    optimizer = chainer.optimizers.SGD(lr=0.1)
    optimizer.setup(link)
    _run(link, _sequences())
    optimizer.update()
    _assert_views(link)
    buffer = io.BytesIO()
    serializers.save_npz(buffer, link)
    other = cls(1, 5, 7, 0.0)
    buffer.seek(0)
    serializers.load_npz(buffer, other)
    _assert_views(other)
    for p, q in zip(link.params(), other.params(), strict=True):
        numpy.testing.assert_array_equal(p.array, q.array)


def test_stacked_rows_views_only_adjacent_blocks_in_order():
    buffer = numpy.arange(24, dtype=numpy.float32).reshape(6, 4)
    a, b, c = buffer[0:2], buffer[2:3], buffer[3:6]
    view = n_step_rnn.stacked_rows(numpy, [a, b, c])
    assert numpy.shares_memory(view, buffer)
    numpy.testing.assert_array_equal(view, buffer)
    assert n_step_rnn.stacked_rows(numpy, [b, c]).base is not None
    # Out of order, with a gap, from two buffers, or of another dtype: a copy.
    other = buffer.copy()
    for parts in (
        [b, a],
        [a, c],
        [a, other[2:3]],
        [a, b, c.astype(numpy.float64)],
        [buffer[:, :2], buffer[:, 2:]],
    ):
        stacked = n_step_rnn.stacked_rows(numpy, parts)
        assert not numpy.shares_memory(stacked, buffer)
        numpy.testing.assert_array_equal(stacked, numpy.concatenate(parts))
    # Arrays that own their data are copied as well.
    owned = [numpy.ones((2, 4)), numpy.zeros((1, 4))]
    numpy.testing.assert_array_equal(
        n_step_rnn.stacked_rows(numpy, owned), numpy.concatenate(owned)
    )
