"""Base class of dataset iterators."""

from __future__ import annotations

import abc


class Iterator(abc.ABC):
    """Base class of all dataset iterators.

    An iterator walks over a dataset and yields one minibatch, a list of
    examples, per call of ``next``. Subclasses implement :meth:`__next__`; it
    may raise :class:`StopIteration` at the end of a non-repeating sweep, and
    the last batch of a sweep may hold fewer examples than the batch size.

    Besides the iterator protocol, an implementation provides these
    attributes (they need not be writable):

    - ``batch_size``: number of examples within each minibatch.
    - ``epoch``: number of completed sweeps over the dataset.
    - ``epoch_detail``: floating point version of the epoch. In the middle of
      the third sweep it is ``2.5``.
    - ``previous_epoch_detail``: the value ``epoch_detail`` had before the
      last call of ``next``, or ``None`` before the first call. Triggers
      compare the two values to notice that an interval was crossed.
    - ``is_new_epoch``: ``True`` if the epoch count was incremented at the
      last update.

    Implementations also support :meth:`serialize` so that training can be
    suspended and resumed. An iterator is a context manager: leaving the
    ``with`` block calls :meth:`finalize`.
    """

    def __iter__(self):
        """Returns self."""
        return self

    @abc.abstractmethod
    def __next__(self):
        """Returns the next batch.

        This is a part of the iterator protocol of Python. It may raise the
        :class:`StopIteration` exception when it stops the iteration.

        Returns:
            list: The examples of the next minibatch.
        """

    def next(self):
        """Python 2 alternative of ``__next__``; it calls :meth:`__next__`.

        Returns:
            list: The examples of the next minibatch.
        """
        return self.__next__()

    # Optional hooks with a default that does nothing, not abstract methods.
    def finalize(self):  # noqa: B027
        """Finalizes the iterator and possibly releases its resources.

        This method does nothing by default. Implementations holding worker
        processes, threads or files override it.
        """

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.finalize()

    def serialize(self, serializer):  # noqa: B027
        """Serializes the internal state of the iterator.

        It should only serialize the state that changes over the iteration,
        not what users set by hand such as the batch size. The default
        iterator has no state.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
