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
        self.order = _detect_order(row, col) if order is None else order

    def to_dense(self):
        """Returns the dense array (``(rows, cols)`` or ``(batch, rows, cols)``)."""
        data = self.data.array
        xp = backend.get_array_module(data)
        if data.ndim == 1:
            dense = xp.zeros(self.shape, data.dtype)
            xp.add.at(dense, (self.row, self.col), data)
            return dense
        batch = data.shape[0]
        dense = xp.zeros((batch, *self.shape), data.dtype)
        valid = self.row >= 0
        b = xp.broadcast_to(xp.arange(batch)[:, None], data.shape)
        xp.add.at(dense, (b[valid], self.row[valid], self.col[valid]), data[valid])
        return dense


def _detect_order(row, col):
    row = numpy.asarray(backend.CpuDevice().send(row)).reshape(-1, row.shape[-1])
    col = numpy.asarray(backend.CpuDevice().send(col)).reshape(-1, col.shape[-1])
    c_order = f_order = True
    for r, c in zip(row, col, strict=True):
        keep = r >= 0
        r, c = r[keep], c[keep]
        c_key = r.astype(numpy.int64) * (c.max(initial=0) + 1) + c
        f_key = c.astype(numpy.int64) * (r.max(initial=0) + 1) + r
        c_order = c_order and bool((numpy.diff(c_key) >= 0).all())
        f_order = f_order and bool((numpy.diff(f_key) >= 0).all())
    if c_order:
        return "C"
    if f_order:
        return "F"
    return "other"


def to_coo(x, ldnz=None, requires_grad=False):
    """Converts a dense matrix (or a batch of them) to a :class:`CooMatrix`.

    Args:
        x (:ref:`ndarray`): 2-d dense matrix or 3-d batch of them.
        ldnz (int): For a batch, the padded number of non-zeros per matrix
            (at least the largest count; default: that count).
        requires_grad (bool): Whether the values need a gradient.

    Returns:
        CooMatrix: Entries in C order; batches are padded with ``row = col =
        -1`` and zero values.
    """
    xp = backend.get_array_module(x)
    if x.ndim == 2:
        row, col = xp.nonzero(x)
        return CooMatrix(
            x[row, col],
            row.astype(numpy.int32),
            col.astype(numpy.int32),
            x.shape,
            order="C",
            requires_grad=requires_grad,
        )
    if x.ndim != 3:
        raise ValueError("ndim of x must be 2 or 3")
    batch = x.shape[0]
    counts = [int((x[i] != 0).sum()) for i in range(batch)]
    width = max(counts, default=0)
    if ldnz is None:
        ldnz = width
    elif ldnz < width:
        raise ValueError(
            f"ldnz ({ldnz}) is smaller than the non-zeros per matrix ({width})"
        )
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
