"""Elementwise clipping to an interval."""

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class Clip(function_node.FunctionNode):
    """Clips (limits) elements of the input to ``[x_min, x_max]``."""

    def __init__(self, x_min, x_max):
        if x_min is None and x_max is None:
            raise ValueError("at least one of x_min and x_max must be given")
        if x_min is not None and x_max is not None and x_min >= x_max:
            raise ValueError(
                f"x_min must be less than x_max (got x_min={x_min}, x_max={x_max})"
            )
        self.x_min = x_min
        self.x_max = x_max

    @property
    def label(self):
        return "clip"

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        x_min, x_max = self.x_min, self.x_max
        # NOTE: the gradient is 1 at the interval edges, as in Chainer.
        if x_min is None:
            self._mask = x <= x_max
        elif x_max is None:
            self._mask = x >= x_min
        else:
            self._mask = (x >= x_min) & (x <= x_max)
        return (xp.clip(x, x_min, x_max).astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * self._mask,)


def clip(x, x_min, x_max):
    """Clips (limits) elements of the input to an interval.

    Given the interval ``[x_min, x_max]``, elements outside it are set to the
    nearest edge. The gradient is 1 inside the interval, including its edges,
    and 0 outside.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        x_min (float or None): Lower edge; ``None`` leaves values unbounded
            below.
        x_max (float or None): Upper edge, greater than ``x_min``; ``None``
            leaves values unbounded above (not both edges may be ``None``).

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    return Clip(x_min, x_max).apply((x,))[0]
