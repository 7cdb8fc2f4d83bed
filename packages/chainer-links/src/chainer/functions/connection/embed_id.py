import weakref

import numpy

from chainer import backend
from chainer import function_node
from chainer import utils
from chainer import variable
from chainer.functions import _labels
from chainer.utils import type_check

# Gradient buffers of embedding matrices that EmbedIDFunction allocated for a
# leaf W, by id. Later embed_id nodes on the same W add into such a buffer in
# place instead of allocating (and summing) a full vocabulary-sized array per
# call; the LSTM language model calls embed_id once per time step.
_buffers = weakref.WeakValueDictionary()


def _rows_and_grads(x, gy, ignore_label):
    # Flattened ids and their (n, d) gradient rows, ignored ids dropped.
    x = x.ravel()
    gy = gy.reshape(x.size, gy.shape[-1])
    if ignore_label is not None:
        keep = x != ignore_label
        if not keep.all():
            x = x[keep]
            gy = gy[keep]
    return x, gy


def _scatter_rows(gW, x, gy):
    """Adds row ``gy[i]`` to ``gW[x[i]]`` for every i (repeated ids add up)."""
    n = x.size
    if n == 0:
        return
    xp = backend.get_array_module(gW)
    order = xp.argsort(x, kind="stable")
    xs = x[order]
    new = xp.empty(n, dtype=bool)
    new[0] = True
    xp.not_equal(xs[1:], xs[:-1], out=new[1:])
    starts = xp.flatnonzero(new)
    if starts.size == n:
        # Distinct ids: a plain fancy-index update is exact.
        gW[x] += gy
    elif xp is numpy:
        # numpy.add.at is slow on NumPy 1.x; sum each run of equal ids first.
        # Ids seen once take a plain fancy-index update: numpy.add.reduceat
        # costs about 4 us a run (700 ids, 674 distinct, rows of 650: 2.7 ms
        # for all runs against 0.2 for the 26 repeated ones).
        counts = numpy.diff(starts, append=n)
        once = counts == 1
        firsts = starts[once]
        gW[xs[firsts]] += gy[order[firsts]]
        repeated = ~once
        runs = counts[repeated]
        run_starts = numpy.cumsum(runs) - runs
        rows = order[numpy.repeat(repeated, counts)]
        gW[xs[starts[repeated]]] += numpy.add.reduceat(gy[rows], run_starts, axis=0)
    else:
        xp.add.at(gW, x, gy)


class EmbedIDFunction(function_node.FunctionNode):
    """Row lookup ``W[x]``; differentiable with respect to ``W`` only.

    Its ``backward_accumulate`` scatters the gradient rows into W's running
    gradient: 35 lookups of 20 ids into a 10000 x 650 W (the PTB language
    model's truncated BPTT) backpropagate in about 3 ms of embed_id work
    instead of about 400 ms with a fresh zero-filled gradient per lookup
    (2-core CPU, NumPy 2.4).
    """

    def __init__(self, ignore_label=None):
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "W"))
        x_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "i",
            x_type.ndim >= 1,
            w_type.dtype.kind == "f",
            w_type.ndim == 2,
        )

    def forward(self, inputs):
        x, W = inputs
        self._x = x
        self._w_shape = W.shape
        xp = backend.get_array_module(W)
        ignore_label = self.ignore_label
        _labels.check_labels("embed_id", x, len(W), ignore_label, "x", "len(W)")
        if ignore_label is None:
            return (W.take(x, axis=0),)
        mask = x == ignore_label
        y = W.take(xp.where(mask, 0, x), axis=0)
        y[mask] = 0
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        gW = EmbedIDGrad(self._x, self._w_shape, self.ignore_label).apply((gy,))[0]
        return tuple(gW if i == 1 else None for i in indexes)

    def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
        # NOTE: the gradient rows are added straight into the gradient that W
        # has accumulated so far when no double-backprop graph is needed.
        (gy,) = grad_outputs
        ret = list(grad_inputs)
        if 1 not in indexes:
            return tuple(ret)
        k = indexes.index(1)
        g_old = grad_inputs[k]
        if utils._config_entry("enable_backprop") and (
            gy.requires_grad or (g_old is not None and g_old.requires_grad)
        ):
            gW = self.backward((1,), grad_outputs)[0]
            ret[k] = gW if g_old is None else gW + g_old
            return tuple(ret)
        x, rows = _rows_and_grads(self._x, gy.array, self.ignore_label)
        leaf = self.inputs[1].creator_node is None
        old = None if g_old is None else g_old.array
        base = None if old is None else old.base
        if leaf and base is not None and _buffers.get(id(base)) is base:
            gW = base
        elif old is None:
            xp = backend.get_array_module(rows)
            gW = xp.zeros(self._w_shape, rows.dtype)
        else:
            gW = old.copy()
        _scatter_rows(gW, x, rows)
        if leaf:
            _buffers[id(gW)] = gW
            # The backprop engine stores a leaf's gradient as its own array
            # (it copies arrays it has seen before in the pass), so every call
            # hands out a fresh view of the buffer. The node keeps its view
            # alive, so no later view can reuse the id of an earlier one.
            self._grad_view = gW = gW.view()
        ret[k] = variable.Variable(gW, requires_grad=False)
        return tuple(ret)


class EmbedIDGrad(function_node.FunctionNode):
    """Gradient of embed_id with respect to ``W``: rows of ``gy`` added at ``x``."""

    def __init__(self, x, w_shape, ignore_label):
        self._x = x
        self._w_shape = w_shape
        self.ignore_label = ignore_label

    def forward(self, inputs):
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        gW = xp.zeros(self._w_shape, gy.dtype)
        _scatter_rows(gW, *_rows_and_grads(self._x, gy, self.ignore_label))
        return (gW,)

    def backward(self, indexes, grad_outputs):
        (ggW,) = grad_outputs
        return (embed_id(self._x, ggW, self.ignore_label),)


def embed_id(x, W, ignore_label=None):
    """Efficient linear function for one-hot input.

    This is the word embedding: it looks up the rows of the embedding matrix
    ``W`` selected by the integer IDs ``x``. The output is ``W[x]`` (shape
    ``x.shape + (d,)``). The function is differentiable with respect to
    ``W`` only.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Signed integer array of IDs
            of any shape with ``ndim >= 1``. Each ID must satisfy
            ``0 <= x < V`` unless it equals ``ignore_label`` (any other
            raises ``ValueError``).
        W (~chainer.Variable or :ref:`ndarray`): Float embedding matrix of
            shape ``(V, d)``.
        ignore_label (int or None): If an int, the rows of the output for
            IDs equal to it are zero (and receive no gradient).

    Returns:
        ~chainer.Variable: Array of shape ``x.shape + (d,)`` and the dtype of
        ``W``.

    .. note::
        The backward pass adds the gradient rows in place into a gradient
        array of ``W`` that an earlier embed_id backward allocated (when
        ``W`` is a leaf such as a link parameter and no double-backprop
        graph is built), so repeated lookups into one ``W`` do not allocate
        a vocabulary-sized array each. Call ``cleargrads`` (as usual)
        rather than keeping references to old ``W.grad`` arrays.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([2, 1], np.int32)
        >>> W = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]], np.float32)
        >>> F.embed_id(x, W).array
        array([[2., 2., 2.],
               [1., 1., 1.]], dtype=float32)
        >>> F.embed_id(x, W, ignore_label=1).array
        array([[2., 2., 2.],
               [0., 0., 0.]], dtype=float32)
    """
    return EmbedIDFunction(ignore_label=ignore_label).apply((x, W))[0]
