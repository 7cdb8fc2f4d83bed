"""Elementwise summation with Caffe-style broadcasting."""

import chainer
from chainer import primitive_ops
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
        expect = "y.shape == x.shape[axis:axis + y.ndim] (sizes of 1 broadcast)"
        actual = f"x.shape={x_shape}, y.shape={y_shape}, axis={axis}"
        if chainer.is_debug():
            # Chainer checks the shapes with an assertion in debug mode.
            raise AssertionError(f"Expect: {expect}\nActual: {actual}")
        raise type_check.InvalidType(expect, actual)
    return (1,) * axis + tuple(y_shape) + (1,) * (ndim - end)


def bias(x, y, axis=1):
    """Elementwise summation with broadcasting.

    Adds ``y`` to ``x``, broadcasting ``y`` over the axes of ``x`` that it
    does not cover. ``axis`` is the first axis of ``x`` along which ``y`` is
    applied (the term "broadcasting" comes from Caffe's bias layer). For
    example, with ``x`` of shape ``(100, 3, 40, 60)``, ``y`` of shape
    ``(3, 40)`` and ``axis=1``, ``y`` is used as NumPy broadcasting would use
    an array of shape ``(1, 3, 40, 1)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array to add to.
        y (~chainer.Variable or :ref:`ndarray`): Array of the dtype of ``x``
            whose shape matches ``x.shape[axis:axis + y.ndim]`` (a size of 1
            broadcasts).
        axis (int): First axis of ``x`` along which ``y`` is applied.

    Raises:
        ~chainer.utils.type_check.InvalidType: If the shapes do not match
            (``AssertionError`` in debug mode, as Chainer's check there is an
            assertion).

    Returns:
        ~chainer.Variable: Same shape and dtype as ``x``.
    """
    y1_shape = _y_shape(x.shape, y.shape, axis)
    if y1_shape != y.shape:
        y = primitive_ops.reshape(y, y1_shape)
    return primitive_ops.add(x, y)
