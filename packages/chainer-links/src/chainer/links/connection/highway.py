from chainer import link
from chainer.functions.activation import relu
from chainer.functions.activation import sigmoid
from chainer.links.connection import linear


class Highway(link.Chain):
    """Highway module.

    In a highway network, two gates are added to the ordinal non-linear
    transformation :math:`H(x) = activate(W_h x + b_h)`: the transform gate
    :math:`T(x) = \\sigma(W_t x + b_t)` and the carry gate :math:`C(x)`,
    defined for simplicity as :math:`C = 1 - T` (Srivastava et al., *Highway
    Networks*, 2015). The module returns

    .. math::

        y = activate(W_h x + b_h) \\odot \\sigma(W_t x + b_t)
            + x \\odot (1 - \\sigma(W_t x + b_t)).

    The output has the size of the input, so :math:`W_h` and :math:`W_t` are
    square matrices.

    Args:
        in_out_size (int): Dimension of input and output vectors.
        nobias (bool): If ``True``, then this function does not use the
            biases.
        activate (callable): Activation function of the plain array
            (:func:`~chainer.functions.relu` by default;
            :func:`~chainer.functions.tanh` is also common).
        init_Wh (:ref:`initializer <initializer>`): Initializer of the
            weight of the plain array. If ``None``, LeCun normal.
        init_Wt (:ref:`initializer <initializer>`): Initializer of the
            weight of the transform array. If ``None``, LeCun normal.
        init_bh (:ref:`initializer <initializer>`): Initializer of the bias
            of the plain array. If ``None``, zero.
        init_bt (:ref:`initializer <initializer>`): Initializer of the bias
            of the transform array; ``-1`` by default. Negative values are
            recommended by the authors (e.g. -1, -3, ...), so that the
            module starts close to carrying its input through.

    Attributes:
        plain (~chainer.links.Linear): The plain transformation :math:`W_h`.
        transform (~chainer.links.Linear): The transform gate :math:`W_t`.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> L.Highway(4)(np.ones((2, 4), np.float32)).shape
        (2, 4)
    """

    def __init__(
        self,
        in_out_size,
        nobias=False,
        activate=relu.relu,
        init_Wh=None,
        init_Wt=None,
        init_bh=None,
        init_bt=-1,
    ):
        super().__init__()
        self.in_out_size = in_out_size
        self.activate = activate
        with self.init_scope():
            self.plain = linear.Linear(
                in_out_size,
                in_out_size,
                nobias=nobias,
                initialW=init_Wh,
                initial_bias=init_bh,
            )
            self.transform = linear.Linear(
                in_out_size,
                in_out_size,
                nobias=nobias,
                initialW=init_Wt,
                initial_bias=init_bt,
            )

    def forward(self, x):
        """Computes the output of the Highway module.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape ``(n,
                in_out_size)``.

        Returns:
            ~chainer.Variable: Output of the same shape as ``x``.
        """
        h = self.activate(self.plain(x))
        t = sigmoid.sigmoid(self.transform(x))
        return h * t + x * (1 - t)
