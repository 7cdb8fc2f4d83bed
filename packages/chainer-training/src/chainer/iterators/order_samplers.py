"""Order samplers: they choose the order in which an iterator visits a dataset."""

from __future__ import annotations

import numpy


class OrderSampler:
    """Base class of order samplers.

    Every iterator that takes an ``order_sampler`` calls it at the start of
    each epoch to get the order of the examples for that epoch. An order
    sampler is a callable taking the current order and the current position
    and returning the new order, an integer array that is a permutation (or
    any selection) of ``range(len(dataset))`` with the same length as
    ``current_order``.
    """

    def __call__(self, current_order, current_position):
        """Samples the next order.

        Args:
            current_order (numpy.ndarray): 1-D array of the indices of the
                current order (``numpy.arange(len(dataset))`` before the
                first epoch).
            current_position (int): The current position of the iterator.

        Returns:
            numpy.ndarray: 1-D integer array of indices, the next order. It
            must have the same length as ``current_order``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must override __call__(current_order, "
            "current_position) to return the next order"
        )


class ShuffleOrderSampler(OrderSampler):
    """Sampler of a random permutation of the dataset at each epoch.

    Args:
        random_state (numpy.random.RandomState): Pseudo-random number
            generator drawing the permutations. ``None`` uses NumPy's global
            one, the generator ``numpy.random.seed`` seeds, so that seeding
            NumPy makes the order reproducible (as in Chainer).
    """

    def __init__(self, random_state=None):
        if random_state is None:
            # The RandomState behind the numpy.random.* functions.
            random_state = numpy.random.random.__self__
        elif not hasattr(random_state, "permutation"):
            raise TypeError(
                "random_state must be a numpy.random.RandomState (or have a "
                f"permutation method), not {type(random_state).__name__}"
            )
        self._random = random_state

    def __call__(self, current_order, current_position):
        """Returns a random permutation of ``range(len(current_order))``.

        Args:
            current_order (numpy.ndarray): The current order; only its length
                is used.
            current_position (int): The current position; unused.

        Returns:
            numpy.ndarray: A permutation of ``range(len(current_order))``.
        """
        return self._random.permutation(len(current_order))
