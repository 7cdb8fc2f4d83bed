import math

from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.noise import simplified_dropconnect


class SimplifiedDropconnect(link.Link):
    """Fully-connected layer with simplified dropconnect regularization.

    Simplified dropconnect drops weight matrix elements randomly with
    probability ``ratio`` and scales the remaining elements by factor
    ``1 / (1 - ratio)``. It holds a weight matrix ``W`` of shape
    ``(out_size, in_size)`` and, unless ``nobias``, a bias vector ``b`` of
    shape ``(out_size,)``.

    Args:
        in_size (int or None): Dimension of input vectors. If ``None``, the
            weight is initialized at the first forward pass with the size of
            one input example.
        out_size (int): Dimension of output vectors.
        ratio (float): Dropconnect ratio, in ``[0, 1)``.
        nobias (bool): If ``True``, the link has no bias.
        initialW (:ref:`initializer <initializer>`, scalar, array or None):
            Initializer of the weight. If ``None``, weights follow
            :class:`~chainer.initializers.HeNormal` with scale
            :math:`1 / \\sqrt{2}` (the LeCun normal distribution).
        initial_bias (:ref:`initializer <initializer>`, scalar, array or
            None): Initializer of the bias. If ``None``, the bias is zero.

    Attributes:
        W (~chainer.Parameter): Weight parameter.
        b (~chainer.Parameter): Bias parameter, or ``None`` with ``nobias``.

    .. seealso:: :func:`~chainer.functions.simplified_dropconnect`

    See `Regularization of Neural Networks using DropConnect
    <https://cs.nyu.edu/~wanli/dropc/>`_.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.SimplifiedDropconnect(3, 2, initialW=1.0)
        >>> layer(np.ones((1, 3), np.float32), train=False).array
        array([[3., 3.]], dtype=float32)
    """

    def __init__(
        self,
        in_size,
        out_size,
        ratio=0.5,
        nobias=False,
        initialW=None,
        initial_bias=None,
    ):
        super().__init__()
        self.out_size = out_size
        self.ratio = ratio
        if initialW is None:
            initialW = initializers.HeNormal(1.0 / math.sqrt(2))
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if in_size is not None:
                self._initialize_params(in_size)
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = 0
                self.b = variable.Parameter(
                    initializers._get_initializer(initial_bias), out_size
                )

    def _initialize_params(self, in_size):
        self.W.initialize((self.out_size, in_size))

    def forward(self, x, train=True, mask=None, use_batchwise_mask=True):
        """Applies the simplified dropconnect layer.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Batch of input vectors,
                of shape ``(n, ...)``; the axes after the batch axis are
                flattened into one of size ``in_size``.
            train (bool): If ``True``, executes simplified dropconnect;
                otherwise the link works as a linear unit.
            mask (~chainer.Variable, :ref:`ndarray` or None): If ``None``, a
                random mask is drawn. Otherwise a boolean array of shape
                ``(n, out_size, in_size)`` or ``(out_size, in_size)`` keeping
                the weights where it is true; ``use_batchwise_mask`` is then
                ignored. Mainly for debugging.
            use_batchwise_mask (bool): If ``True``, dropped connections depend
                on each sample in the minibatch.

        Returns:
            ~chainer.Variable: Output of shape ``(n, out_size)``.
        """
        if self.W.array is None:
            self._initialize_params(math.prod(x.shape[1:]))
        return simplified_dropconnect.simplified_dropconnect(
            x, self.W, self.b, self.ratio, train, mask, use_batchwise_mask
        )
