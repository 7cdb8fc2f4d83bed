"""Walker's alias method: O(1) sampling from a discrete distribution."""

from __future__ import annotations

import numpy

from chainer import backend


class WalkerAlias:
    """Samples integers from a discrete distribution with Walker's alias method.

    The table is built once in O(n); each sample then costs O(1): pick a slot
    uniformly, and either keep it or take its alias. It works on any device
    (NumPy or a GPU backend); :func:`chainer.functions.negative_sampling`
    uses it to draw negative examples.

    Args:
        probs (sequence of float): Unnormalised probabilities of ``0 ..
            len(probs) - 1``; non-negative with a positive sum. They are
            normalised by their sum.

    Attributes:
        threshold (:ref:`ndarray`): Per slot, the probability (float32) of
            keeping the slot's own value.
        values (:ref:`ndarray`): int32 array of length ``2 * len(probs)``:
            ``values[2 * i]`` is slot ``i``'s own value, ``values[2 * i + 1]``
            its alias.

    Example:
        >>> import numpy as np
        >>> from chainer import utils
        >>> np.random.seed(0)
        >>> sampler = utils.WalkerAlias([0.1, 0.0, 0.9])
        >>> s = sampler.sample((1000,))
        >>> s.dtype, bool((s != 1).all()), bool(0.85 < (s == 2).mean() < 0.95)
        (dtype('int32'), True, True)

    See: `Alias method <https://en.wikipedia.org/wiki/Alias_method>`_.
    """

    def __init__(self, probs):
        prob = numpy.asarray(probs, dtype=numpy.float64)
        if prob.ndim != 1 or prob.size == 0:
            raise ValueError("probs must be a non-empty 1-d sequence")
        if not numpy.isfinite(prob).all() or (prob < 0).any():
            raise ValueError("probs must be finite and non-negative")
        total = prob.sum()
        if total <= 0:
            raise ValueError("probs must have a positive sum")
        n = prob.size
        scaled = prob * (n / total)
        threshold = numpy.ones(n, dtype=numpy.float64)
        values = numpy.repeat(numpy.arange(n, dtype=numpy.int32), 2)
        small = [i for i in range(n) if scaled[i] < 1.0]
        large = [i for i in range(n) if scaled[i] >= 1.0]
        # Vose's variant: each slot of a value below the mean is topped up by
        # one above it, whose remaining mass goes back to a worklist.
        while small and large:
            s = small.pop()
            g = large.pop()
            threshold[s] = scaled[s]
            values[2 * s + 1] = g
            scaled[g] -= 1.0 - scaled[s]
            (small if scaled[g] < 1.0 else large).append(g)
        # Slots left over hold (up to rounding) exactly the mean: keep them.
        self.threshold = threshold.astype(numpy.float32)
        self.values = values
        self._device = backend.CpuDevice()

    @property
    def device(self):
        """The :class:`~chainer.backend.Device` holding the tables."""
        return self._device

    @property
    def use_gpu(self):
        """Whether the tables are on a CUDA device (legacy; see :attr:`device`)."""
        xp = self._device.xp
        if xp is numpy:
            return False
        if getattr(xp, "__name__", None) == "cupy":
            return True
        raise RuntimeError(
            "WalkerAlias.use_gpu attribute is only applicable for numpy or "
            "cupy devices. Use WalkerAlias.device attribute for general devices."
        )

    def to_device(self, device):
        """Moves the tables to ``device`` (anything ``chainer.get_device`` accepts).

        Returns:
            WalkerAlias: ``self``.
        """
        device = backend.get_device(device)
        self.threshold = device.send(self.threshold)
        self.values = device.send(self.values)
        self._device = device
        return self

    def to_gpu(self):
        """Moves the tables to the current CUDA device (needs chainer-cuda)."""
        from chainer.backends import cuda

        cuda.check_cuda_available()
        return self.to_device(cuda.Device())

    def to_cpu(self):
        """Moves the tables to host memory."""
        return self.to_device(backend.CpuDevice())

    def sample(self, shape):
        """Draws samples.

        Args:
            shape (tuple of int): Shape of the result.

        Returns:
            :ref:`ndarray`: int32 samples in ``[0, len(probs))`` on the
            tables' device.
        """
        with backend.using_device(self._device):
            return self.sample_xp(self._device.xp, shape)

    def sample_xp(self, xp, shape):
        """Draws samples with the array module ``xp`` (the tables' module)."""
        n = len(self.threshold)
        pb = xp.random.uniform(0, n, shape)
        index = pb.astype(numpy.int32)
        # uniform(0, n) can round up to n for large n.
        index = xp.minimum(index, n - 1)
        right = self.threshold[index] < (pb - index).astype(self.threshold.dtype)
        return self.values[index * 2 + right.astype(numpy.int32)]

    def sample_gpu(self, shape):
        """Draws samples on the GPU the tables are on."""
        return self.sample(shape)
