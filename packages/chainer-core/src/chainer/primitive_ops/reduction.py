"""Reductions used by Variable: sum and (weighted) average."""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import function_node
from chainer import variable
from chainer.primitive_ops import array as array_ops
from chainer.primitive_ops import basic_math
from chainer.utils import type_check

_add_reduce = numpy.add.reduce
_new_node = object.__new__


def _normalize_axis(axis, ndim):
    if axis is None:
        return None
    if type(axis) is int:
        if -ndim <= axis < ndim:
            return (axis % ndim,)
        axis = (axis,)
    elif isinstance(axis, int):
        axis = (axis,)
    elif not isinstance(axis, tuple):
        raise TypeError(f"axis must be None, int or tuple of int, not {axis!r}")
    out = []
    for a in axis:
        if not isinstance(a, (int, numpy.integer)):
            raise TypeError(f"axis must be None, int or tuple of int, not {axis!r}")
        if not -ndim <= a < ndim:
            raise type_check.InvalidType(
                f"-x.ndim <= axis < x.ndim (x.ndim = {ndim})", f"axis = {a}"
            )
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in axis: {axis}")
    return tuple(sorted(out))


class Sum(function_node.FunctionNode):
    """Sum over axes."""

    def __init__(self, axis=None, keepdims=False):
        self.axis = axis
        self.keepdims = keepdims

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        if type(x) is numpy.ndarray:
            # The ufunc's reduce skips ndarray.sum's Python-level dispatch.
            return (_add_reduce(x, self.axis, None, None, self.keepdims),)
        return (x.sum(axis=self.axis, keepdims=self.keepdims),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        shape = self.inputs[0].shape
        if gy._data.shape == shape:
            return grad_outputs  # nothing was reduced (axes of length 1, kept)
        if self.keepdims:
            kept = gy.shape
        elif self.axis is None:
            kept = (1,) * len(shape)
        else:
            kept = list(gy.shape)
            for a in self.axis:
                kept.insert(a, 1)
            kept = tuple(kept)
        return SumGrad(self.axis, self.keepdims, kept, shape).apply((gy,))


class SumGrad(function_node.FunctionNode):
    """Broadcasts the gradient of a sum back to the input's shape.

    One node instead of a reshape and a broadcast_to: it halves the backward
    cost of ``F.sum`` on small arrays (``benchmarks/workloads/
    catalogue_ops.py``). Its gradient is the sum again.
    """

    def __init__(self, axis, keepdims, kept_shape, in_shape):
        self.axis = axis
        self.keepdims = keepdims
        self._kept_shape = kept_shape
        self._in_shape = in_shape

    def forward(self, inputs):
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        # A filled array rather than a broadcast view: cheaper than
        # broadcast_to on small arrays, and leaf gradients must be contiguous
        # anyway.
        gx = xp.empty(self._in_shape, gy.dtype)
        gx[...] = gy.reshape(self._kept_shape)
        return (gx,)

    def backward(self, indexes, grad_outputs):
        return Sum(self.axis, self.keepdims).apply(grad_outputs)


def sum(x, axis=None, keepdims=False):
    """Sums the elements of ``x`` over ``axis``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input.
        axis (None, int or tuple of int): Axes to sum over (None: all).
        keepdims (bool): Keep reduced axes with length one.

    Returns:
        ~chainer.Variable: The sum.
    """
    if axis is not None:
        ndim = (x._data if isinstance(x, variable.Variable) else x).ndim
        # A single in-range int, the common case, without a call.
        if type(axis) is int and -ndim <= axis < ndim:
            axis = (axis % ndim,)
        else:
            axis = _normalize_axis(axis, ndim)
    # The node without a call of __init__ (a Python frame per op).
    node = _new_node(Sum)
    node.axis = axis
    node.keepdims = keepdims
    (y,) = node.apply((x,))
    return y


def average(x, axis=None, weights=None, keepdims=False):
    """(Weighted) mean of ``x`` over ``axis``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input.
        axis (None, int or tuple of int): Axes to average over.
        weights (~chainer.Variable or :ref:`ndarray`): Weights; with an int
            ``axis`` a 1-d array of length ``x.shape[axis]``, else the shape of
            ``x`` over the reduced axes.
        keepdims (bool): Keep reduced axes with length one.

    Returns:
        ~chainer.Variable: The average.
    """
    data = x._data if isinstance(x, variable.Variable) else x
    axes = _normalize_axis(axis, data.ndim)
    if weights is None:
        n = data.size if axes is None else 1
        if axes is not None:
            for a in axes:
                n *= data.shape[a]
        s = sum(x, axes, keepdims)
        return basic_math.mul_constant(s, s._data.dtype.type(1.0 / max(n, 1)))
    if isinstance(axis, tuple):
        raise ValueError("tuple axis is not supported when weights is given")
    w = variable.as_variable(weights)
    if axes is not None and len(axes) == 1 and w.ndim == 1:
        if w.shape[0] != data.shape[axes[0]]:
            raise ValueError(
                f"length of weights {w.shape[0]} differs from x.shape[{axes[0]}]="
                f"{data.shape[axes[0]]}"
            )
        shape = [1] * data.ndim
        shape[axes[0]] = w.shape[0]
        w = array_ops.reshape(w, tuple(shape))
    w = array_ops.broadcast_to(w, data.shape)
    num = sum(x * w, axes, keepdims)
    den = sum(w, axes, keepdims)
    return num / den
