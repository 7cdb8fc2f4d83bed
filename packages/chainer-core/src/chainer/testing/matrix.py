"""Random matrices with chosen singular values (``generate_matrix``)."""

from __future__ import annotations

import numpy


def generate_matrix(shape, dtype=float, **kwargs):
    """Generates a random matrix (or stack of matrices) with given singular values.

    Useful for inputs of functions that are unstable on badly conditioned
    matrices (inverse, solve...). Random orthonormal factors ``U`` and ``V``
    are drawn from the global NumPy generator and combined as
    ``U @ diag(singular_values) @ V``.

    Args:
        shape (tuple of int): Shape ``(B..., M, N)`` of the result.
        dtype: Float or complex dtype of the result.
        singular_values (array-like): Keyword only and required. Singular
            values, broadcastable to ``(B..., min(M, N))``; non-negative.

    Returns:
        numpy.ndarray: The matrix.
    """
    singular_values = kwargs.pop("singular_values", None)
    if kwargs:
        raise TypeError(f"unexpected keyword arguments: {sorted(kwargs)}")
    shape = tuple(shape)
    if len(shape) <= 1:
        raise ValueError(f"shape {shape} is invalid for matrices: too few axes")
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        raise TypeError(f"dtype {dtype} is not supported")
    if singular_values is None:
        raise TypeError("singular_values is not given")
    singular_values = numpy.asarray(singular_values)
    if not numpy.isrealobj(singular_values):
        raise TypeError("singular_values is not real")
    if (singular_values < 0).any():
        raise ValueError("negative singular value is given")
    k = min(shape[-2:])
    try:
        numpy.broadcast_to(singular_values, (*shape[:-2], k))
    except ValueError:
        raise ValueError(
            f"singular_values of shape {singular_values.shape} cannot be "
            f"broadcast to {(*shape[:-2], k)}"
        ) from None
    if 0 in shape:
        return numpy.empty(shape, dtype=dtype)
    a = numpy.random.randn(*shape)
    if dtype.kind == "c":
        a = a + 1j * numpy.random.randn(*shape)
    u, s, vh = numpy.linalg.svd(a, full_matrices=False)
    sv = numpy.broadcast_to(singular_values, s.shape)
    a = numpy.einsum("...ik,...k,...kj->...ij", u, sv, vh)
    return a.astype(dtype)
