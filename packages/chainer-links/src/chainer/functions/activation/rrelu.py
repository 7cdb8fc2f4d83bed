from chainer import backend
from chainer import function_node
from chainer import utils
from chainer.utils import type_check


class RReLU(function_node.FunctionNode):
    """Randomized leaky ReLU."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, r=None):
        if not 0.0 <= lower < 1.0:
            raise ValueError(f"l must be in the range [0, 1), got {lower}")
        if not 0.0 <= upper < 1.0:
            raise ValueError(f"u must be in the range [0, 1), got {upper}")
        if not lower < upper:
            raise ValueError(f"l must be less than u, got l={lower}, u={upper}")
        self.lower = lower
        self.upper = upper
        self.r = r

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.r is not None:
            type_check.expect(
                type_check.make_variable(self.r.dtype, "r.dtype") == x_type.dtype,
                type_check.make_variable(self.r.shape, "r.shape") == x_type.shape,
            )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        if utils._config_entry("train"):
            if self.r is None:
                r = xp.random.uniform(self.lower, self.upper, x.shape)
                self.r = xp.asarray(r, dtype=x.dtype)
        else:
            # The expected slope replaces the random one at test time.
            self.r = xp.full(x.shape, (self.lower + self.upper) / 2, dtype=x.dtype)
        self.retain_inputs((0,))
        return (xp.where(x >= 0, x, x * self.r),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(gy)
        return (gy * xp.where(x.array >= 0, x.dtype.type(1), self.r),)


def rrelu(x, l=1.0 / 8, u=1.0 / 3, **kwargs):
    """Randomized Leaky Rectified Linear Unit function.

    This function is expressed as

    .. math:: f(x)=\\max(x, rx),

    where :math:`r` is a random number sampled from a uniform distribution
    :math:`U(l, u)` for each element in training mode. In test mode
    (``chainer.config.train`` is ``False``), :math:`r` is the mean
    :math:`(l + u) / 2`.

    See: https://arxiv.org/abs/1505.00853

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.
        l (float): Lower bound of the uniform distribution, in ``[0, 1)``.
        u (float): Upper bound of the uniform distribution, in ``(l, 1)``.
        r (:ref:`ndarray` or None): Keyword only. The random slopes, an array
            of the shape and dtype of ``x``; drawn when None. Used in
            training mode only.
        return_r (bool): Keyword only. If ``True``, the slopes used are
            returned as well.

    Returns:
        ~chainer.Variable or tuple: Output variable of the shape of ``x``; with
        ``return_r=True`` a tuple ``(y, r)`` where ``r`` is the :ref:`ndarray`
        of slopes.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> import chainer.functions as F
        >>> x = np.array([[-1, 0], [2, -3], [-2, 1]], np.float32)
        >>> with chainer.using_config('train', False):
        ...     F.rrelu(x, l=0.2, u=0.4).array.round(4)
        array([[-0.3,  0. ],
               [ 2. , -0.9],
               [-0.6,  1. ]], dtype=float32)
    """
    r = kwargs.pop("r", None)
    return_r = kwargs.pop("return_r", False)
    if kwargs:
        raise TypeError(f"rrelu() got unexpected keyword arguments: {sorted(kwargs)}")
    func = RReLU(l, u, r)
    (y,) = func.apply((x,))
    if return_r:
        return y, func.r
    return y
