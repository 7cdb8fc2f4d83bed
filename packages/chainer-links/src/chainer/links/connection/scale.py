import chainer
from chainer import link
from chainer import variable
from chainer.functions.math import scale
from chainer.links.connection import bias


def _argc_error(message):
    # Chainer checks the number of inputs with an assertion in debug mode.
    if chainer.is_debug():
        return AssertionError(message)
    return TypeError(message)


class Scale(link.Chain):
    """Broadcasted elementwise product with learnable parameters.

    Computes an elementwise product as :func:`~chainer.functions.scale`
    does, except that its second input is a learnable weight parameter ``W``
    the link holds (when ``W_shape`` is given), optionally followed by a
    learnable :class:`~chainer.links.Bias`.

    Args:
        axis (int): The first axis of the first input of
            :func:`~chainer.functions.scale` along which its second input is
            applied.
        W_shape (tuple of ints): Shape of the learnable weight parameter
            (ones initially). If ``None``, this link does not have a
            learnable weight, so an explicit weight must be given as the
            second input of the call.
        bias_term (bool): Whether to add a learnable bias after scaling.
        bias_shape (tuple of ints): Shape of the learnable bias; used (and
            required) only when ``W_shape`` is ``None`` and ``bias_term`` is
            ``True``; otherwise the bias has the shape ``W_shape``.

    .. seealso:: :func:`~chainer.functions.scale`

    Attributes:
        W (~chainer.Parameter): Weight parameter if ``W_shape`` is given;
            otherwise the link has no such attribute.
        bias (~chainer.links.Bias): Bias term if ``bias_term`` is ``True``;
            otherwise the link has no such attribute.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.Scale(W_shape=(2,), bias_term=True)
        >>> link.W.array[:] = [2, 3]
        >>> link.bias.b.array[:] = [1, 1]
        >>> link(np.ones((1, 2), np.float32)).array
        array([[3., 4.]], dtype=float32)
    """

    def __init__(self, axis=1, W_shape=None, bias_term=False, bias_shape=None):
        super().__init__()
        self.axis = axis
        with self.init_scope():
            if W_shape is not None:
                self.W = variable.Parameter(1, W_shape)
                if bias_term:
                    self.bias = bias.Bias(axis, W_shape)
            elif bias_term:
                if bias_shape is None:
                    raise ValueError(
                        "bias_shape should be given if W is not learnt "
                        "parameter and bias_term is True."
                    )
                self.bias = bias.Bias(axis, bias_shape)

    def forward(self, *xs):
        """Applies broadcasted elementwise product (and the bias term).

        Args:
            xs (list of ~chainer.Variable or :ref:`ndarray`): The input
                ``x``, and the weight ``y`` when the link has no parameter
                ``W``; ``y.shape`` matches ``x.shape[axis:axis + y.ndim]``.

        Returns:
            ~chainer.Variable: Same shape and dtype as ``x``.
        """
        W = getattr(self, "W", None)
        if W is not None:
            if len(xs) != 1:
                raise _argc_error(
                    f"Scale with a weight parameter takes one input, got {len(xs)}"
                )
            z = scale.scale(xs[0], W, self.axis)
        else:
            if len(xs) != 2:
                raise _argc_error(
                    "Scale without a weight parameter (W_shape=None) takes the "
                    f"input and the weight, got {len(xs)} inputs"
                )
            z = scale.scale(xs[0], xs[1], self.axis)
        if hasattr(self, "bias"):
            return self.bias(z)
        return z
