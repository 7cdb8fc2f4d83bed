from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.connection import linear


class Linear(link.Link):
    """Linear layer (a.k.a. fully-connected layer).

    Holds a weight matrix ``W`` and, unless ``nobias``, a bias vector ``b``,
    and computes :math:`y = x W^\\top + b` with
    :func:`~chainer.functions.linear`.

    Args:
        in_size (int or None): Dimension of input vectors. If None (or if
            only one size is given, as in ``Linear(out_size)``), it is
            inferred from the first input and ``W`` is initialized then.
        out_size (int): Dimension of output vectors.
        nobias (bool): If ``True``, the layer has no bias.
        initialW (:ref:`initializer`): Initializer (or scalar or array) of
            the weight of shape ``(out_size, in_size)``; None means
            :class:`~chainer.initializers.LeCunNormal`.
        initial_bias (:ref:`initializer`): Initializer (or scalar or array)
            of the bias of shape ``(out_size,)``; None means zero.

    Attributes:
        W (~chainer.Parameter): Weight parameter.
        b (~chainer.Parameter): Bias parameter (None with ``nobias``).
        in_size (int or None): Input dimension, once known.
        out_size (int): Output dimension.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> layer = L.Linear(3)
        >>> layer(np.zeros((2, 5), np.float32)).shape
        (2, 3)
        >>> layer.W.shape
        (3, 5)
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        nobias: bool = False,
        initialW=None,
        initial_bias=None,
    ) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.in_size = in_size
        self.out_size = out_size
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
        self.in_size = in_size
        self.W.initialize((self.out_size, in_size))

    @property
    def printable_specs(self):
        """``(name, value)`` pairs shown in the repr."""
        yield "in_size", self.in_size
        yield "out_size", self.out_size
        yield "nobias", self.b is None

    @classmethod
    def from_params(cls, W, b=None, nobias=False):
        """Builds a Linear layer from existing weight (and bias) arrays.

        Args:
            W (:ref:`ndarray` or ~chainer.Variable): Weight of shape
                ``(out_size, in_size)``; its array becomes the initial value.
            b (:ref:`ndarray` or ~chainer.Variable): Optional bias of shape
                ``(out_size,)``.
            nobias (bool): If ``True``, the layer has no bias (``b`` must be
                None).

        Returns:
            Linear: The new link.
        """
        if nobias and b is not None:
            raise ValueError("b must be None when nobias is True")
        out_size, in_size = W.shape
        return cls(
            in_size,
            out_size,
            nobias,
            initialW=variable.as_array(W),
            initial_bias=None if b is None else variable.as_array(b),
        )

    def forward(self, x, n_batch_axes=1):
        """Applies the layer.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape
                ``(s_1, ..., s_B, ...)``; the axes after the ``n_batch_axes``
                batch axes are flattened into ``in_size`` features.
            n_batch_axes (int): Number of leading batch axes.

        Returns:
            ~chainer.Variable: Output of shape ``(s_1, ..., s_B, out_size)``.
        """
        if self.W.array is None:
            in_size = 1
            for s in x.shape[n_batch_axes:]:
                in_size *= s
            self._initialize_params(in_size)
        return linear.linear(x, self.W, self.b, n_batch_axes=n_batch_axes)
