from chainer import link
from chainer import variable
from chainer.functions.activation import swish


class Swish(link.Link):
    """Swish activation function as a link.

    It holds the parameter :math:`\\beta` and computes
    :math:`f(x, \\beta) = x \\cdot \\sigma(\\beta x)` with
    :func:`~chainer.functions.swish`.

    Args:
        beta_shape (tuple of ints or None): Shape of the parameter variable
            :math:`\\beta`. If ``None``, the parameter is initialized at the
            first forward pass with the shape of the input without its batch
            axis (``x.shape[1:]``).
        beta_init (float or :ref:`initializer <initializer>`): Initial value
            of the parameter variable :math:`\\beta`.

    See the paper for details: `Searching for Activation Functions
    <https://arxiv.org/abs/1710.05941>`_.

    .. seealso:: :func:`chainer.functions.swish`

    Attributes:
        beta (~chainer.Parameter): Parameter variable :math:`\\beta`.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> L.Swish(None)(np.array([[0.0, 2.0]], np.float32)).array.round(4)
        array([[0.    , 1.7616]], dtype=float32)
    """

    def __init__(self, beta_shape, beta_init=1.0):
        super().__init__()
        with self.init_scope():
            self.beta = variable.Parameter(beta_init, beta_shape)

    def forward(self, x):
        """Applies the Swish activation function.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input variable, of shape
                :math:`(s_B, s_1, ..., s_N)` with :math:`(s_1, ..., s_M)` the
                shape of :math:`\\beta`.

        Returns:
            ~chainer.Variable: Output of the Swish activation function, of the
            shape of ``x``.
        """
        if self.beta.array is None:
            self.beta.initialize(x.shape[1:])
        return swish.swish(x, self.beta)
