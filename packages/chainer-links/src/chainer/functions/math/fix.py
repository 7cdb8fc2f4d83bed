"""Elementwise rounding towards zero (not differentiable)."""

from chainer import backend
from chainer import utils
from chainer import variable


def fix(x):
    """Elementwise fix function: rounds each element towards zero.

    .. math:: y_i = \\mathrm{sgn}(x_i) \\lfloor |x_i| \\rfloor

    .. note::
       The gradient of this function is ``None`` everywhere: the output is a
       new variable that is not connected to the computational graph.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Real array of any shape.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    if isinstance(x, variable.Variable):
        x = x.array
    elif not backend.is_array_supported(x):
        raise TypeError(f"fix expects an array or a Variable, not {type(x).__name__}")
    xp = backend.get_array_module(x)
    # NOTE: numpy.fix is trunc written in Python; the ufunc is the same for reals.
    return variable.as_variable(utils.force_array(xp.trunc(x), x.dtype))
