import numbers

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _normalize_axes(axes, a_ndim, b_ndim):
    if isinstance(axes, numbers.Integral):
        n = int(axes)
        if not 0 <= n <= min(a_ndim, b_ndim):
            raise ValueError(
                f"axes={n} must be between 0 and the smaller ndim of a and b "
                f"({a_ndim}, {b_ndim})"
            )
        return tuple(range(a_ndim - n, a_ndim)), tuple(range(n))
    try:
        n_pairs = len(axes)
    except TypeError:
        raise TypeError(
            f"axes must be an int or a pair of (sequences of) ints, got {axes!r}"
        ) from None
    if n_pairs != 2:
        raise ValueError(
            f"axes must be a pair (axes of a, axes of b) when a sequence, got {axes!r}"
        )
    a_axes, b_axes = axes
    a_axes = _as_axis_tuple(a_axes, a_ndim, "a")
    b_axes = _as_axis_tuple(b_axes, b_ndim, "b")
    if len(a_axes) != len(b_axes):
        raise ValueError(f"axes of a {a_axes} and axes of b {b_axes} differ in length")
    return a_axes, b_axes


def _as_axis_tuple(axes, ndim, name):
    if isinstance(axes, numbers.Integral):
        axes = (axes,)
    out = []
    for axis in axes:
        if not isinstance(axis, numbers.Integral):
            raise TypeError(f"axes of {name} must be ints, got {axis!r}")
        if not -ndim <= axis < ndim:
            raise ValueError(f"axis {axis} is out of bounds for {name}.ndim={ndim}")
        out.append(int(axis) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in axes of {name}: {tuple(axes)}")
    return tuple(out)


def _transpose_if_needed(x, perm):
    if perm == list(range(len(perm))):
        return x
    return primitive_ops.transpose(x, tuple(perm))


def _cast_if_needed(x, dtype):
    # With operands of different dtypes, each gradient takes its operand's.
    return x if x.dtype == dtype else primitive_ops.cast(x, dtype)


class TensorDot(function_node.FunctionNode):
    """Tensor dot product over given pairs of axes."""

    def __init__(self, a_axes, b_axes):
        self.a_axes = tuple(a_axes)
        self.b_axes = tuple(b_axes)

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        a_type, b_type = in_types
        type_check.expect(
            a_type.dtype.kind == "f",
            b_type.dtype.kind == "f",
            a_type.ndim > max(self.a_axes, default=-1),
            b_type.ndim > max(self.b_axes, default=-1),
        )
        for a_axis, b_axis in zip(self.a_axes, self.b_axes, strict=True):
            type_check.expect(a_type.shape[a_axis] == b_type.shape[b_axis])

    def forward(self, inputs):
        a, b = inputs
        xp = backend.get_array_module(a)
        self.retain_inputs((0, 1))
        return (xp.tensordot(a, b, axes=(self.a_axes, self.b_axes)),)

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        (gy,) = grad_outputs
        a_free = [i for i in range(a.ndim) if i not in self.a_axes]
        b_free = [i for i in range(b.ndim) if i not in self.b_axes]
        n_a = len(a_free)
        sorted_a = sorted(self.a_axes)
        sorted_b = sorted(self.b_axes)
        ret = []
        if 0 in indexes:
            # The contracted axes of a come out in the order of b's axes.
            ga = tensordot(gy, b, (tuple(range(n_a, gy.ndim)), tuple(b_free)))
            pair = dict(zip(self.a_axes, self.b_axes, strict=True))
            perm = [
                n_a + sorted_b.index(pair[i]) if i in pair else a_free.index(i)
                for i in range(a.ndim)
            ]
            ret.append(_cast_if_needed(_transpose_if_needed(ga, perm), a.dtype))
        if 1 in indexes:
            gb = tensordot(a, gy, (tuple(a_free), tuple(range(n_a))))
            pair = dict(zip(self.b_axes, self.a_axes, strict=True))
            perm = [
                sorted_a.index(pair[j])
                if j in pair
                else len(sorted_a) + b_free.index(j)
                for j in range(b.ndim)
            ]
            ret.append(_cast_if_needed(_transpose_if_needed(gb, perm), b.dtype))
        return tuple(ret)


def tensordot(a, b, axes=2):
    """Returns the tensor dot product of two arrays along specified axes.

    This is the same as :func:`numpy.tensordot`: the products of ``a`` and
    ``b`` are summed over the given pairs of axes, and the result has the
    remaining axes of ``a`` followed by those of ``b``.

    Args:
        a (~chainer.Variable or :ref:`ndarray`): The first float operand.
        b (~chainer.Variable or :ref:`ndarray`): The second float operand;
            its float dtype may differ from that of ``a``.
        axes (int or pair of (int or sequence of int)): An int ``N`` sums
            over the last ``N`` axes of ``a`` and the first ``N`` of ``b``;
            a pair ``(a_axes, b_axes)`` sums over ``a_axes[i]`` of ``a``
            paired with ``b_axes[i]`` of ``b``.

    Returns:
        ~chainer.Variable: The tensor dot product, of the dtype NumPy
        promotes the dtypes of ``a`` and ``b`` to.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.ones((3, 4, 5), np.float32)
        >>> b = np.ones((4, 3, 2), np.float32)
        >>> F.tensordot(a, b, axes=((0, 1), (1, 0))).shape
        (5, 2)
    """
    a_axes, b_axes = _normalize_axes(axes, a.ndim, b.ndim)
    (y,) = TensorDot(a_axes, b_axes).apply((a, b))
    return y
