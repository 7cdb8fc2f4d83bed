"""Elementwise product with Caffe-style broadcasting."""

from chainer import primitive_ops
from chainer.primitive_ops import basic_math
from chainer.utils import type_check


def _y_shape(x_shape, y_shape, axis):
    # y's shape padded with ones so that it broadcasts over x from ``axis``.
    ndim = len(x_shape)
    if axis < 0:
        axis += ndim
    end = axis + len(y_shape)
    if not (
        axis >= 0
        and end <= ndim
        and all(d in (1, e) for d, e in zip(y_shape, x_shape[axis:end], strict=True))
    ):
        raise type_check.InvalidType(
            "y.shape == x.shape[axis:axis + y.ndim] (sizes of 1 broadcast)",
            f"x.shape={x_shape}, y.shape={y_shape}, axis={axis}",
        )
    return (1,) * axis + tuple(y_shape) + (1,) * (ndim - end)


def scale(x, y, axis=1):
    """Elementwise product with broadcasting.

    Multiplies ``x`` by ``y``, broadcasting ``y`` over the axes of ``x``
    that it does not cover. ``axis`` is the first axis of ``x`` along which ``y`` is
    applied (the term "broadcasting" comes from Caffe's scale layer). For
    example, with ``x`` of shape ``(100, 3, 40, 60)``, ``y`` of shape
    ``(3, 40)`` and ``axis=1``, ``y`` is used as NumPy broadcasting would use
    an array of shape ``(1, 3, 40, 1)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array to scale.
        y (~chainer.Variable or :ref:`ndarray`): Array of the dtype of ``x``
            whose shape matches ``x.shape[axis:axis + y.ndim]`` (a size of 1
            broadcasts).
        axis (int): First axis of ``x`` along which ``y`` is applied.

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    y1_shape = _y_shape(x.shape, y.shape, axis)
    if y1_shape != y.shape:
        y = primitive_ops.reshape(y, y1_shape)
    return basic_math.Mul().apply((x, y))[0]
