import numpy
import pytest

from chainer import iterators


def test_order_sampler_base_is_abstract():
    with pytest.raises(NotImplementedError, match="must override __call__"):
        iterators.OrderSampler()(numpy.arange(3), 0)


def test_shuffle_order_sampler_returns_a_permutation():
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(0))
    order = sampler(numpy.arange(10), 0)
    assert sorted(order.tolist()) == list(range(10))


def test_shuffle_order_sampler_uses_its_random_state():
    a = iterators.ShuffleOrderSampler(numpy.random.RandomState(3))
    b = iterators.ShuffleOrderSampler(numpy.random.RandomState(3))
    for _ in range(3):
        numpy.testing.assert_array_equal(a(numpy.arange(20), 0), b(numpy.arange(20), 5))


def test_shuffle_order_sampler_default_follows_numpy_seed():
    sampler = iterators.ShuffleOrderSampler()
    numpy.random.seed(7)
    first = sampler(numpy.arange(50), 0)
    numpy.random.seed(7)
    numpy.testing.assert_array_equal(sampler(numpy.arange(50), 0), first)


def test_shuffle_order_sampler_uses_only_the_length():
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(0))
    order = sampler(numpy.array([9, 9, 9, 9]), 2)
    assert sorted(order.tolist()) == [0, 1, 2, 3]


def test_shuffle_order_sampler_rejects_a_non_random_state():
    with pytest.raises(TypeError, match="random_state must be"):
        iterators.ShuffleOrderSampler(42)


def test_order_sampler_subclass_drives_serial_iterator():
    class Reverse(iterators.OrderSampler):
        def __call__(self, current_order, current_position):
            return numpy.arange(len(current_order))[::-1]

    it = iterators.SerialIterator(list(range(4)), 3, order_sampler=Reverse())
    assert [next(it) for _ in range(2)] == [[3, 2, 1], [0, 3, 2]]
