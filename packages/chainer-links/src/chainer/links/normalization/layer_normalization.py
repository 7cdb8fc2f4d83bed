from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.normalization import layer_normalization
from chainer.utils import type_check


class LayerNormalization(link.Link):
    """Layer normalization layer on outputs of linear functions.

    This link implements a "layer normalization" layer which normalizes the
    input units by statistics that are computed along the second axis,
    scales and shifts them. Parameter initialization will be deferred until
    the first forward data pass at which time the size will be determined.

    See: `Layer Normalization <https://arxiv.org/abs/1607.06450>`_

    Args:
        size (int or None): Size of input units. If ``None``, it is
            determined from the input at the first forward pass.
        eps (float): Epsilon value for numerical stability of normalization.
        initial_gamma: Initializer (or scalar or array) of the scaling
            vector. The default value is 1.
        initial_beta: Initializer (or scalar or array) of the shifting
            vector. The default value is 0.

    Attributes:
        gamma (~chainer.Parameter): Scaling parameter.
        beta (~chainer.Parameter): Shifting parameter.
        eps (float): Epsilon value for numerical stability.

    .. seealso:: :func:`~chainer.functions.layer_normalization`
    """

    def __init__(self, size=None, eps=1e-06, initial_gamma=None, initial_beta=None):
        super().__init__()
        self.eps = eps
        with self.init_scope():
            self.gamma = variable.Parameter(
                initializers._get_initializer(
                    1 if initial_gamma is None else initial_gamma
                )
            )
            self.beta = variable.Parameter(
                initializers._get_initializer(
                    0 if initial_beta is None else initial_beta
                )
            )
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size):
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x):
        """Applies layer normalization to given input.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Batch vectors of shape
                ``(batch_size, unit_size)``.

        Returns:
            ~chainer.Variable: Output, same shape and dtype as ``x``.
        """
        if self.gamma.array is None:
            if len(x.shape) != 2:
                # The same error the function's type check gives, before
                # the parameters take a shape from a bad input.
                raise type_check.InvalidType(
                    "x.ndim == 2 (LayerNormalization takes (batch_size, unit_size))",
                    f"x.shape == {tuple(x.shape)}",
                )
            self._initialize_params(x.shape[1])
        return layer_normalization.layer_normalization(
            x, self.gamma, self.beta, self.eps
        )
