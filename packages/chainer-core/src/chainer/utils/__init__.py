"""Small utilities shared by functions and links (``chainer.utils``)."""

from __future__ import annotations

import numpy

from chainer import configuration as _configuration

_config_local = _configuration.config._local
_global_config = _configuration.global_config
_MISSING = object()


def force_array(x, dtype=None):
    """Returns ``x`` as an array (0-d NumPy scalars become 0-d arrays).

    Args:
        x: An array or a NumPy scalar.
        dtype: If given, the result has this dtype.
    """
    if numpy.isscalar(x):
        return numpy.asarray(x, dtype=dtype)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def force_type(dtype, value):
    """Casts a scalar or array ``value`` to ``dtype``."""
    if numpy.isscalar(value):
        return numpy.dtype(dtype).type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


def _config_entry(name):
    """``chainer.config.<name>`` for hot paths, at a fifth of its cost.

    Reading an entry through ``LocalConfig.__getattr__`` costs about 7k CPU
    instructions (the normal attribute lookup fails first); functions called
    per op (dropout, batch normalization) read the thread-local and global
    dicts directly. (It lives here rather than in ``configuration``: adding
    it there made unrelated ops 1 % slower through CPython's caches, see
    benchmarks/README.md.)
    """
    value = _config_local.__dict__.get(name, _MISSING)
    if value is _MISSING:
        return getattr(_global_config, name)
    return value


# (value, dtype) -> read-only 0-d NumPy array; see _numpy_constant.
_numpy_constants: dict = {}


def _numpy_constant(value, dtype):
    """A cached, read-only 0-d NumPy array of ``value`` and ``dtype``.

    Hot paths multiply or compare arrays with these instead of Python or
    NumPy scalars: NumPy 1.x casts scalars by value, which on small arrays
    costs more than the operation. The cache is emptied past 64 entries.
    """
    key = (value, dtype)
    array = _numpy_constants.get(key)
    if array is None:
        if len(_numpy_constants) > 64:
            _numpy_constants.clear()
        array = numpy.array(value, dtype)
        array.flags.writeable = False
        _numpy_constants[key] = array
    return array


def size_of_shape(shape):
    """Returns the number of elements of an array of ``shape``."""
    size = 1
    for s in shape:
        size *= s
    return int(size)


def experimental(api_name):
    """Declares that an API is experimental: warns ``FutureWarning`` when used.

    The warning is silenced by ``chainer.disable_experimental_feature_warning
    = True``.

    Args:
        api_name (str): Name of the API, shown in the warning.

    Example:
        >>> import chainer, warnings
        >>> chainer.disable_experimental_feature_warning = True
        >>> chainer.utils.experimental('my_func')  # no warning
        >>> chainer.disable_experimental_feature_warning = False
    """
    import warnings

    import chainer

    if not chainer.disable_experimental_feature_warning:
        warnings.warn(
            f"{api_name} is experimental. The interface can change in the future.",
            FutureWarning,
            stacklevel=2,
        )


class WalkerAlias:
    """Samples integers from a discrete distribution in O(1) (Walker's alias method).

    Args:
        probs (sequence of float): Unnormalized probabilities of ``0 ..
            len(probs) - 1``; non-negative with a positive sum.

    Attributes:
        threshold (:ref:`ndarray`): Acceptance thresholds, float32.
        values (:ref:`ndarray`): Alias table, int32.
        use_gpu (bool): Whether the tables live on a GPU.
    """

    def __init__(self, probs):
        prob = numpy.asarray(probs, dtype=numpy.float64)
        if prob.ndim != 1 or prob.size == 0:
            raise ValueError("probs must be a non-empty 1-d sequence")
        if (prob < 0).any() or not numpy.isfinite(prob).all():
            raise ValueError("probs must be finite and non-negative")
        total = prob.sum()
        if total <= 0:
            raise ValueError("probs must have a positive sum")
        n = prob.size
        scaled = prob * (n / total)
        threshold = numpy.ones(n, dtype=numpy.float64)
        values = numpy.arange(n, dtype=numpy.int32)
        small = [i for i in range(n) if scaled[i] < 1.0]
        large = [i for i in range(n) if scaled[i] >= 1.0]
        while small and large:
            s = small.pop()
            g = large.pop()
            threshold[s] = scaled[s]
            values[s] = g
            scaled[g] -= 1.0 - scaled[s]
            (small if scaled[g] < 1.0 else large).append(g)
        self.threshold = threshold.astype(numpy.float32)
        self.values = values
        self._device = None
        self.use_gpu = False

    @property
    def device(self):
        """The :class:`~chainer.backend.Device` holding the tables."""
        from chainer import backend

        return self._device or backend.CpuDevice()

    def to_device(self, device):
        """Moves the tables to ``device`` (anything ``get_device`` accepts)."""
        from chainer import backend

        dev = backend.get_device(device)
        self.threshold = dev.send(self.threshold)
        self.values = dev.send(self.values)
        self._device = dev
        self.use_gpu = dev.xp is not numpy
        return self

    def to_gpu(self):
        """Moves the tables to the current GPU (needs chainer-cuda)."""
        return self.to_device("@cupy")

    def to_cpu(self):
        """Moves the tables to host memory."""
        return self.to_device("@numpy")

    def use_device(self, device):
        """Moves the tables to ``device`` (legacy name of :meth:`to_device`)."""
        return self.to_device(device)

    def sample(self, shape):
        """Draws samples of the given shape.

        Args:
            shape (tuple of int): Output shape.

        Returns:
            :ref:`ndarray`: int32 samples in ``[0, len(probs))``, on the
            tables' device.
        """
        xp = self.device.xp
        n = len(self.threshold)
        ps = xp.random.uniform(0, 1, shape)
        pb = ps * n
        index = pb.astype(numpy.int32)
        left_right = (self.threshold[index] < (pb - index)).astype(numpy.int32)
        return self.values[index] * left_right + index * (1 - left_right)


def __getattr__(name):
    # Submodules imported on first use keep ``import chainer`` light.
    if name in ("CooMatrix", "to_coo"):
        from chainer.utils import sparse

        return getattr(sparse, name)
    raise AttributeError(f"module 'chainer.utils' has no attribute {name!r}")
