"""N-dimensional im2col and col2im in Chainer's layout (``chainer.utils.conv_nd``).

The patch array ``col`` of an image ``img`` of shape ``(n, c, d_1, ..., d_N)``
has shape ``(n, c, k_1, ..., k_N, out_1, ..., out_N)``: ``col[n, c, kx_1, ...,
kx_N, x_1, ..., x_N]`` is ``img[n, c, x_1 * s_1 - p_1 + kx_1 * di_1, ...]``,
or the padding value outside the image. :func:`col2im_nd` is its adjoint
(it sums the patches back). Both work on the array module of their input.
"""

from __future__ import annotations

from chainer import backend
from chainer.utils import conv as _conv
from chainer.utils import conv_nd_kernel  # noqa: F401  (Chainer's module layout)
from chainer.utils.conv import get_conv_outsize


def as_tuple(x, n):
    """Returns ``tuple(x)`` for a sequence of length ``n``, else ``(x,) * n``."""
    if hasattr(x, "__getitem__"):
        assert len(x) == n
        return tuple(x)
    return (x,) * n


def _check_ranks(ndim, ksize, stride, pad):
    assert ndim == len(ksize) == len(stride) == len(pad), (
        "ksize, stride and pad must have one entry per spatial dimension"
    )


def _im2col(img, ksize, stride, pad, pval, cover_all, dilate):
    ndim = img.ndim - 2
    dilate = as_tuple(dilate, ndim)
    _check_ranks(ndim, ksize, stride, pad)
    ksize, stride, pad = tuple(ksize), tuple(stride), tuple(pad)
    outs = tuple(
        get_conv_outsize(d, k, s, p, cover_all, di)
        for d, k, s, p, di in zip(
            img.shape[2:], ksize, stride, pad, dilate, strict=True
        )
    )
    assert all(out > 0 for out in outs), "Output sizes should be positive."
    view = _conv.im2col_nd(img, ksize, stride, pad, cover_all, dilate, pval)
    # (n, c, *out, *k) -> (n, c, *k, *out)
    axes = (0, 1, *range(2 + ndim, 2 + 2 * ndim), *range(2, 2 + ndim))
    xp = backend.get_array_module(img)
    return xp.ascontiguousarray(view.transpose(axes))


def im2col_nd_cpu(img, ksize, stride, pad, pval=0, cover_all=False, dilate=1):
    """Extracts N-d patches of a NumPy image.

    Args:
        img (numpy.ndarray): Image of shape ``(n, c, d_1, ..., d_N)``.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding (one entry per spatial axis).
        pval (scalar): Value read in the padding.
        cover_all (bool): Chainer's ``cover_all`` option.
        dilate (int or tuple of int): Dilation.

    Returns:
        numpy.ndarray: Patches, shape ``(n, c, k_1, ..., k_N, out_1, ...,
        out_N)``.
    """
    return _im2col(img, ksize, stride, pad, pval, cover_all, dilate)


def im2col_nd_gpu(img, ksize, stride, pad, cover_all=False, dilate=1):
    """Extracts N-d patches of an image on a GPU (see :func:`im2col_nd_cpu`)."""
    return _im2col(img, ksize, stride, pad, 0, cover_all, dilate)


def im2col_nd(img, ksize, stride, pad, cover_all=False, dilate=1):
    """Extracts N-d patches of an image on any device (zero padding).

    Args:
        img (:ref:`ndarray`): Image of shape ``(n, c, d_1, ..., d_N)``.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding.
        cover_all (bool): Chainer's ``cover_all`` option.
        dilate (int or tuple of int): Dilation.

    Returns:
        :ref:`ndarray`: Patches, shape ``(n, c, k_1, ..., k_N, out_1, ...,
        out_N)``.
    """
    return _im2col(img, ksize, stride, pad, 0, cover_all, dilate)


def col2im_nd_cpu(col, stride, pad, dims, dilate=1):
    """Sums N-d patches back onto an image: the adjoint of :func:`im2col_nd`.

    Args:
        col (:ref:`ndarray`): Patches, shape ``(n, c, k_1, ..., k_N, out_1,
            ..., out_N)``.
        stride, pad (tuple of int): Per-axis stride and padding.
        dims (tuple of int): Spatial shape of the image.
        dilate (int or tuple of int): Dilation.

    Returns:
        :ref:`ndarray`: Image of shape ``(n, c, *dims)``.
    """
    ndim = (col.ndim - 2) // 2
    dilate = as_tuple(dilate, ndim)
    assert len(stride) == len(pad) == len(dims) == ndim
    # (n, c, *k, *out) -> (n, c, *out, *k)
    axes = (0, 1, *range(2 + ndim, 2 + 2 * ndim), *range(2, 2 + ndim))
    img = _conv.col2im_nd(
        col.transpose(axes), tuple(stride), tuple(pad), tuple(dims), dilate
    )
    xp = backend.get_array_module(col)
    return xp.ascontiguousarray(img)


def col2im_nd_gpu(col, stride, pad, dims, dilate=1):
    """GPU version of :func:`col2im_nd_cpu`."""
    return col2im_nd_cpu(col, stride, pad, dims, dilate)


def col2im_nd(col, stride, pad, dims, dilate=1):
    """Sums N-d patches back onto an image on any device (see :func:`col2im_nd_cpu`)."""
    return col2im_nd_cpu(col, stride, pad, dims, dilate)
