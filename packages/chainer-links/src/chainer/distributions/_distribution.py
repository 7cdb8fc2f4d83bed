"""The ``Distribution`` interface and the KL-divergence registry.

Core re-exports :class:`Distribution`, :func:`kl_divergence`,
:func:`register_kl` and :func:`cross_entropy` as ``chainer.<name>``.
"""

import numbers

import numpy

import chainer
from chainer import backend
from chainer import primitive_ops
from chainer import variable
from chainer.distributions import _math

_Variable = variable.Variable


def _is_array(x):
    if isinstance(x, numpy.ndarray):
        return True
    return not isinstance(x, numpy.generic) and backend.is_array_supported(x)


class Distribution:
    """Interface of probability distributions.

    A distribution holds a batch of independent distributions of the same
    family: its parameters have shape ``batch_shape`` (plus the event
    dimensions), and one draw has shape ``batch_shape + event_shape``.
    Methods and properties return :class:`~chainer.Variable` objects that are
    differentiable with respect to the parameters wherever the formula is.

    Subclasses implement what their family supports; the rest raise a
    :class:`TypeError` naming the family and the member. ``prob``, ``log_cdf``,
    ``log_survival_function``, ``survival_function``, ``perplexity``,
    ``stddev`` and ``sample`` have generic definitions in terms of the others.
    """

    def _unsupported(self, what):
        return TypeError(f"{type(self).__name__} does not implement {what}")

    @property
    def batch_shape(self):
        """tuple of int: Shape of the batch of distributions."""
        raise self._unsupported("batch_shape")

    @property
    def event_shape(self):
        """tuple of int: Shape of one draw of one distribution of the batch."""
        raise self._unsupported("event_shape")

    @property
    def params(self):
        """dict: The parameters of the distribution, by name."""
        raise self._unsupported("params")

    @property
    def support(self):
        """str: A description of the support (e.g. ``'real'``)."""
        raise self._unsupported("support")

    @property
    def xp(self):
        """module: The array module (``numpy`` or ``cupy``) of the parameters."""
        return backend.get_array_module(*self.params.values())

    @property
    def mean(self):
        """~chainer.Variable: The mean, of shape ``batch_shape + event_shape``."""
        raise self._unsupported("mean")

    @property
    def mode(self):
        """~chainer.Variable: The mode, of shape ``batch_shape + event_shape``."""
        raise self._unsupported("mode")

    @property
    def variance(self):
        """~chainer.Variable: The variance, of shape ``batch_shape + event_shape``."""
        raise self._unsupported("variance")

    @property
    def stddev(self):
        """~chainer.Variable: The standard deviation, the root of the variance."""
        return _math.sqrt(self.variance)

    @property
    def covariance(self):
        """~chainer.Variable: The covariance matrix of the flattened event.

        Shape ``batch_shape + (d, d)`` where ``d`` is the event size.
        """
        raise self._unsupported("covariance")

    @property
    def entropy(self):
        """~chainer.Variable: The entropy, of shape ``batch_shape``."""
        raise self._unsupported("entropy")

    def log_prob(self, x):
        """Evaluates the logarithm of the density (or mass) at ``x``.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Points of shape
                ``sample_shape + batch_shape + event_shape``.

        Returns:
            ~chainer.Variable: Log-density of shape ``sample_shape + batch_shape``.
        """
        raise self._unsupported("log_prob")

    def prob(self, x):
        """Evaluates the density (or mass) at ``x``.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Points of shape
                ``sample_shape + batch_shape + event_shape``.

        Returns:
            ~chainer.Variable: Density of shape ``sample_shape + batch_shape``.
        """
        return _math.exp(self.log_prob(x))

    def cdf(self, x):
        """Evaluates the cumulative distribution function at ``x``.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Points of shape
                ``sample_shape + batch_shape``.

        Returns:
            ~chainer.Variable: :math:`P(X \\le x)`, same shape as ``x``.
        """
        raise self._unsupported("cdf")

    def log_cdf(self, x):
        """Evaluates the logarithm of the cumulative distribution function.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Points of shape
                ``sample_shape + batch_shape``.

        Returns:
            ~chainer.Variable: :math:`\\log P(X \\le x)`, same shape as ``x``.
        """
        return _math.log(self.cdf(x))

    def survival_function(self, x):
        """Evaluates the survival function :math:`P(X > x)`.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Points of shape
                ``sample_shape + batch_shape``.

        Returns:
            ~chainer.Variable: :math:`1 - F(x)`, same shape as ``x``.
        """
        return 1.0 - self.cdf(x)

    def log_survival_function(self, x):
        """Evaluates the logarithm of the survival function.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Points of shape
                ``sample_shape + batch_shape``.

        Returns:
            ~chainer.Variable: :math:`\\log P(X > x)`, same shape as ``x``.
        """
        return _math.log(self.survival_function(x))

    def icdf(self, x):
        """Evaluates the inverse of the cumulative distribution function.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Probabilities in
                ``[0, 1]`` of shape ``sample_shape + batch_shape``.

        Returns:
            ~chainer.Variable: The quantiles, same shape as ``x``.
        """
        raise self._unsupported("icdf")

    def perplexity(self, x):
        """Evaluates the perplexity :math:`\\exp(-\\log p(x))` at ``x``.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Points of shape
                ``sample_shape + batch_shape + event_shape``.

        Returns:
            ~chainer.Variable: Perplexity of shape ``sample_shape + batch_shape``.
        """
        return _math.exp(-self.log_prob(x))

    def sample(self, sample_shape=()):
        """Draws samples.

        Args:
            sample_shape (int or tuple of int): Number (or shape) of draws.

        Returns:
            ~chainer.Variable: Samples of shape
            ``sample_shape + batch_shape + event_shape``. Families with a
            reparameterization (Normal, Laplace, ...) return samples
            differentiable with respect to the parameters.
        """
        if isinstance(sample_shape, numbers.Integral):
            sample_shape = (int(sample_shape),)
        sample_shape = tuple(sample_shape)
        n = 1
        for s in sample_shape:
            n *= s
        samples = self.sample_n(n)
        shape = sample_shape + tuple(self.batch_shape) + tuple(self.event_shape)
        return primitive_ops.reshape(samples, shape)

    def sample_n(self, n):
        """Draws ``n`` samples.

        Args:
            n (int): Number of draws.

        Returns:
            ~chainer.Variable: Samples of shape
            ``(n,) + batch_shape + event_shape``.
        """
        raise self._unsupported("sample_n")


_KLDIVERGENCE = {}


def register_kl(Dist1, Dist2):
    """Decorator registering a KL divergence between two distribution types.

    The decorated function takes ``(dist1, dist2)`` and returns
    :math:`D_{KL}(dist1 \\| dist2)`; :func:`kl_divergence` dispatches to it for
    instances of ``Dist1`` and ``Dist2`` (or of their subclasses, when no more
    specific pair is registered).

    Args:
        Dist1 (type): Type of the first (left) operand.
        Dist2 (type): Type of the second (right) operand.

    Returns:
        callable: A decorator that registers the function and returns it
        unchanged.

    Example:
        >>> import chainer
        >>> class Point(chainer.Distribution):
        ...     pass
        >>> @chainer.register_kl(Point, Point)
        ... def _kl_point_point(dist1, dist2):
        ...     return chainer.Variable(numpy.zeros((), numpy.float32))
        >>> chainer.kl_divergence(Point(), Point()).array
        array(0., dtype=float32)
    """

    def decorator(kl):
        _KLDIVERGENCE[Dist1, Dist2] = kl
        return kl

    return decorator


def _lookup_kl(type1, type2):
    best = None
    for (c1, c2), kl in _KLDIVERGENCE.items():
        if issubclass(type1, c1) and issubclass(type2, c2):
            rank = (type1.__mro__.index(c1), type2.__mro__.index(c2))
            if best is None or rank < best[0]:
                best = (rank, kl)
    return None if best is None else best[1]


def kl_divergence(dist1, dist2):
    """Computes the Kullback-Leibler divergence :math:`D_{KL}(p \\| q)`.

    .. math::
        D_{KL}(p \\| q) = \\int p(x) \\log \\frac{p(x)}{q(x)} dx

    (a sum for discrete distributions). Pairs are registered with
    :func:`register_kl`.

    Args:
        dist1 (~chainer.Distribution): The distribution :math:`p`.
        dist2 (~chainer.Distribution): The distribution :math:`q`, with the
            same batch shape as ``dist1``.

    Returns:
        ~chainer.Variable: The divergence, of shape ``batch_shape``.

    Raises:
        TypeError: If no divergence is registered for the pair.
    """
    kl = _KLDIVERGENCE.get((type(dist1), type(dist2)))
    if kl is None:
        kl = _lookup_kl(type(dist1), type(dist2))
        if kl is None:
            raise TypeError(
                "no KL divergence is registered for "
                f"({type(dist1).__name__}, {type(dist2).__name__}); "
                "see chainer.register_kl"
            )
    return kl(dist1, dist2)


def cross_entropy(dist1, dist2):
    """Computes the cross entropy :math:`H(p, q) = H(p) + D_{KL}(p \\| q)`.

    Args:
        dist1 (~chainer.Distribution): The distribution :math:`p`.
        dist2 (~chainer.Distribution): The distribution :math:`q`.

    Returns:
        ~chainer.Variable: The cross entropy, of shape ``batch_shape``.
    """
    return dist1.entropy + kl_divergence(dist1, dist2)


# -- helpers for the distribution families ------------------------------------


def as_param(owner, name, value):
    """Returns a constructor argument as a float Variable.

    Arrays are wrapped without copy; Python scalars become 0-d arrays of the
    default dtype. Raises TypeError for anything else or a non-float dtype.
    """
    if isinstance(value, _Variable):
        v = value
    elif _is_array(value):
        v = variable.as_variable(value)
    elif isinstance(value, numpy.floating):
        v = variable.as_variable(numpy.asarray(value))
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        v = variable.as_variable(numpy.asarray(value, dtype=chainer.get_dtype()))
    else:
        raise TypeError(
            f"{owner}: {name} must be a Variable, an array or a float, "
            f"got {type(value).__name__}"
        )
    if v.dtype.kind != "f":
        raise TypeError(f"{owner}: {name} must have a float dtype, got {v.dtype}")
    return v


def as_params(owner, broadcast=True, **values):
    """Converts several parameters with :func:`as_param`.

    They must share a dtype; with ``broadcast`` they are also broadcast to one
    shape (differentiably). Returns them as a list in argument order.
    """
    named = {k: as_param(owner, k, v) for k, v in values.items()}
    params = list(named.values())
    if len({p.dtype for p in params}) > 1:
        desc = ", ".join(f"{k}: {p.dtype}" for k, p in named.items())
        raise TypeError(f"{owner}: parameters must share one dtype ({desc})")
    if broadcast and len(params) > 1:
        try:
            shape = numpy.broadcast_shapes(*[p.shape for p in params])
        except ValueError:
            desc = ", ".join(f"{k}: {p.shape}" for k, p in named.items())
            raise ValueError(
                f"{owner}: parameter shapes do not broadcast ({desc})"
            ) from None
        params = [
            p if p.shape == shape else primitive_ops.broadcast_to(p, shape)
            for p in params
        ]
    return params


def as_points(x, dtype):
    """Returns points ``x`` (array or Variable) as a Variable of ``dtype``."""
    if isinstance(x, _Variable):
        if x.dtype != dtype:
            return primitive_ops.cast(x, dtype)
        return x
    if not _is_array(x):
        x = numpy.asarray(x)
    return variable.as_variable(x.astype(dtype, copy=False))


def noise(xp, name, shape, dtype, *args):
    """Draws ``xp.random.<name>(*args, size=shape)`` and casts it to ``dtype``."""
    return getattr(xp.random, name)(*args, size=shape).astype(dtype, copy=False)


def full(like, value):
    """An array of ``value`` with the shape, dtype and device of ``like``."""
    like = variable.as_array(like)
    return backend.get_array_module(like).full(like.shape, value, dtype=like.dtype)


def as_indices(x):
    """Returns integer-valued points (array, Variable or list) as an array."""
    x = variable.as_array(x)
    return x if _is_array(x) else numpy.asarray(x)


def category_indices(p, n):
    """Draws ``n`` category indices per distribution by inverting the CDF.

    Args:
        p (:ref:`ndarray`): Probabilities of shape ``batch_shape + (K,)``.
        n (int): Number of draws.

    Returns:
        :ref:`ndarray`: int32 indices of shape ``(n,) + batch_shape``.
    """
    xp = backend.get_array_module(p)
    cum = xp.cumsum(p.astype(numpy.float64), axis=-1)
    u = xp.random.uniform(size=(n, *p.shape[:-1])) * cum[..., -1]
    idx = (u[..., None] >= cum).sum(axis=-1)
    return xp.minimum(idx, p.shape[-1] - 1).astype(numpy.int32)
