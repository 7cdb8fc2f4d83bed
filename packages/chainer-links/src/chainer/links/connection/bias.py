import chainer
from chainer import link
from chainer import variable
from chainer.functions.math import bias


def _argc_error(message):
    # Chainer checks the number of inputs with an assertion in debug mode.
    if chainer.is_debug():
        return AssertionError(message)
    return TypeError(message)


class Bias(link.Link):
    """Broadcasted elementwise summation with learnable parameters.

    Computes an elementwise summation as :func:`~chainer.functions.bias`
    does, except that its second input is a learnable bias parameter ``b``
    the link holds (when ``shape`` is given).

    Args:
        axis (int): The first axis of the first input of
            :func:`~chainer.functions.bias` along which its second input is
            applied.
        shape (tuple of ints): Shape of the learnable bias parameter. If
            ``None``, this link does not have learnable parameters, so an
            explicit bias must be given as the second input of the call.

    .. seealso:: :func:`~chainer.functions.bias`

    Attributes:
        b (~chainer.Parameter): Bias parameter if ``shape`` is given (zeros
            initially); otherwise the link has no such attribute.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.Bias(shape=(2,))
        >>> link.b.array[:] = [1, 2]
        >>> link(np.zeros((3, 2), np.float32)).array
        array([[1., 2.],
               [1., 2.],
               [1., 2.]], dtype=float32)
    """

    def __init__(self, axis=1, shape=None):
        super().__init__()
        if shape is not None:
            with self.init_scope():
                self.b = variable.Parameter(0, shape)
        self.axis = axis

    def forward(self, *xs):
        """Applies broadcasted elementwise summation.

        Args:
            xs (list of ~chainer.Variable or :ref:`ndarray`): The input
                ``x``, and the bias ``y`` when the link has no parameter
                ``b``; ``y.shape`` matches ``x.shape[axis:axis + y.ndim]``.

        Returns:
            ~chainer.Variable: Same shape and dtype as ``x``.
        """
        b = getattr(self, "b", None)
        if b is not None:
            # NOTE: a second input would silently replace the parameter.
            if len(xs) != 1:
                raise _argc_error(
                    f"Bias with a bias parameter takes one input, got {len(xs)}"
                )
            return bias.bias(xs[0], b, self.axis)
        if len(xs) != 2:
            raise _argc_error(
                "Bias without a bias parameter (shape=None) takes the input "
                f"and the bias, got {len(xs)} inputs"
            )
        return bias.bias(xs[0], xs[1], self.axis)
