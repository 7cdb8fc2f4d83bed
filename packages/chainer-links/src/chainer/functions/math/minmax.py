import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check

_INT_TYPES = (int, numpy.integer)


def _check_axis_in_range(axis, x_type):
    if axis >= 0:
        type_check.expect(axis < x_type.ndim)
    else:
        type_check.expect(-axis - 1 < x_type.ndim)


class SelectorBase(function_node.FunctionNode):
    """Base of :class:`Max` and :class:`Min` (reduction by selection)."""

    _select = None

    def __init__(self, axis=None, keepdims=False):
        self.keepdims = keepdims
        if axis is None:
            self.axis = None
        elif isinstance(axis, _INT_TYPES):
            self.axis = (int(axis),)
        elif isinstance(axis, tuple) and all(isinstance(a, _INT_TYPES) for a in axis):
            if len(set(axis)) != len(axis):
                raise ValueError(f"duplicate value in axis: {axis}")
            self.axis = axis
        else:
            raise TypeError("None, int or tuple of int are required")

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.axis is not None:
            for axis in self.axis:
                _check_axis_in_range(axis, x_type)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return (getattr(xp, self._select)(x, axis=self.axis, keepdims=self.keepdims),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        x = x.array
        y = y.array
        if not self.keepdims:
            kept = _kept_shape(x.shape, self.axis)
            y = y.reshape(kept)
            gy = primitive_ops.reshape(gy, kept)
        # NOTE: every element equal to the extremum gets the full gradient,
        # as in Chainer; ties are not split.
        cond = (x == y).astype(x.dtype)
        return (primitive_ops.broadcast_to(gy, x.shape) * cond,)


def _kept_shape(shape, axis):
    ndim = len(shape)
    if axis is None:
        return (1,) * ndim
    axes = {a % ndim for a in axis}
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


class Max(SelectorBase):
    """Maximum over axes."""

    _select = "amax"


class Min(SelectorBase):
    """Minimum over axes."""

    _select = "amin"


def max(x, axis=None, keepdims=False):
    """Maximum of array elements over a given axis.

    The gradient flows to every element equal to the maximum.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array to be maximized,
            of any shape.
        axis (None, int, or tuple of int): Axis over which a max is performed.
            The default (``None``) reduces all the dimensions.
        keepdims (bool): If ``True``, the reduced axes are kept with length
            one.

    Returns:
        ~chainer.Variable: Output variable of the reduced shape and the dtype
        of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 5, 2], [4, 0, 3]], np.float32)
        >>> F.max(x, axis=1).array
        array([5., 4.], dtype=float32)
    """
    (y,) = Max(axis, keepdims).apply((x,))
    return y


def min(x, axis=None, keepdims=False):
    """Minimum of array elements over a given axis.

    The gradient flows to every element equal to the minimum.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array to be minimized,
            of any shape.
        axis (None, int, or tuple of int): Axis over which a min is performed.
            The default (``None``) reduces all the dimensions.
        keepdims (bool): If ``True``, the reduced axes are kept with length
            one.

    Returns:
        ~chainer.Variable: Output variable of the reduced shape and the dtype
        of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 5, 2], [4, 0, 3]], np.float32)
        >>> F.min(x, axis=0).array
        array([1., 0., 2.], dtype=float32)
    """
    (y,) = Min(axis, keepdims).apply((x,))
    return y


class IndexSelectorBase(function_node.FunctionNode):
    """Base of :class:`ArgMax` and :class:`ArgMin` (not differentiable)."""

    _select = None

    def __init__(self, axis=None):
        if axis is None or isinstance(axis, _INT_TYPES):
            self.axis = None if axis is None else int(axis)
        else:
            raise TypeError("None or int are required")

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.axis is not None:
            _check_axis_in_range(self.axis, x_type)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        y = getattr(xp, self._select)(x, axis=self.axis)
        return (xp.asarray(y, dtype=numpy.int32),)

    def backward(self, indexes, grad_outputs):
        return (None,)


class ArgMax(IndexSelectorBase):
    """Index of the maximum."""

    _select = "argmax"


class ArgMin(IndexSelectorBase):
    """Index of the minimum."""

    _select = "argmin"


def argmax(x, axis=None):
    """Returns the index of the maximum of array elements over a given axis.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array whose maximum
            elements are looked for.
        axis (None or int): Axis over which the maximum is looked for. The
            default (``None``) looks over the flattened array.

    Returns:
        ~chainer.Variable: ``int32`` indices, of the shape of ``x`` without
        ``axis`` (0-d when ``axis`` is ``None``). Not differentiable.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 5, 2], [4, 0, 3]], np.float32)
        >>> F.argmax(x, axis=1).array
        array([1, 0], dtype=int32)
    """
    (y,) = ArgMax(axis).apply((x,))
    return y


def argmin(x, axis=None):
    """Returns the index of the minimum of array elements over a given axis.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array whose minimum
            elements are looked for.
        axis (None or int): Axis over which the minimum is looked for. The
            default (``None``) looks over the flattened array.

    Returns:
        ~chainer.Variable: ``int32`` indices, of the shape of ``x`` without
        ``axis`` (0-d when ``axis`` is ``None``). Not differentiable.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[1, 5, 2], [4, 0, 3]], np.float32)
        >>> F.argmin(x).array
        array(4, dtype=int32)
    """
    (y,) = ArgMin(axis).apply((x,))
    return y
