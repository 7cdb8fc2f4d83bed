from chainer.functions.activation import elu


def selu(
    x,
    alpha=1.6732632423543772848170429916717,
    scale=1.0507009873554804934193349852946,
):
    """Scaled Exponential Linear Unit function.

    .. math::
        f(x) = \\lambda \\left \\{ \\begin{array}{ll}
        x & {\\rm if}~ x \\ge 0 \\\\
        \\alpha (\\exp(x) - 1) & {\\rm if}~ x < 0,
        \\end{array} \\right.

    where :math:`\\lambda` is ``scale`` and :math:`\\alpha` is ``alpha``.

    See: https://arxiv.org/abs/1706.02515

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.
        alpha (float): Parameter :math:`\\alpha`.
        scale (float): Parameter :math:`\\lambda`.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([-1.0, 0.0, 2.0], np.float32)
        >>> F.selu(x).array
        array([-1.1113307,  0.       ,  2.101402 ], dtype=float32)
    """
    return elu.elu(x, alpha) * float(scale)
