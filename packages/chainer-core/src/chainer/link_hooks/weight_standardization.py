"""``WeightStandardization``: standardizes a link's weight per output unit."""

from __future__ import annotations

import math
import numbers

from chainer import link_hook
from chainer import primitive_ops
from chainer.link_hooks import _weight


class WeightStandardization(link_hook.LinkHook):
    """Weight Standardization (WS) link hook.

    Before every forward pass of the link it is added to, the hook replaces
    the weight by its standardized version: for each output unit (or output
    channel of a convolution) the weights are shifted to mean zero and
    scaled to unit variance,

    .. math:: \\hat W_o = \\frac{W_o - \\mathrm{mean}(W_o)}
              {\\sqrt{\\mathrm{var}(W_o) + \\epsilon}}.

    WS smooths the loss landscape like batch normalization without
    depending on the batch size; it was proposed for convolutions followed
    by group normalization (Qiao et al., *Weight Standardization*, 2019) but
    applies to any link with a weight of two or more dimensions. After the
    forward pass the attribute holds the original
    :class:`~chainer.Parameter` again; gradients flow to it through the
    standardization.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> from chainer import link_hooks
        >>> class Dense(chainer.Link):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(
        ...                 np.arange(6, dtype=np.float32).reshape(2, 3))
        ...     def forward(self, x):
        ...         return x @ self.W.T
        >>> layer = Dense().add_hook(link_hooks.WeightStandardization())
        >>> y = layer(np.ones((1, 3), np.float32))
        >>> bool(abs(y.array).max() < 1e-5)
        True

    Args:
        eps (float): Small value added to the variance for numerical
            stability.
        weight_name (str): Name of the link's weight parameter.
        name (str): Name of this hook (``'WeightStandardization'`` by
            default).

    Attributes:
        axis (int): Axis of the weight indexing the output units.
    """

    name = "WeightStandardization"

    def __init__(self, *, eps=1e-5, weight_name="W", name=None):
        if not isinstance(eps, numbers.Real) or eps < 0:
            raise ValueError(f"eps must be a non-negative number, got {eps!r}")
        if not isinstance(weight_name, str):
            raise TypeError(
                f"weight_name must be a str, got {type(weight_name).__name__}"
            )
        self.eps = eps
        self.weight_name = weight_name
        self.axis = 0
        self._saved_weight = None
        if name is not None:
            self.name = name

    def __enter__(self):
        # A refusal, not a missing feature: the hook keeps per-link state, so
        # it cannot apply to every link at once. NotImplementedError (a
        # RuntimeError) is what Chainer raises here.
        raise NotImplementedError(
            "WeightStandardization cannot be used as a context manager; add it "
            "to a link with link.add_hook(hook)"
        )

    def __exit__(self, *exc_info):
        raise RuntimeError("WeightStandardization cannot be used as a context manager")

    def added(self, link) -> None:
        """Checks that the link has the weight to standardize."""
        _weight.check_weight(type(self).__name__, link, self.weight_name)
        self.axis = _weight.output_axis(link)

    def forward_preprocess(self, cb_args) -> None:
        """Replaces the weight by the standardized one."""
        link = cb_args.link
        weight = _weight.original_weight(link, self.weight_name, self._saved_weight)
        if weight.array is None:
            weight = _weight.initialize_weight(
                type(self).__name__, link, self.weight_name, cb_args
            )
        self._saved_weight = weight
        setattr(link, self.weight_name, self.normalize_weight(link))

    def forward_postprocess(self, cb_args) -> None:
        """Puts the original weight parameter back."""
        setattr(cb_args.link, self.weight_name, self._saved_weight)
        self._saved_weight = None

    def normalize_weight(self, link):
        """Returns the standardized weight of ``link`` as a Variable.

        Args:
            link (~chainer.Link): The link to which this hook is added.

        Returns:
            ~chainer.Variable: The standardized weight, same shape as ``W``.
        """
        W = getattr(link, self.weight_name)
        if W.ndim < 2:
            raise ValueError(
                f"WeightStandardization needs a weight of at least 2 dims, got "
                f"{self.weight_name} of shape {W.shape}"
            )
        axes = tuple(i for i in range(W.ndim) if i != self.axis)
        inv_n = 1.0 / math.prod(W.shape[i] for i in axes)
        mean = primitive_ops.sum(W, axis=axes, keepdims=True) * inv_n
        centered = W - mean
        var = primitive_ops.sum(centered * centered, axis=axes, keepdims=True) * inv_n
        return centered / (var + self.eps) ** 0.5
