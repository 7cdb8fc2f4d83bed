from chainer import backend
from chainer import function_node
from chainer import utils
from chainer import variable
from chainer.utils import type_check


class Zoneout(function_node.FunctionNode):
    """Zoneout: keeps each unit's previous state at random."""

    def __init__(self, zoneout_ratio):
        if not 0.0 <= zoneout_ratio <= 1.0:
            raise ValueError(
                f"zoneout ratio must be in the range [0, 1], got {zoneout_ratio}"
            )
        self.zoneout_ratio = zoneout_ratio

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("h", "x"))
        h_type, x_type = in_types
        type_check.expect(
            h_type.dtype.kind == "f",
            x_type.dtype == h_type.dtype,
            x_type.shape == h_type.shape,
        )

    def forward(self, inputs):
        h, x = inputs
        xp = backend.get_array_module(x)
        one = x.dtype.type(1)
        # rand() without a shape draws a Python float: asarray keeps 0-d
        # inputs arrays.
        flag_x = xp.asarray(xp.random.rand(*x.shape)) >= self.zoneout_ratio
        self.flag_x = flag_x * one
        self.flag_h = (~flag_x) * one
        return (xp.where(flag_x, x, h),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(gy * self.flag_h)
        if 1 in indexes:
            ret.append(gy * self.flag_x)
        return tuple(ret)


def zoneout(h, x, ratio=0.5, **kwargs):
    """Zoneout regularization function.

    This function randomly keeps elements of the previous state ``h``
    ("zones them out") with probability ``ratio`` and takes the new state
    ``x`` elsewhere:

    .. math:: y = m \\odot h + (1 - m) \\odot x, \\qquad m_i \\sim
        \\mathrm{Bernoulli}(\\mathrm{ratio}).

    In testing mode (``chainer.config.train`` is ``False``), it returns ``x``.

    See the paper: `Zoneout: Regularizing RNNs by Randomly Preserving Hidden
    Activations <https://arxiv.org/abs/1606.01305>`_.

    Args:
        h (~chainer.Variable or :ref:`ndarray`): Previous variable, a float
            array.
        x (~chainer.Variable or :ref:`ndarray`): Input variable, of the shape
            and dtype of ``h``.
        ratio (float): Zoneout ratio, in ``[0, 1]``.

    Returns:
        ~chainer.Variable: Output variable of the shape of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> import chainer.functions as F
        >>> h = np.zeros((2, 3), np.float32)
        >>> x = np.ones((2, 3), np.float32)
        >>> y = F.zoneout(h, x, ratio=0.3)
        >>> bool(np.all((y.array == 0) | (y.array == 1)))
        True
        >>> with chainer.using_config('train', False):
        ...     F.zoneout(h, x).array
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    if "train" in kwargs:
        raise ValueError(
            "train argument is not supported anymore. "
            "Use chainer.using_config('train', ...)"
        )
    if kwargs:
        raise TypeError(f"zoneout() got unexpected keyword arguments: {sorted(kwargs)}")
    if utils._config_entry("train"):
        (y,) = Zoneout(ratio).apply((h, x))
        return y
    return variable.as_variable(x)
