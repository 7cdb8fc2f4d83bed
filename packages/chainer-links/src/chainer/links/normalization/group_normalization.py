import copy

import numpy

import chainer
from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.normalization import group_normalization


class GroupNormalization(link.Link):
    """Group normalization layer on outputs of convolution functions.

    This link implements a "group normalization" which divides the channels
    into groups and computes within each group the mean and variance, then
    normalizes by these statistics, scales and shifts them.

    See: `Group Normalization <https://arxiv.org/abs/1803.08494>`_

    Args:
        groups (int): The number of channel groups. This value must be a
            divisor of the number of channels.
        size (int or None): Size of input units (channels). If ``None``, it
            is determined from ``x.shape[1]`` at the first forward pass.
        eps (float): Epsilon value for numerical stability of normalization.
        initial_gamma: Initializer (or scalar or array) of the scaling
            parameter. The default value is 1.
        initial_beta: Initializer (or scalar or array) of the shifting
            parameter. The default value is 0.

    Attributes:
        groups (int): The number of channel groups.
        gamma (~chainer.Parameter): Scaling parameter.
        beta (~chainer.Parameter): Shifting parameter.
        eps (float): Epsilon value for numerical stability of normalization.

    .. seealso:: :func:`~chainer.functions.group_normalization`
    """

    def __init__(
        self, groups, size=None, eps=1e-05, initial_gamma=None, initial_beta=None
    ):
        super().__init__()
        dtype = chainer.get_dtype(None, map_mixed16=numpy.float32)
        self.groups = groups
        self.eps = eps
        with self.init_scope():
            self.gamma = variable.Parameter(_initializer(initial_gamma, 1, dtype))
            self.beta = variable.Parameter(_initializer(initial_beta, 0, dtype))
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size):
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x):
        """Applies group normalization.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Batch tensors of shape
                ``(n, channels, ...)``.

        Returns:
            ~chainer.Variable: Output, same shape and dtype as ``x``.
        """
        if self.gamma.array is None:
            if len(x.shape) < 2:
                raise ValueError(
                    "GroupNormalization needs an input of at least 2 "
                    f"dimensions (batch, channels, ...), got shape {x.shape}"
                )
            self._initialize_params(x.shape[1])
        return group_normalization.group_normalization(
            x, self.groups, self.gamma, self.beta, self.eps
        )


def _initializer(value, default, dtype):
    init = copy.copy(initializers._get_initializer(default if value is None else value))
    init.dtype = dtype
    return init
