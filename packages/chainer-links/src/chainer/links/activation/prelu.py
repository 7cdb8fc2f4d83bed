from chainer import link
from chainer import variable
from chainer.functions.activation import prelu


class PReLU(link.Link):
    """Parametric ReLU function as a link.

    It holds the slope ``W`` of the negative part as a parameter and calls
    :func:`~chainer.functions.prelu`. When combined with a convolution,
    ``shape`` is typically the channel shape, so that each filter shares one
    slope over all pixels.

    Args:
        shape (tuple of ints): Shape of the parameter array; ``x.shape`` must
            have it right after the batch axis.
        init (float or :ref:`initializer <initializer>`): Initial value of
            the parameter.

    See the paper for details: `Delving Deep into Rectifiers: Surpassing
    Human-Level Performance on ImageNet Classification
    <https://arxiv.org/abs/1502.01852>`_.

    .. seealso:: :func:`chainer.functions.prelu`

    Attributes:
        W (~chainer.Parameter): Coefficient of parametric ReLU.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> L.PReLU()(np.array([[-2.0, 1.0]], np.float32)).array
        array([[-0.5,  1. ]], dtype=float32)
    """

    def __init__(self, shape=(), init=0.25):
        super().__init__()
        with self.init_scope():
            self.W = variable.Parameter(init, shape)

    def forward(self, x):
        """Applies the parametric ReLU activation function.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input variable whose
                ``shape[1:1 + W.ndim]`` is ``W.shape``.

        Returns:
            ~chainer.Variable: Output of the parametric ReLU function, of the
            shape of ``x``.
        """
        return prelu.prelu(x, self.W)
