from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _as_axes(axes, name):
    if isinstance(axes, int) and not isinstance(axes, bool):
        return (axes,)
    try:
        axes = tuple(axes)
    except TypeError:
        raise TypeError(
            f"moveaxis: {name} must be an int or a sequence of ints, got {axes!r}"
        ) from None
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise TypeError(f"moveaxis: {name} must contain ints only, got {axes!r}")
    return axes


class Moveaxis(function_node.FunctionNode):
    """Moves axes to new positions, keeping the others in order."""

    def __init__(self, source, destination):
        self.source = _as_axes(source, "source")
        self.destination = _as_axes(destination, "destination")
        if len(self.source) != len(self.destination):
            raise ValueError(
                "moveaxis: source and destination must have the same number of "
                f"elements, got {self.source} and {self.destination}"
            )

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        for name, axes in (("source", self.source), ("destination", self.destination)):
            for a in axes:
                axis = type_check.make_variable(a, name)
                if a >= 0:
                    type_check.expect(axis < x_type.ndim)
                else:
                    type_check.expect(-axis - 1 < x_type.ndim)
        ndim = type_check.eval(x_type.ndim)
        for name, axes in (("source", self.source), ("destination", self.destination)):
            if len({a % ndim for a in axes}) != len(axes):
                # A ValueError, as numpy.moveaxis raises.
                raise ValueError(
                    f"moveaxis: repeated axis in {name} {axes} (x.ndim={ndim})"
                )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        return (xp.moveaxis(x, self.source, self.destination),)

    def backward(self, indexes, grad_outputs):
        return Moveaxis(self.destination, self.source).apply(grad_outputs)


def moveaxis(x, source, destination):
    """Moves the source axes to the destination.

    Like :func:`numpy.moveaxis`; the axes not moved keep their order.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        source (int or tuple of ints): Original positions of the axes to
            move; they must be distinct.
        destination (int or tuple of ints): New positions of those axes, as
            many as ``source``; they must be distinct.

    Returns:
        ~chainer.Variable: Variable with the axes moved.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.zeros((2, 3, 4, 5), np.float32)
        >>> F.moveaxis(x, 0, -1).shape
        (3, 4, 5, 2)
        >>> F.moveaxis(x, (0, 1), (-1, -2)).shape
        (4, 5, 3, 2)
    """
    (y,) = Moveaxis(source, destination).apply((x,))
    return y
