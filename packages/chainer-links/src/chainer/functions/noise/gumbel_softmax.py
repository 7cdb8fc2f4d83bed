from chainer import backend
from chainer import variable
from chainer.functions.activation import softmax


def gumbel_softmax(log_pi, tau=0.1, axis=1):
    """Gumbel-Softmax sampling function.

    This function draws samples :math:`y_i` from the Gumbel-Softmax
    distribution,

    .. math::
        y_i = {\\exp((g_i + \\log\\pi_i)/\\tau)
        \\over \\sum_{j}\\exp((g_j + \\log\\pi_j)/\\tau)},

    where :math:`\\tau` is a temperature parameter and the :math:`g_i` are
    samples drawn from the Gumbel distribution :math:`Gumbel(0, 1)`. As
    :math:`\\tau` goes to 0 the samples approach one-hot vectors drawn from the
    categorical distribution :math:`\\pi`, while staying differentiable.

    See `Categorical Reparameterization with Gumbel-Softmax
    <https://arxiv.org/abs/1611.01144>`_.

    Args:
        log_pi (~chainer.Variable or :ref:`ndarray`): Input variable
            representing the log-probabilities :math:`\\log\\pi`, a float array
            whose ``axis`` dimension indexes the categories.
        tau (float or ~chainer.Variable): Temperature :math:`\\tau` (positive).
        axis (int): The axis along which the softmax is taken.

    Returns:
        ~chainer.Variable: Output variable of the shape of ``log_pi``. A 0-d
        ``log_pi`` gives the constant ``1``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> log_pi = np.log(np.array([[0.1, 0.6, 0.3]], np.float32))
        >>> y = F.gumbel_softmax(log_pi, tau=0.5)
        >>> y.shape
        (1, 3)
        >>> bool(np.isclose(y.array.sum(), 1))
        True
    """
    data = log_pi.array if isinstance(log_pi, variable.Variable) else log_pi
    xp = backend.get_array_module(data)
    if data.ndim < 1:
        return variable.Variable(xp.ones((), data.dtype))
    g = xp.asarray(xp.random.gumbel(size=data.shape), dtype=data.dtype)
    return softmax.softmax((log_pi + g) / tau, axis=axis)
