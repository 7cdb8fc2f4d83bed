"""Fixtures shared by the tests of the iterators."""

import numpy
import pytest

from chainer import iterators


@pytest.fixture
def make_sampler():
    """``make_sampler(seed)``: a ShuffleOrderSampler with its own seeded RNG."""

    def make(seed):
        return iterators.ShuffleOrderSampler(numpy.random.RandomState(seed))

    return make


@pytest.fixture
def iterator_attrs():
    """``iterator_attrs(it)``: the epoch attributes and the position of ``it``."""

    def attrs(it):
        return (
            it.epoch,
            it.is_new_epoch,
            it.epoch_detail,
            it.previous_epoch_detail,
            it.current_position,
        )

    return attrs


def _assert_examples_equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if isinstance(x, tuple):
            assert type(y) is tuple
            _assert_examples_equal(x, y)
        elif isinstance(x, numpy.ndarray):
            assert isinstance(y, numpy.ndarray)
            assert (x.dtype, x.shape) == (y.dtype, y.shape)
            numpy.testing.assert_array_equal(x, y)
        else:
            assert x == y


@pytest.fixture
def assert_examples_equal():
    """``assert_examples_equal(a, b)``: two batches (or tuples) are equal.

    Arrays must agree in dtype and shape too; tuples stay tuples.
    """
    return _assert_examples_equal


@pytest.fixture
def check_same_as_serial(make_sampler, iterator_attrs):
    """``check_same_as_serial(make_iterator, dataset, batch_size, repeat, shuffle)``.

    Checks that the iterator ``make_iterator(dataset, batch_size, **order)``
    returns the batches, epoch attributes and end of a SerialIterator with
    the same order arguments, over two sweeps at least (one when not
    repeating). ``make_iterator`` returns an iterator usable in ``with``.
    """

    def check(make_iterator, dataset, batch_size, repeat, shuffle):
        def order():
            if shuffle:
                return {"repeat": repeat, "order_sampler": make_sampler(4)}
            return {"repeat": repeat, "shuffle": False}

        serial = iterators.SerialIterator(dataset, batch_size, **order())
        with make_iterator(dataset, batch_size, **order()) as it:
            assert iterator_attrs(it) == iterator_attrs(serial)
            for _ in range(2 * len(dataset)):
                try:
                    expected = next(serial)
                except StopIteration:
                    with pytest.raises(StopIteration):
                        next(it)
                    with pytest.raises(StopIteration):
                        next(it)
                    break
                _assert_examples_equal(next(it), expected)
                assert iterator_attrs(it) == iterator_attrs(serial)
            else:
                assert repeat

    return check


@pytest.fixture
def check_repeat_false_and_reset():
    """``check_repeat_false_and_reset(make_iterator)``: one sweep, then reset.

    ``make_iterator(dataset, batch_size, **kwargs)`` creates the iterator,
    usable in ``with``.
    """

    def check(make_iterator):
        with make_iterator(list(range(5)), 2, repeat=False, shuffle=False) as it:
            assert list(it) == [[0, 1], [2, 3], [4]]
            assert list(it) == []
            it.reset()
            assert it.previous_epoch_detail is None
            assert list(it) == [[0, 1], [2, 3], [4]]

    return check


@pytest.fixture
def check_order_sampler_error_is_deferred():
    """``check_order_sampler_error_is_deferred(make_iterator)``.

    An order sampler that fails when the second epoch's order is drawn
    (while the first epoch's last batch is prefetched) must raise with the
    batch that needs that order, not before; the iterator then goes on.
    ``make_iterator(dataset, batch_size, order_sampler=...)`` creates the
    iterator, usable in ``with``.
    """

    def check(make_iterator):
        calls = []

        def sampler(current_order, current_position):
            calls.append(current_position)
            if len(calls) == 2:
                raise ValueError("no second order")
            return numpy.arange(len(current_order))

        with make_iterator(list(range(4)), 2, order_sampler=sampler) as it:
            assert next(it) == [0, 1]
            with pytest.raises(ValueError, match="no second order"):
                next(it)
            assert it.epoch_detail == 0.5
            assert next(it) == [2, 3]
            assert it.is_new_epoch

    return check
