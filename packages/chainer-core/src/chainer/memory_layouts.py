"""Memory layouts of arrays (``chainer.memory_layouts``).

A layout names how the axes of an array are stored relative to their meaning
(the *semantic* shape, ``(n, c, h, w)`` for images). ``None`` is the standard
layout, where both agree; the ``CUDNN_CHANNEL_LAST_*`` layouts store the
channel axis last, as cuDNN's NHWC kernels want. Only the standard layout is
used for computation here (Variables and Parameters accept ``layout=None``);
the helpers below translate shapes and arrays between layouts.
"""

from __future__ import annotations

#: Channel-first (standard) layout of inputs: ``(n, c, h, w)``.
CUDNN_CHANNEL_FIRST_X = None
#: Channel-last layout of inputs: stored as ``(n, h, w, c)``.
CUDNN_CHANNEL_LAST_X = "CUDNN_CHANNEL_LAST_X"
#: Channel-first (standard) layout of filters: ``(out, in, kh, kw)``.
CUDNN_CHANNEL_FIRST_W = None
#: Channel-last layout of filters: stored as ``(out, kh, kw, in)``.
CUDNN_CHANNEL_LAST_W = "CUDNN_CHANNEL_LAST_W"

_LAYOUTS = (None, CUDNN_CHANNEL_LAST_X, CUDNN_CHANNEL_LAST_W)


def _check_layout(layout):
    if layout not in _LAYOUTS:
        raise ValueError(f"unknown memory layout: {layout!r}")


def _get_layout_transpose_axes(ndim, src_layout, dst_layout, inverse=False):
    # Axes that transpose an array of ``src_layout`` into ``dst_layout``
    # (None if no transposition is needed).
    _check_layout(src_layout)
    _check_layout(dst_layout)
    if src_layout == dst_layout:
        return None
    if src_layout is None:
        # standard -> channel last: move axis 1 to the end.
        axes = (0, *range(2, ndim), 1)
    elif dst_layout is None:
        # channel last -> standard: move the last axis to position 1.
        axes = (0, ndim - 1, *range(1, ndim - 1))
    else:
        raise ValueError(
            f"cannot transpose between layouts {src_layout!r} and {dst_layout!r}"
        )
    if inverse:
        inv = [0] * ndim
        for i, a in enumerate(axes):
            inv[a] = i
        axes = tuple(inv)
    return axes


def _transpose_shape(shape, src_layout, dst_layout):
    axes = _get_layout_transpose_axes(len(shape), src_layout, dst_layout)
    if axes is None:
        return tuple(shape)
    return tuple(shape[a] for a in axes)


def _transpose_array(arr, src_layout, dst_layout):
    axes = _get_layout_transpose_axes(arr.ndim, src_layout, dst_layout)
    if axes is None:
        return arr
    return arr.transpose(axes)


def get_raw_shape(arr_or_var):
    """Returns the shape of the stored array (of a Variable's array).

    Args:
        arr_or_var: An array or a :class:`~chainer.Variable`.
    """
    if getattr(arr_or_var, "_is_chainer_variable", False):
        return arr_or_var.raw_array.shape
    return arr_or_var.shape


def get_semantic_shape(arr_or_var, assumed_layout=None):
    """Returns the semantic shape of an array or Variable.

    Args:
        arr_or_var: An array or a :class:`~chainer.Variable`.
        assumed_layout: Layout of a plain array (a Variable knows its own).
    """
    if getattr(arr_or_var, "_is_chainer_variable", False):
        return arr_or_var.shape
    return _transpose_shape(arr_or_var.shape, assumed_layout, None)


def get_cudnn_tensor_layout_x(layout):
    """Returns cuDNN's tensor format name of an input ``layout``."""
    _check_layout(layout)
    return (
        "CUDNN_TENSOR_NHWC" if layout == CUDNN_CHANNEL_LAST_X else "CUDNN_TENSOR_NCHW"
    )


def get_cudnn_tensor_layout_w(layout):
    """Returns cuDNN's tensor format name of a filter ``layout``."""
    _check_layout(layout)
    return (
        "CUDNN_TENSOR_NHWC" if layout == CUDNN_CHANNEL_LAST_W else "CUDNN_TENSOR_NCHW"
    )
