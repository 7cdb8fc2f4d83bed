"""Index checks shared by the datasets that index their columns directly."""

import operator

import numpy


def selects_many(index):
    """Whether ``index`` is a list or an index array (not a 0-d array)."""
    return isinstance(index, list) or (
        isinstance(index, numpy.ndarray) and index.ndim != 0
    )


def position(index, length, owner):
    """Returns the non-negative position an integer index stands for.

    Negative values count from the end, as in Python sequences.
    """
    try:
        i = operator.index(index)
    except TypeError:
        raise TypeError(
            f"{owner} indices must be integers, slices, lists of integers or "
            f"integer/boolean arrays, not {type(index).__name__}"
        ) from None
    j = i + length if i < 0 else i
    if j < 0 or j >= length:
        raise IndexError(f"index {i} is out of range for {owner} of length {length}")
    return j


def positions(index, length, owner):
    """Returns an index list or array as a 1-d array of non-negative positions.

    A boolean array of the dataset's length is a mask.
    """
    array = numpy.asarray(index)
    if array.dtype == numpy.bool_:
        if array.shape != (length,):
            raise IndexError(
                f"boolean index of shape {array.shape} does not match {owner} of "
                f"length {length}"
            )
        return numpy.flatnonzero(array)
    if array.size == 0 and array.ndim == 1:
        return numpy.empty(0, dtype=numpy.intp)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise IndexError(
            f"{owner} list indices must be a 1-d sequence of integers or a boolean "
            f"mask, got dtype {array.dtype} with shape {array.shape}"
        )
    outside = (array < -length) | (array >= length)
    if outside.any():
        bad = array[outside][0]
        raise IndexError(f"index {bad} is out of range for {owner} of length {length}")
    array = array.astype(numpy.intp, copy=False)
    return numpy.where(array < 0, array + length, array)


def take(dataset, where):
    """Returns the examples of ``dataset`` at the positions ``where``."""
    if isinstance(dataset, numpy.ndarray):
        return dataset[where]
    if isinstance(dataset, (list, tuple)):
        return [dataset[i] for i in where.tolist()]
    # Other datasets (DatasetMixin, nested TupleDataset, CuPy arrays...)
    # index with a list of non-negative integers.
    return dataset[where.tolist()]
