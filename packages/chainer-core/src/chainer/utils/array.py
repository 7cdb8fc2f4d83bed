"""Array helpers kept from Chainer (``chainer.utils.array``).

(``size_of_shape`` is :func:`chainer.utils.size_of_shape`.)

``as_vec``, ``as_mat`` and ``empty_like`` are deprecated in Chainer 7 and warn;
:func:`sum_to` and :func:`size_of_shape` are the ones still used.
"""

from __future__ import annotations

import warnings

from chainer import backend
from chainer.utils import size_of_shape as size_of_shape


def as_vec(x):
    """Flattens ``x`` (deprecated: use ``x.ravel()``)."""
    warnings.warn(
        "chainer.utils.array.as_vec is deprecated. Please refer to "
        "numpy.ravel or other array backend functions to flatten ndarrays.",
        DeprecationWarning,
    )
    if x.ndim == 1:
        return x
    return x.ravel()


def as_mat(x):
    """Reshapes ``x`` to 2-d, keeping the first axis (deprecated)."""
    warnings.warn(
        "chainer.utils.array.as_mat is deprecated. Please refer to "
        "numpy.reshape or other array backend functions to reshape ndarrays.",
        DeprecationWarning,
    )
    if x.ndim == 2:
        return x
    return x.reshape(len(x), -1)


def empty_like(x):
    """Returns an uninitialised array like ``x`` (deprecated)."""
    warnings.warn(
        "chainer.utils.array.empty_like is deprecated. Please refer to "
        "numpy.empty_like or other array backend functions to initialize "
        "empty arrays.",
        DeprecationWarning,
    )
    return backend.get_array_module(x).empty_like(x)


def sum_to(x, shape):
    """Sums an array over broadcast axes so that it gets ``shape``.

    Args:
        x (:ref:`ndarray`): The array (not a Variable: use
            :func:`chainer.functions.sum_to` for those).
        shape (tuple of int): Target shape, one ``x`` was broadcast from.

    Returns:
        :ref:`ndarray`: The summed array (``x`` itself if the shapes match).
    """
    if x.shape == shape:
        return x
    if getattr(x, "_is_chainer_variable", False):
        raise TypeError(
            "chainer.utils.sum_to does not support Variable input. "
            "Use chainer.functions.sum_to instead."
        )
    ndim = len(shape)
    lead = x.ndim - ndim
    lead_axis = tuple(range(lead))
    axis = tuple(i + lead for i, sx in enumerate(shape) if sx == 1)
    y = x.sum(lead_axis + axis, keepdims=True)
    if lead > 0:
        y = y.squeeze(lead_axis)
    return y
