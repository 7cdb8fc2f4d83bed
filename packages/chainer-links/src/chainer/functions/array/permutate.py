import numpy

import chainer
from chainer import backend
from chainer import function_node
from chainer import variable
from chainer.utils import type_check


def _check_permutation(indices):
    # Needs the indices on the host, so it runs only in debug mode.
    indices = backend.CpuDevice().send(indices)
    n = len(indices)
    if n and (indices.min() < 0 or indices.max() >= n):
        raise ValueError(f"indices out of bounds for a permutation of {n}: {indices}")
    if len(numpy.unique(indices)) != n:
        raise ValueError(f"indices contains duplicate values: {indices}")


def _inverse(indices):
    xp = backend.get_array_module(indices)
    inv = xp.empty_like(indices)
    inv[indices] = xp.arange(len(indices), dtype=indices.dtype)
    return inv


class Permutate(function_node.FunctionNode):
    """Permutation of the entries of an array along an axis."""

    def __init__(self, indices, axis=0, inv=False):
        self.indices = indices
        self.axis = axis
        self.inv = inv

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        n = type_check.make_variable(len(self.indices), "len(indices)")
        type_check.expect(x_type.shape[self.axis] == n)

    def forward(self, inputs):
        (x,) = inputs
        indices = self.indices
        if chainer.is_debug():
            _check_permutation(indices)
        if self.inv:
            indices = _inverse(indices)
        xp = backend.get_array_module(x)
        return (xp.take(x, indices, axis=self.axis),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return Permutate(self.indices, self.axis, not self.inv).apply((gy,))


def permutate(x, indices, axis=0, inv=False):
    """Permutes ``x`` along an axis.

    Along ``axis``, ``y[i] = x[indices[i]]`` (that is,
    ``y = x.take(indices, axis)``). ``indices`` must be a permutation of
    ``[0, 1, ..., len(indices) - 1]``; this is verified in debug mode only.
    With ``inv=True`` the inverse permutation is applied:
    ``y[indices[i]] = x[i]``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input array with
            ``x.shape[axis] == len(indices)``.
        indices (~chainer.Variable, :ref:`ndarray` or list of ints): 1-d
            integer array holding the permutation.
        axis (int): Axis along which to permute.
        inv (bool): If ``True``, apply the inverse of ``indices``.

    Returns:
        ~chainer.Variable: The permuted array (same shape as ``x``).

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.arange(6).reshape(3, 2).astype(np.float32)
        >>> indices = np.array([2, 0, 1], np.int32)
        >>> F.permutate(x, indices).array
        array([[4., 5.],
               [0., 1.],
               [2., 3.]], dtype=float32)
        >>> F.permutate(x, indices, inv=True).array
        array([[2., 3.],
               [4., 5.],
               [0., 1.]], dtype=float32)
    """
    indices = variable.as_array(indices)
    if isinstance(indices, (list, tuple)):
        indices = numpy.asarray(indices, numpy.int32)
    if not hasattr(indices, "dtype") or indices.dtype.kind not in "iu":
        raise TypeError(f"indices must be an integer array, not {indices!r}")
    if indices.ndim != 1:
        raise ValueError(f"indices must be 1-d, got shape {indices.shape}")
    (y,) = Permutate(indices, axis, inv).apply((x,))
    return y
