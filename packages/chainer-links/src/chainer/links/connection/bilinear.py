from chainer import backend
from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.connection import bilinear


def _check_shape(value, shape, name):
    if backend.is_array_supported(value) and value.shape != shape:
        raise ValueError(f"{name} must have the shape {shape}, got {value.shape}")


class Bilinear(link.Link):
    """Bilinear layer that performs tensor multiplication.

    Bilinear is a primitive link that wraps the
    :func:`~chainer.functions.bilinear` function. It holds the parameters
    ``W``, ``V1``, ``V2`` and ``b`` corresponding to the arguments of
    :func:`~chainer.functions.bilinear`.

    Args:
        left_size (int): Dimension of the input vector :math:`e^1` (:math:`J`).
        right_size (int): Dimension of the input vector :math:`e^2`
            (:math:`K`).
        out_size (int): Dimension of the output vector :math:`y` (:math:`L`).
        nobias (bool): If ``True``, the parameters ``V1``, ``V2`` and ``b``
            are omitted.
        initialW (:ref:`initializer <initializer>`): Initializer of
            :math:`W`, of shape ``(left_size, right_size, out_size)`` when it
            is an array. If ``None``, :math:`W` is drawn from a centred
            Gaussian scaled by the input size (LeCun normal).
        initial_bias (tuple of :ref:`initializer <initializer>`): Initial
            values of :math:`V^1`, :math:`V^2` and :math:`b`, a tuple of
            three initializers (arrays of the shapes ``(left_size,
            out_size)``, ``(right_size, out_size)`` and ``(out_size,)``). If
            ``None``, :math:`V^1` and :math:`V^2` are drawn like :math:`W`
            and :math:`b` is zero.

    .. seealso:: :func:`~chainer.functions.bilinear`

    Attributes:
        W (~chainer.Parameter): Bilinear weight parameter.
        V1 (~chainer.Parameter): Linear weight parameter for the first
            argument (absent with ``nobias``).
        V2 (~chainer.Parameter): Linear weight parameter for the second
            argument (absent with ``nobias``).
        b (~chainer.Parameter): Bias parameter (absent with ``nobias``).

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.Bilinear(3, 4, 5)
        >>> e1 = np.ones((2, 3), np.float32)
        >>> e2 = np.ones((2, 4), np.float32)
        >>> link(e1, e2).shape
        (2, 5)
    """

    def __init__(
        self,
        left_size,
        right_size,
        out_size,
        nobias=False,
        initialW=None,
        initial_bias=None,
    ):
        super().__init__()
        self.in_sizes = (left_size, right_size)
        self.nobias = nobias
        shape = (left_size, right_size, out_size)
        _check_shape(initialW, shape, "initialW")
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW), shape)
            if nobias:
                return
            shapes = ((left_size, out_size), (right_size, out_size), (out_size,))
            if initial_bias is None:
                initial_bias = (None, None, 0)
            elif not isinstance(initial_bias, tuple) or len(initial_bias) != 3:
                raise ValueError(
                    "initial_bias must be a tuple of three initializers or None"
                )
            params = []
            for init, s, name in zip(
                initial_bias, shapes, ("V1", "V2", "b"), strict=True
            ):
                _check_shape(init, s, f"initial value of {name}")
                params.append(
                    variable.Parameter(initializers._get_initializer(init), s)
                )
            self.V1, self.V2, self.b = params

    def forward(self, e1, e2):
        """Applies the bilinear function to inputs and the internal parameters.

        Args:
            e1 (~chainer.Variable or :ref:`ndarray`): Left input of shape
                ``(I, left_size)`` (or ``(I, ...)`` flattening to it).
            e2 (~chainer.Variable or :ref:`ndarray`): Right input of shape
                ``(I, right_size)`` (or ``(I, ...)``).

        Returns:
            ~chainer.Variable: Output of shape ``(I, out_size)``.
        """
        if self.nobias:
            return bilinear.bilinear(e1, e2, self.W)
        return bilinear.bilinear(e1, e2, self.W, self.V1, self.V2, self.b)

    def zero_grads(self):
        """Initializes all gradient arrays by zero (kept for compatibility).

        .. deprecated:: v1.15
           Use :meth:`~chainer.Link.cleargrads` instead.
        """
        self.zerograds()
