import numbers

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _is_int(value):
    # NumPy accepts bools as repeat counts, so they are not excluded here.
    return isinstance(value, numbers.Integral)


class Repeat(function_node.FunctionNode):
    """Repetition of each element along an axis."""

    def __init__(self, repeats, axis=None):
        self.repeats = repeats
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        n_repeats = len(self.repeats)
        if self.axis is None:
            if n_repeats != 1:
                type_check.expect(
                    x_type.size == type_check.make_variable(n_repeats, "len(repeats)")
                )
            return
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        if n_repeats != 1:
            type_check.expect(
                x_type.shape[self.axis]
                == type_check.make_variable(n_repeats, "len(repeats)")
            )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        repeats = self.repeats[0] if len(self.repeats) == 1 else self.repeats
        return (xp.repeat(x, repeats, self.axis),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        node = self.inputs[0]
        return RepeatGrad(self.repeats, self.axis, node.shape).apply((gy,))


class RepeatGrad(function_node.FunctionNode):
    """Sum of the gradient over each element's repetitions."""

    def __init__(self, repeats, axis, in_shape):
        self.repeats = repeats
        self.axis = axis
        self.in_shape = in_shape

    def forward(self, inputs):
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        if self.axis is None:
            axis = 0
            n = 1
            for s in self.in_shape:
                n *= s
        else:
            axis = self.axis % len(self.in_shape)
            n = self.in_shape[axis]
        lead = gy.shape[:axis]
        rest = gy.shape[axis + 1 :]
        if len(self.repeats) == 1:
            r = self.repeats[0]
            if r == 0:
                gx = xp.zeros((*lead, n, *rest), gy.dtype)
            else:
                gx = gy.reshape((*lead, n, r, *rest)).sum(axis=axis + 1)
        else:
            # Segment sums of uneven lengths: scatter-add along the axis
            # moved to the front.
            segment = xp.repeat(xp.arange(n), self.repeats)
            gx = xp.zeros((n, *lead, *rest), gy.dtype)
            xp.add.at(gx, segment, xp.moveaxis(gy, axis, 0))
            gx = xp.moveaxis(gx, 0, axis)
        return (gx.reshape(self.in_shape),)

    def backward(self, indexes, grad_outputs):
        (ggx,) = grad_outputs
        return Repeat(self.repeats, self.axis).apply((ggx,))


def repeat(x, repeats, axis=None):
    """Repeats each element of ``x``, as :func:`numpy.repeat`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input array of any shape.
        repeats (int or tuple of ints): How many times each element is
            repeated; one value for all elements, or one per element along
            ``axis``. All zero or larger.
        axis (int or None): Axis along which to repeat. ``None`` repeats the
            elements of the flattened ``x`` and returns a 1-d array.

    Returns:
        ~chainer.Variable: The array with repeated elements.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[0, 1], [2, 3]], np.float32)
        >>> F.repeat(x, 2).array
        array([0., 0., 1., 1., 2., 2., 3., 3.], dtype=float32)
        >>> F.repeat(x, (1, 2), axis=0).array
        array([[0., 1.],
               [2., 3.],
               [2., 3.]], dtype=float32)
    """
    if _is_int(repeats):
        repeats = (int(repeats),)
    elif isinstance(repeats, (tuple, list)) and all(_is_int(r) for r in repeats):
        repeats = tuple(int(r) for r in repeats)
    else:
        raise TypeError(f"repeats must be int or tuple of ints, not {repeats!r}")
    if any(r < 0 for r in repeats):
        raise ValueError(f"all elements in repeats must be zero or larger: {repeats}")
    if axis is not None and (
        not isinstance(axis, numbers.Integral) or isinstance(axis, bool)
    ):
        raise TypeError(f"axis must be int or None, not {axis!r}")
    (y,) = Repeat(repeats, axis).apply((x,))
    return y
