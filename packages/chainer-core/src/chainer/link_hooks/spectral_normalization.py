"""``SpectralNormalization``: divides a link's weight by its largest singular value."""

from __future__ import annotations

import numbers

import numpy

from chainer import backend
from chainer import configuration
from chainer import link_hook
from chainer import primitive_ops
from chainer import variable
from chainer.link_hooks import _weight


def _l2normalize(xp, v, eps):
    return v / (xp.linalg.norm(v) + eps)


class SpectralNormalization(link_hook.LinkHook):
    """Spectral Normalization link hook.

    Before every forward pass of the link it is added to, the hook replaces
    the weight :math:`W` by :math:`W / \\sigma(W)`, where the largest singular
    value :math:`\\sigma(W)` is estimated by power iteration (Miyato et al.,
    *Spectral Normalization for Generative Adversarial Networks*, 2018). The
    weight is viewed as a matrix whose rows are the output units (axis 0, or
    axis 1 for deconvolutions). The approximate first left singular vector
    :math:`u` is a persistent value of the link, named :attr:`vector_name`,
    so it is saved with the model; it is updated only in training mode
    (``chainer.config.train``). After the forward pass the attribute holds
    the original :class:`~chainer.Parameter` again; gradients flow to it
    through the normalization.

    Add one hook instance to one link, before setting up the optimizer when
    ``use_gamma`` is ``True`` (so that the new parameter ``gamma`` is
    optimized).

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> from chainer import link_hooks
        >>> class Dense(chainer.Link):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(np.ones((5, 3), np.float32))
        ...     def forward(self, x):
        ...         return x @ self.W.T
        >>> layer = Dense()
        >>> hook = link_hooks.SpectralNormalization()
        >>> _ = layer.add_hook(hook)
        >>> getattr(layer, hook.vector_name).shape
        (5,)
        >>> layer.delete_hook(hook.name)

    Args:
        n_power_iteration (int): Number of power iterations per forward pass.
        eps (float): Small value added to norms for numerical stability.
        use_gamma (bool): If ``True``, a scalar parameter ``gamma``,
            initialized with the largest singular value of the initial weight,
            multiplies the normalized weight.
        factor (float): If given, :math:`\\sigma` is divided by it, i.e. the
            weight is normalized to spectral norm ``factor``.
        weight_name (str): Name of the link's weight parameter.
        name (str): Name of this hook (``'SpectralNormalization'`` by default).

    Attributes:
        vector_name (str): Name of the persistent value :math:`u` registered
            in the link (``weight_name + '_u'``).
        axis (int): Axis of the weight indexing the output units.
    """

    name = "SpectralNormalization"

    def __init__(
        self,
        n_power_iteration=1,
        eps=1e-6,
        use_gamma=False,
        factor=None,
        weight_name="W",
        name=None,
    ):
        if (
            isinstance(n_power_iteration, bool)
            or not isinstance(n_power_iteration, numbers.Integral)
            or n_power_iteration <= 0
        ):
            raise ValueError(
                f"n_power_iteration must be a positive int, got {n_power_iteration!r}"
            )
        if not isinstance(weight_name, str):
            raise TypeError(
                f"weight_name must be a str, got {type(weight_name).__name__}"
            )
        self.n_power_iteration = int(n_power_iteration)
        self.eps = eps
        self.use_gamma = use_gamma
        self.factor = factor
        self.weight_name = weight_name
        self.vector_name = weight_name + "_u"
        self.axis = 0
        self.v = None
        self._initialized = False
        self._saved_weight = None
        if name is not None:
            self.name = name

    def __enter__(self):
        # A refusal, not a missing feature: the hook keeps per-link state, so
        # it cannot apply to every link at once. NotImplementedError (a
        # RuntimeError) is what Chainer raises here.
        raise NotImplementedError(
            "SpectralNormalization cannot be used as a context manager; add it "
            "to a link with link.add_hook(hook)"
        )

    def __exit__(self, *exc_info):
        raise RuntimeError("SpectralNormalization cannot be used as a context manager")

    def added(self, link) -> None:
        """Checks the weight and, if it is initialized, registers ``u``."""
        _weight.check_weight(type(self).__name__, link, self.weight_name)
        self.axis = _weight.output_axis(link)
        if getattr(link, self.weight_name).array is not None:
            self._prepare_parameters(link)

    def deleted(self, link) -> None:
        """Removes ``u`` (and ``gamma``) from the link."""
        if self._initialized:
            delattr(link, self.vector_name)
            if self.use_gamma:
                del link.gamma
        self._initialized = False
        self.v = None

    def forward_preprocess(self, cb_args) -> None:
        """Replaces the weight by the spectrally normalized one."""
        link = cb_args.link
        weight = _weight.original_weight(link, self.weight_name, self._saved_weight)
        if weight.array is None:
            weight = _weight.initialize_weight(
                type(self).__name__, link, self.weight_name, cb_args
            )
        if not self._initialized:
            self._prepare_parameters(link)
        self._saved_weight = weight
        setattr(link, self.weight_name, self.normalize_weight(link))

    def forward_postprocess(self, cb_args) -> None:
        """Puts the original weight parameter back."""
        setattr(cb_args.link, self.weight_name, self._saved_weight)
        self._saved_weight = None

    def _prepare_parameters(self, link) -> None:
        weight = getattr(link, self.weight_name)
        n_out = weight.shape[self.axis] if weight.ndim > self.axis else 0
        if weight.ndim < 2 or n_out == 0:
            raise ValueError(
                f"SpectralNormalization needs a weight of at least 2 dims with "
                f"{self.weight_name}.shape[{self.axis}] > 0, got shape {weight.shape}"
            )
        xp = backend.get_array_module(weight.array)
        u = xp.random.normal(size=(n_out,)).astype(weight.dtype)
        setattr(link, self.vector_name, u)
        link.register_persistent(self.vector_name)
        if self.use_gamma:
            matrix = self.reshape_W(weight.array)
            # SVD has no float16 kernel; the value is only an initial scale.
            s = xp.linalg.svd(matrix.astype(numpy.float32), compute_uv=False)
            with link.init_scope():
                link.gamma = variable.Parameter(s[:1].reshape(()).astype(weight.dtype))
        self._initialized = True

    def reshape_W(self, W):
        """Reshapes the weight (array or Variable) into a 2-d matrix.

        The output axis becomes the rows; the other axes are flattened into
        the columns.

        Args:
            W: Weight array or :class:`~chainer.Variable`.

        Returns:
            A 2-d array or Variable.
        """
        if self.axis != 0:
            axes = [self.axis] + [i for i in range(W.ndim) if i != self.axis]
            W = W.transpose(axes)
        if W.ndim == 2:
            return W
        return W.reshape(W.shape[0], -1)

    def _uv_in_weight_layout(self, u, v, shape):
        # u (W v) summed elementwise equals sum(W * outer(u, v)) in W's layout.
        xp = backend.get_array_module(u)
        outer = xp.outer(u, v)
        if self.axis == 0:
            return outer.reshape(shape)
        axes = [self.axis] + [i for i in range(len(shape)) if i != self.axis]
        outer = outer.reshape(tuple(shape[a] for a in axes))
        return outer.transpose(numpy.argsort(axes))

    def normalize_weight(self, link):
        """Returns the spectrally normalized weight of ``link`` as a Variable.

        In training mode the persistent vector ``u`` is updated in place.

        Args:
            link (~chainer.Link): The link to which this hook is added.

        Returns:
            ~chainer.Variable: ``W / sigma`` (times ``gamma`` if used).
        """
        W = getattr(link, self.weight_name)
        u = getattr(link, self.vector_name)
        matrix = self.reshape_W(W.array)
        recomputing = getattr(configuration.config, "in_recomputing", False)
        if recomputing and self.v is not None:
            new_u, v = u, self.v
        else:
            xp = backend.get_array_module(matrix)
            new_u = u
            for _ in range(self.n_power_iteration):
                v = _l2normalize(xp, new_u @ matrix, self.eps)
                new_u = _l2normalize(xp, matrix @ v, self.eps)
        # sigma = u^T W v; u and v are constants, so gradients reach W only.
        sigma = primitive_ops.sum(W * self._uv_in_weight_layout(new_u, v, W.shape))
        if self.factor is not None:
            sigma = sigma / self.factor
        normalized = W / sigma
        if self.use_gamma:
            normalized = link.gamma * normalized
        if not recomputing:
            self.v = v
            if configuration.config.train:
                backend.copyto(u, new_u)
        return normalized
