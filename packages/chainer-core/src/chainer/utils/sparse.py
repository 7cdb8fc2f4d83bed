"""COO sparse matrices for ``F.sparse_matmul`` (``chainer.utils.CooMatrix``)."""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import variable


class CooMatrix:
    """A sparse matrix (or a batch of them) in coordinate (COO) format.

    Args:
        data (:ref:`ndarray`): Non-zero values, shape ``(nnz,)`` or, batched,
            ``(batch, ldnz)``.
        row (:ref:`ndarray`): Row indices, same shape as ``data``; ``-1``
            marks padding in a batch.
        col (:ref:`ndarray`): Column indices, same shape as ``data``.
        shape (tuple of int): ``(rows, cols)`` of each matrix.
        order ('C', 'F', 'other' or None): Order of the entries; None
            detects it.
        requires_grad (bool): Whether ``data`` (a Variable) needs a gradient.
    """

    def __init__(self, data, row, col, shape, order=None, requires_grad=False):
        if not (1 <= data.ndim <= 2):
            raise ValueError("ndim of data must be 1 or 2")
        if data.shape != row.shape or data.shape != col.shape:
            raise ValueError("data, row and col must have the same shape")
        if len(shape) != 2:
            raise ValueError("shape must be (rows, cols)")
        if order not in ("C", "F", "other", None):
            raise ValueError(f"order must be 'C', 'F', 'other' or None, not {order!r}")
        self.data = variable.Variable(data, requires_grad=requires_grad)
        self.row = row
        self.col = col
        self.shape = tuple(int(s) for s in shape)
        self.order = get_order(row, col) if order is None else order

    def to_dense(self):
        """Returns the dense array (``(rows, cols)`` or ``(batch, rows, cols)``).

        Entries whose row or column index is negative are padding and skipped.
        """
        data = self.data.array
        xp = backend.get_array_module(data)
        valid = (self.row >= 0) & (self.col >= 0)
        if data.ndim == 1:
            dense = xp.zeros(self.shape, data.dtype)
            xp.add.at(dense, (self.row[valid], self.col[valid]), data[valid])
            return dense
        batch = data.shape[0]
        dense = xp.zeros((batch, *self.shape), data.dtype)
        b = xp.broadcast_to(xp.arange(batch)[:, None], data.shape)
        xp.add.at(dense, (b[valid], self.row[valid], self.col[valid]), data[valid])
        return dense


def get_order(row, col):
    """Tells whether COO entries are in C order, F order or neither.

    Args:
        row (:ref:`ndarray`): Row indices of the entries (1-d, or 2-d for a
            batch); negative indices mark padding.
        col (:ref:`ndarray`): Column indices, same shape as ``row``.

    Returns:
        str: ``'C'`` when the entries are sorted by row, then by column;
        ``'F'`` when sorted by column, then by row; ``'other'`` otherwise.

    Raises:
        ValueError: If the shapes differ, or an entry has a negative row index
            with a non-negative column index (or the reverse).
    """
    row = numpy.asarray(backend.CpuDevice().send(row))
    col = numpy.asarray(backend.CpuDevice().send(col))
    if row.shape != col.shape:
        raise ValueError("shape of row and col must be the same.")
    if _is_c_order(row, col):
        return "C"
    if _is_c_order(col, row):
        return "F"
    return "other"


def _is_c_order(row, col):
    if row.ndim != 1:
        return all(_is_c_order(r, c) for r, c in zip(row, col, strict=True))
    if ((row < 0) != (col < 0)).any():
        raise ValueError("invalid index combination of row and col.")
    keep = row >= 0
    row, col = row[keep].astype(numpy.int64), col[keep].astype(numpy.int64)
    if row.size <= 1:
        return True
    row_diff = numpy.diff(row)
    if (row_diff < 0).any():
        return False
    col_diff = numpy.diff(col)
    return bool((col_diff[row_diff == 0] >= 0).all())


def to_coo(x, ldnz=None, requires_grad=False):
    """Converts a dense matrix (or a batch of them) to a :class:`CooMatrix`.

    Args:
        x (:ref:`ndarray`): 2-d dense matrix or 3-d batch of them.
        ldnz (int): Length of the entry arrays: the number of non-zeros
            (the largest count of a batch) when None or smaller; padding
            entries have ``row = col = -1`` and a zero value.
        requires_grad (bool): Whether the values need a gradient.

    Returns:
        CooMatrix: Entries in C order.
    """
    xp = backend.get_array_module(x)
    if x.ndim == 2:
        r, c = xp.nonzero(x)
        nnz = len(r)
        if ldnz is None or ldnz < nnz:
            ldnz = nnz
        data = xp.zeros((ldnz,), x.dtype)
        row = xp.full((ldnz,), -1, numpy.int32)
        col = xp.full((ldnz,), -1, numpy.int32)
        data[:nnz] = x[r, c]
        row[:nnz] = r
        col[:nnz] = c
        return CooMatrix(
            data, row, col, x.shape, order="C", requires_grad=requires_grad
        )
    if x.ndim != 3:
        raise ValueError("ndim of x must be 2 or 3")
    batch = x.shape[0]
    counts = [int((x[i] != 0).sum()) for i in range(batch)]
    width = max(counts, default=0)
    if ldnz is None or ldnz < width:
        ldnz = width
    data = xp.zeros((batch, ldnz), x.dtype)
    row = xp.full((batch, ldnz), -1, numpy.int32)
    col = xp.full((batch, ldnz), -1, numpy.int32)
    for i in range(batch):
        r, c = xp.nonzero(x[i])
        n = len(r)
        data[i, :n] = x[i][r, c]
        row[i, :n] = r
        col[i, :n] = c
    return CooMatrix(
        data, row, col, x.shape[1:], order="C", requires_grad=requires_grad
    )
