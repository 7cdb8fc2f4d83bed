"""Orthogonal initializer (Saxe et al.)."""

from __future__ import annotations

import math

import numpy

from chainer import backend
from chainer import initializer
from chainer.initializers import _util

# mode -> (rows may outnumber columns, columns may outnumber rows); the matrix
# is the array seen as ``(shape[0], prod(shape[1:]))``.
_MODES = {
    "auto": (True, True),
    "projection": (False, True),
    "embedding": (True, False),
    "basis": (False, False),
}


class Orthogonal(initializer.Initializer):
    """Initializes array with an orthogonal system.

    The array is viewed as a matrix with ``shape[0]`` rows and
    ``prod(shape[1:])`` columns. A matrix of that shape with independent
    standard Gaussian entries is QR-decomposed (its transpose when it is
    wider than tall), the signs are fixed so that the diagonal of ``R`` is
    non-negative (which makes the result uniformly distributed), and the
    (semi-)orthogonal factor times ``scale`` fills the array. Rows are then
    orthonormal if there are no more rows than columns, and columns are
    orthonormal otherwise. A 0-dim array gets ``scale`` or ``-scale``.

    Reference: Saxe et al., https://arxiv.org/abs/1312.6120

    Args:
        scale (float): A constant multiplied to the orthogonal matrix.
        dtype: Data type specifier.
        mode (str): Assertion on the shape: ``'auto'`` (any shape),
            ``'projection'`` (no more rows than columns), ``'embedding'``
            (no more columns than rows) or ``'basis'`` (square).
        rng (xp.random.RandomState): Pseudo-random number generator; if
            omitted, ``numpy.random`` is used.
    """

    def __init__(self, scale=1.1, dtype=None, mode="auto", **kwargs):
        if mode not in _MODES:
            choices = ", ".join(repr(m) for m in _MODES)
            raise ValueError(f"Invalid mode: {mode!r}. Choose from {choices}.")
        self.scale = scale
        self.mode = mode
        self.rng = _util.pop_rng(type(self).__name__, kwargs)
        super().__init__(dtype)

    def __call__(self, array):
        """Fills ``array`` with a scaled (semi-)orthogonal matrix.

        Args:
            array (:ref:`ndarray`): Non-empty array to be filled in place.
        """
        _util.check_dtype(self, array)
        random = numpy.random if self.rng is None else self.rng
        device = backend.get_device_from_array(array)
        if array.ndim == 0:
            sign = 2 * int(random.randint(2)) - 1
            array[...] = self.scale * sign
            return
        if array.size == 0:
            raise ValueError(
                f"Array to be initialized must be non-empty; got shape {array.shape}"
            )
        rows = array.shape[0]
        cols = math.prod(array.shape[1:])
        tall_ok, wide_ok = _MODES[self.mode]
        if (rows > cols and not tall_ok) or (rows < cols and not wide_ok):
            raise ValueError(
                f"Cannot make orthogonal {self.mode}: shape = {array.shape} is "
                f"interpreted as {rows} vectors of dimension {cols}"
            )
        flat = numpy.asarray(random.normal(size=(rows, cols)))
        wide = rows < cols
        if wide:
            flat = flat.T
        q, r = numpy.linalg.qr(flat)
        # Multiplying column j of Q by sign(R_jj) makes the decomposition
        # unique, hence Q Haar-distributed.
        q *= numpy.copysign(self.scale, numpy.diag(r))
        if wide:
            q = q.T
        array[...] = device.send(q.reshape(array.shape))
