"""Default indexing for datasets that only know how to fetch one example."""

from __future__ import annotations

import operator

import numpy


def _normalize_index(i, length):
    # Mirrors Python's sequence indexing: negative counts from the end and
    # anything outside [-length, length) is an IndexError.
    if i < 0:
        i += length
    if i < 0 or i >= length:
        raise IndexError(
            f"index {i - length if i < 0 else i} is out of range for a dataset "
            f"of length {length}"
        )
    return i


class DatasetMixin:
    """Default implementation of dataset indexing.

    DatasetMixin provides the :meth:`__getitem__` operator. It uses
    :meth:`get_example` to extract each example and combines the results into
    a list when several examples are requested. This makes it easy to write a
    dataset that does not support efficient slicing: implement
    :meth:`get_example` and ``__len__``.

    Example:
        >>> from chainer import dataset
        >>> class Squares(dataset.DatasetMixin):
        ...     def __len__(self):
        ...         return 5
        ...     def get_example(self, i):
        ...         return i * i
        >>> squares = Squares()
        >>> squares[-1], squares[1:4], squares[[0, 2]]
        (16, [1, 4, 9], [0, 4])
    """

    def __getitem__(self, index):
        """Returns an example or a list of examples.

        Args:
            index (int, slice, list or numpy.ndarray): An integer (negative
                values count from the end), a slice, a list of integers, an
                integer array, or a boolean mask of the dataset's length.

        Returns:
            The example for an integer index, otherwise a list of examples.
        """
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            return [self.get_example(i) for i in range(start, stop, step)]
        if isinstance(index, (list, numpy.ndarray)):
            return [self.get_example(i) for i in self._index_list(index)]
        try:
            i = operator.index(index)
        except TypeError:
            # Not an integer: leave the interpretation to get_example, as
            # Chainer does (e.g. datasets keyed by strings).
            return self.get_example(index)
        return self.get_example(_normalize_index(i, len(self)))

    def _index_list(self, index):
        length = len(self)
        if isinstance(index, numpy.ndarray):
            if index.dtype == numpy.bool_:
                if index.shape != (length,):
                    raise IndexError(
                        f"boolean index of shape {index.shape} does not match a "
                        f"dataset of length {length}"
                    )
                return numpy.flatnonzero(index).tolist()
            if index.ndim != 1 or index.dtype.kind not in "iu":
                raise IndexError(
                    "array index must be a 1-d integer or boolean array, got "
                    f"dtype {index.dtype} with shape {index.shape}"
                )
            index = index.tolist()
        result = []
        for i in index:
            try:
                i = operator.index(i)
            except TypeError:
                raise IndexError(
                    f"list index entries must be integers, got {type(i).__name__}"
                ) from None
            result.append(_normalize_index(i, length))
        return result

    def get_example(self, i):
        """Returns the i-th example.

        Implementations must override it. :meth:`__getitem__` has already
        turned ``i`` into a non-negative integer below ``len(self)``.

        Args:
            i (int): The index of the example.

        Returns:
            The i-th example.
        """
        raise TypeError(
            f"{type(self).__name__} must override get_example() (or __getitem__) "
            "to be used as a dataset"
        )
