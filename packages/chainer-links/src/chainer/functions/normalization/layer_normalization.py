from chainer.functions.normalization import group_normalization
from chainer.utils import type_check


class LayerNormalization(group_normalization.GroupNormalization):
    """Layer normalization: group normalization with one group on 2-d input."""

    def __init__(self, eps=1e-5):
        super().__init__(1, eps)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "gamma", "beta"))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 2,
            gamma_type.ndim == 1,
            gamma_type.dtype == x_type.dtype,
            beta_type.dtype == x_type.dtype,
            gamma_type.shape == beta_type.shape,
            x_type.shape[1] == gamma_type.shape[0],
        )


def layer_normalization(x, gamma, beta, eps=1e-05):
    """Layer normalization.

    This function implements a "layer normalization" which normalizes the
    input units by statistics that are computed along the second axis,
    scales and shifts them.

    .. math::
        y_{ij} = \\gamma_j \\frac{x_{ij} - \\mu_i}{\\sqrt{\\sigma_i^2 +
        \\epsilon}} + \\beta_j

    See: `Layer Normalization <https://arxiv.org/abs/1607.06450>`_

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Batch vectors of shape
            ``(batch_size, unit_size)``, e.g., the output of
            :func:`~chainer.functions.linear`.
        gamma (~chainer.Variable or :ref:`ndarray`): Scaling vectors of shape
            ``(unit_size,)``, same dtype as ``x``.
        beta (~chainer.Variable or :ref:`ndarray`): Shifting vectors of shape
            ``(unit_size,)``, same dtype as ``x``.
        eps (float): Epsilon value for numerical stability.

    Returns:
        ~chainer.Variable: Output, same shape and dtype as ``x``.
    """
    (y,) = LayerNormalization(eps).apply((x, gamma, beta))
    return y
