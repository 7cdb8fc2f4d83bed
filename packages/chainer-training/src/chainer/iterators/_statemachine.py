"""The batch-order state machine shared by the iterators.

An iterator's position is an :class:`IteratorState`; :func:`iterator_statemachine`
gives the indices of the next batch and the state after it. Keeping this pure
lets the prefetching iterators run it ahead of the batches they have returned
and still produce exactly the batches :class:`SerialIterator` produces.
"""

from __future__ import annotations

import collections
import operator

import numpy

from chainer import serializer as serializer_module
from chainer.iterators import order_samplers

IteratorState = collections.namedtuple(
    "IteratorState", ("current_position", "epoch", "is_new_epoch", "order")
)


def check_batch_size(batch_size):
    """Returns ``batch_size`` as an ``int``, or raises if it is not positive."""
    if isinstance(batch_size, bool):
        raise TypeError(f"batch_size must be an int, not {batch_size!r}")
    try:
        size = operator.index(batch_size)
    except TypeError:
        raise TypeError(
            f"batch_size must be an int, not {type(batch_size).__name__}"
        ) from None
    if size <= 0:
        raise ValueError(f"batch_size must be positive, got {size}")
    return size


def choose_order_sampler(shuffle, order_sampler):
    """Resolves the ``shuffle``/``order_sampler`` pair of an iterator.

    Returns:
        The order sampler to use, or ``None`` for the dataset's own order.
    """
    if shuffle is not None:
        if order_sampler is not None:
            raise ValueError(
                "shuffle is not None and a custom order_sampler is given; set "
                "shuffle to None to use the order sampler"
            )
        return order_samplers.ShuffleOrderSampler() if shuffle else None
    if order_sampler is None:
        return order_samplers.ShuffleOrderSampler()
    if not callable(order_sampler):
        raise TypeError(
            "order_sampler must be callable as order_sampler(current_order, "
            f"current_position), not {type(order_sampler).__name__}"
        )
    return order_sampler


def check_dataset(dataset, repeat, name):
    """Returns ``len(dataset)``; a repeating iterator refuses an empty dataset."""
    try:
        n = len(dataset)
    except TypeError:
        raise TypeError(
            f"{name} needs a dataset with a length (__len__ and __getitem__), "
            f"not {type(dataset).__name__}"
        ) from None
    if n == 0 and repeat:
        raise ValueError(
            f"{name} got an empty dataset; a repeating iterator needs at least "
            "one example (an empty non-repeating iterator yields no batch)"
        )
    return n


def sample_order(order_sampler, current_order, current_position, same_length=True):
    """Calls ``order_sampler`` and checks the order it returns.

    The first order of an iteration sets the epoch size, which may differ
    from the dataset's length (an order may repeat or leave out examples);
    each later order must keep that size (``same_length``).
    """
    new_order = order_sampler(current_order, current_position)
    if new_order is None:
        raise ValueError(
            "the order sampler returned None; it must return an array of "
            "dataset indices"
        )
    if same_length and len(new_order) != len(current_order):
        raise ValueError(
            f"the order sampler returned an order of length {len(new_order)}; "
            f"expected length {len(current_order)}, the length of the previous "
            "order"
        )
    return numpy.asarray(new_order)


def initial_state(order_sampler, dataset_len):
    """Returns the state at the start of the first epoch."""
    order = None
    if order_sampler is not None:
        order = sample_order(
            order_sampler, numpy.arange(dataset_len), 0, same_length=False
        )
    return IteratorState(0, 0, False, order)


def epoch_size(state, dataset_len):
    """Returns the number of examples in one epoch."""
    return dataset_len if state.order is None else len(state.order)


def iterator_statemachine(state, batch_size, repeat, order_sampler, dataset_len):
    """Advances the iteration by one batch.

    A batch that crosses the end of an epoch of a repeating iterator is
    filled from the start of the next epoch, whose order is drawn from
    ``order_sampler`` at that moment. A non-repeating iterator ends its only
    epoch with a partial batch and then stops.

    Args:
        state (IteratorState): The state before the batch.
        batch_size (int): Number of examples in a batch.
        repeat (bool): Whether the iteration goes on past the first epoch.
        order_sampler (callable or None): Sampler of each epoch's order.
        dataset_len (int): Length of the dataset.

    Returns:
        tuple: The state after the batch and the list of dataset indices of
        the batch; the indices are ``None`` when the iteration has stopped.
    """
    i, epoch, _, order = state
    if not repeat and epoch > 0:
        return state, None
    n = dataset_len if order is None else len(order)
    if n == 0:
        if repeat:
            raise ValueError(
                "the dataset is empty; a repeating iterator needs at least one example"
            )
        return IteratorState(0, 1, True, order), None
    if i + batch_size < n:
        # Fast path: the batch lies inside the current epoch.
        if order is None:
            indices = list(range(i, i + batch_size))
        else:
            indices = order[i : i + batch_size].tolist()
        return IteratorState(i + batch_size, epoch, False, order), indices
    indices = []
    rest = batch_size
    while rest > 0:
        stop = min(i + rest, n)
        if order is None:
            indices.extend(range(i, stop))
        else:
            indices.extend(order[i:stop].tolist())
        rest -= stop - i
        i = stop
        if i == n:
            epoch += 1
            i = 0
            if not repeat:
                break
            if order_sampler is not None:
                order = sample_order(order_sampler, order, n)
                n = len(order)
    return IteratorState(i, epoch, True, order), indices


def is_loading(serializer):
    """Tells whether ``serializer`` is a deserializer."""
    return isinstance(serializer, serializer_module.Deserializer)


def serialize_state(serializer, state, previous_epoch_detail, batch_size, dataset_len):
    """Saves or loads an iterator state with Chainer's entry names.

    Returns:
        tuple: The (possibly loaded) state and previous epoch detail.
    """
    current_position = serializer("current_position", state.current_position)
    epoch = serializer("epoch", state.epoch)
    is_new_epoch = serializer("is_new_epoch", state.is_new_epoch)
    order = state.order
    if order is not None:
        if is_loading(serializer):
            # Loaded into a copy: the current array may be shared with states
            # prefetched ahead.
            order = order.copy()
        try:
            order = serializer("order", order)
        except KeyError:
            # Name used by Chainer before v5.
            order = serializer("_order", order)
    state = IteratorState(int(current_position), int(epoch), bool(is_new_epoch), order)
    try:
        previous_epoch_detail = serializer(
            "previous_epoch_detail", previous_epoch_detail
        )
    except KeyError:
        # Snapshots from Chainer before v2 lack it; guess from the position.
        size = epoch_size(state, dataset_len) or 1
        detail = state.epoch + state.current_position / size
        previous_epoch_detail = (
            state.epoch + (state.current_position - batch_size) / size
        )
        previous_epoch_detail = max(previous_epoch_detail, 0.0) if detail > 0 else -1.0
    return state, float(previous_epoch_detail)


class StateMixin:
    """The state handling shared by the iterators here.

    It gives the epoch attributes, derived from ``_state`` (an
    :class:`IteratorState`) and ``_previous_epoch_detail`` (``-1.0`` before
    the first batch), the steps that move them, :meth:`reset` and
    :meth:`serialize`. The class using it calls :meth:`_init_state` with the
    arguments every iterator takes; a prefetching one overrides
    :meth:`_drop_prefetched`.
    """

    def reset(self):
        """Rewinds the iterator to the start of the first epoch.

        A fresh order is drawn from the order sampler, if any, and batches
        already being loaded are dropped.
        """
        self._rewind()
        self._drop_prefetched()

    def serialize(self, serializer):
        """Serializes the position, epoch count and order of the iterator.

        The entries are ``current_position``, ``epoch``, ``is_new_epoch``,
        ``order`` (when the order is not the dataset's own) and
        ``previous_epoch_detail``, so that a resumed run continues the same
        epoch in the same order. Every iterator uses these entries, so one
        can resume from another's snapshot; loading drops the batches being
        prefetched.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        if self._serialize_state(serializer):
            self._drop_prefetched()

    def _drop_prefetched(self):
        # Called after the state moved elsewhere (reset, resume).
        pass

    def _init_state(self, dataset, batch_size, repeat, shuffle, order_sampler):
        self.batch_size = check_batch_size(batch_size)
        self._repeat = bool(repeat)
        check_dataset(dataset, self._repeat, type(self).__name__)
        self.dataset = dataset
        self._shuffle = shuffle
        self.order_sampler = choose_order_sampler(shuffle, order_sampler)

    def _next_batch(self, state):
        # The state after the batch that follows ``state``, and its indices.
        return iterator_statemachine(
            state, self.batch_size, self._repeat, self.order_sampler, len(self.dataset)
        )

    def _advance(self, state):
        # Called once a batch is read, so that an error raised by the dataset
        # leaves the iterator where it was.
        self._previous_epoch_detail = self.epoch_detail
        self._state = state

    def _rewind(self):
        self._state = initial_state(self.order_sampler, len(self.dataset))
        self._previous_epoch_detail = -1.0

    def _serialize_state(self, serializer):
        # Returns whether the state was loaded.
        self._state, self._previous_epoch_detail = serialize_state(
            serializer,
            self._state,
            self._previous_epoch_detail,
            self.batch_size,
            len(self.dataset),
        )
        return is_loading(serializer)

    @property
    def current_position(self):
        """int: Position of the next example within the current epoch."""
        return self._state.current_position

    @property
    def epoch(self):
        """int: Number of completed sweeps over the dataset."""
        return self._state.epoch

    @property
    def is_new_epoch(self):
        """bool: ``True`` if the last batch reached the end of an epoch."""
        return self._state.is_new_epoch

    @property
    def epoch_detail(self):
        """float: Floating point version of the epoch (``2.5`` mid third epoch)."""
        state = self._state
        size = epoch_size(state, len(self.dataset))
        if size == 0:
            return float(state.epoch)
        return state.epoch + state.current_position / size

    @property
    def previous_epoch_detail(self):
        """float: ``epoch_detail`` before the last batch, ``None`` before the first."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    @property
    def repeat(self):
        """bool: Whether the iterator loops over the dataset forever."""
        return self._repeat


def check_count(value, name, minimum, allow_none=False):
    """Returns ``value`` as an ``int`` at least ``minimum`` (or ``None``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if n < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {n}")
    return n
