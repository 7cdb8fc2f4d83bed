"""Geometry and window helpers of convolutions and pooling (``chainer.utils.conv``).

Output sizes (:func:`get_conv_outsize`, :func:`get_deconv_outsize`), strided
window views and their adjoint (:func:`im2col_nd`, :func:`col2im_nd`), and
Chainer's 2-d :func:`im2col_cpu` and :func:`col2im_cpu`. Every helper works on
the array module of its input (NumPy or a GPU backend with NumPy's stride
API), on arrays laid out as ``(n, c, *spatial)``. The convolution functions'
reference implementations build on them; their NumPy fast paths live in the
chainer-cpu plugin.
"""

from __future__ import annotations

import itertools

import numpy

from chainer import backend
from chainer.utils import type_check


class OutputSizeError(type_check.InvalidType, AssertionError):
    """Raised when a convolution's or pooling's output would have no element.

    An extension of this project. Chainer asserts that output sizes are
    positive, so the error is an ``AssertionError`` as well as an
    :class:`~chainer.utils.type_check.InvalidType` like the other input
    checks (an assert would vanish under ``python -O``).
    """


def get_conv_outsize(size, k, s, p, cover_all=False, d=1):
    """Returns the output length of a convolution or pooling along one axis.

    .. math:: o = \\lfloor (size + 2p - d_k) / s \\rfloor + 1,
        \\quad d_k = k + (k - 1)(d - 1)

    With ``cover_all`` the numerator gets ``s - 1`` more, so that the last
    window covers the last input element.

    Args:
        size (int): Input length.
        k (int): Filter (window) size.
        s (int): Stride.
        p (int): Zero padding on each side.
        cover_all (bool): Whether every input element must be covered.
        d (int): Dilation.

    Returns:
        int: The output length (may be non-positive for too small inputs).
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size, k, s, p, cover_all=False, d=1):
    """Returns the output length of a deconvolution along one axis.

    It inverts :func:`get_conv_outsize`:
    :math:`o = s (size - 1) + d_k - 2p`, minus ``s - 1`` with ``cover_all``.

    Args:
        size (int): Input length.
        k (int): Filter size.
        s (int): Stride.
        p (int): Padding removed on each side.
        cover_all (bool): Whether the matching convolution used cover_all.
        d (int): Dilation.

    Returns:
        int: The output length.
    """
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def as_tuple(x, n, name="argument"):
    """Normalises an int or a length-``n`` sequence to a tuple of ``n`` ints.

    Args:
        x (int or sequence of int): The value.
        n (int): Required length.
        name (str): Argument name used in the error message.

    Returns:
        tuple of int: ``(x,) * n`` for an int, ``tuple(x)`` otherwise.

    Raises:
        ValueError: If a sequence has the wrong length.
    """
    if isinstance(x, (tuple, list)):
        if len(x) != n:
            raise ValueError(
                f"{name} must be an int or a sequence of {n} ints, got {x!r}"
            )
        return tuple(int(v) for v in x)
    return (int(x),) * n


def pad_spatial(x, pad_lo, pad_hi, pval=0):
    """Pads the spatial axes (all axes after the first two) of ``x``.

    Allocates the result once and copies ``x`` into it (no ``numpy.pad``);
    ``x`` itself is returned when all widths are zero.

    Args:
        x (:ref:`ndarray`): Array of shape ``(n, c, *spatial)``.
        pad_lo (tuple of int): Width added before each spatial axis.
        pad_hi (tuple of int): Width added after each spatial axis.
        pval (scalar): Padding value.

    Returns:
        :ref:`ndarray`: The padded array.
    """
    if not any(pad_lo) and not any(pad_hi):
        return x
    xp = backend.get_array_module(x)
    shape = x.shape[:2] + tuple(
        size + lo + hi for size, lo, hi in zip(x.shape[2:], pad_lo, pad_hi, strict=True)
    )
    # Zero padding from calloc'ed pages costs nothing until touched.
    out = xp.zeros(shape, x.dtype) if pval == 0 else xp.full(shape, pval, x.dtype)
    inner = tuple(
        slice(lo, lo + size) for size, lo in zip(x.shape[2:], pad_lo, strict=True)
    )
    out[(slice(None), slice(None), *inner)] = x
    return out


def window_view(x, ksize, stride, out_size, dilate=None):
    """Returns a strided view of all filter windows of ``x``; nothing is copied.

    Window ``(o_1, ..., o_d)`` starts at ``o_i * stride_i`` and its element
    ``(k_1, ..., k_d)`` is ``x[..., o_i * stride_i + k_i * dilate_i, ...]``.
    The caller ensures every window lies inside ``x`` (pad it first).

    Args:
        x (:ref:`ndarray`): Array of shape ``(n, c, *spatial)``.
        ksize (tuple of int): Window size per spatial axis.
        stride (tuple of int): Stride per spatial axis.
        out_size (tuple of int): Number of windows per spatial axis.
        dilate (tuple of int or None): Dilation per spatial axis (1 if None).

    Returns:
        :ref:`ndarray`: A read-only view of shape ``(n, c, *out_size, *ksize)``.
    """
    xp = backend.get_array_module(x)
    st = x.strides[2:]
    if dilate is None:
        dilate = (1,) * len(ksize)
    strides = (
        x.strides[:2]
        + tuple(a * s for a, s in zip(st, stride, strict=True))
        + tuple(a * d for a, d in zip(st, dilate, strict=True))
    )
    shape = x.shape[:2] + tuple(out_size) + tuple(ksize)
    if xp is not numpy:
        # CuPy's as_strided has no ``writeable`` flag; its views stay writable.
        return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)
    return xp.lib.stride_tricks.as_strided(
        x, shape=shape, strides=strides, writeable=False
    )


def conv_geometry(in_size, ksize, stride, pad, cover_all=False, dilate=None):
    """Computes output sizes and the padding a window view needs.

    Args:
        in_size (tuple of int): Spatial input shape.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option,
            for all axes or per axis.
        dilate (tuple of int or None): Per-axis dilation (1 if None).

    Returns:
        tuple: ``(out_size, pad_hi)``: the output shape and the padding after
        each axis that keeps every window in bounds (``pad`` goes before;
        ``pad_hi`` may be smaller than ``pad`` when windows stop short of the
        end, and larger with ``cover_all``).
    """
    if dilate is None:
        dilate = (1,) * len(ksize)
    if not isinstance(cover_all, (tuple, list)):
        cover_all = (cover_all,) * len(ksize)
    out_size = []
    pad_hi = []
    for size, k, s, p, d, ca in zip(
        in_size, ksize, stride, pad, dilate, cover_all, strict=True
    ):
        o = get_conv_outsize(size, k, s, p, ca, d)
        out_size.append(o)
        pad_hi.append(max(0, (o - 1) * s + (k - 1) * d + 1 - size - p))
    return tuple(out_size), tuple(pad_hi)


def im2col_nd(x, ksize, stride, pad, cover_all=False, dilate=None, pval=0):
    """Pads ``x`` and returns the view of its filter windows.

    Only the padding copies data; the result is a strided view.

    Args:
        x (:ref:`ndarray`): Array of shape ``(n, c, *spatial)``.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option,
            for all axes or per axis.
        dilate (tuple of int or None): Per-axis dilation (1 if None).
        pval (scalar): Value read in the padding.

    Returns:
        :ref:`ndarray`: Read-only view of shape ``(n, c, *out_size, *ksize)``.

    Raises:
        ValueError: If some output size is not positive.
    """
    out_size, pad_hi = conv_geometry(x.shape[2:], ksize, stride, pad, cover_all, dilate)
    if min(out_size, default=1) <= 0:
        raise ValueError(
            f"the output would be empty {out_size} for spatial input size "
            f"{x.shape[2:]}, ksize {ksize}, stride {stride}, pad {pad}"
        )
    x = pad_spatial(x, pad, pad_hi, pval)
    return window_view(x, ksize, stride, out_size, dilate)


def padded_extent(in_size, out_size, ksize, stride, pad, dilate):
    """Size per axis of a buffer holding the padded image and every window.

    Args:
        in_size, out_size, ksize, stride, pad, dilate (tuple of int): The
            per-axis geometry of a convolution.

    Returns:
        tuple of int: The buffer's spatial shape.
    """
    return tuple(
        max(size + p, (o - 1) * s + (k - 1) * d + 1)
        for size, o, k, s, p, d in zip(
            in_size, out_size, ksize, stride, pad, dilate, strict=True
        )
    )


def add_windows(img, blocks, ksize, stride, dilate, out_size, trail=0):
    """Adds ``blocks(tap)`` of every kernel tap onto its strided region of ``img``.

    Args:
        img (:ref:`ndarray`): A padded buffer whose spatial axes are its last
            but ``trail`` (see :func:`padded_extent`); updated in place.
        blocks (callable): ``blocks(tap)`` gives the block of the kernel tap
            ``tap`` (a tuple of ints), broadcastable to its region.
        ksize, stride, dilate, out_size (tuple of int): Per-axis geometry.
        trail (int): Number of axes after the spatial ones.
    """
    lead = (slice(None),) * (img.ndim - len(ksize) - trail)
    for tap in itertools.product(*(range(k) for k in ksize)):
        dst = tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(tap, dilate, stride, out_size, strict=True)
        )
        img[lead + dst] += blocks(tap)


def col2im_nd(col, stride, pad, in_size, dilate=None):
    """Sums windows back onto the image: the adjoint of :func:`im2col_nd`.

    Loops over kernel positions only (``prod(ksize)`` strided additions of
    whole ``(n, c, *out_size)`` blocks).

    Args:
        col (:ref:`ndarray`): Array of shape ``(n, c, *out_size, *ksize)``.
        stride, pad (tuple of int): Per-axis stride and padding.
        in_size (tuple of int): Spatial shape of the image to produce.
        dilate (tuple of int or None): Per-axis dilation (1 if None).

    Returns:
        :ref:`ndarray`: Array of shape ``(n, c, *in_size)``, dtype of ``col``
        (a view into the padded sum buffer when ``pad`` is not zero).
    """
    nd = len(in_size)
    out_size = col.shape[2 : 2 + nd]
    ksize = col.shape[2 + nd :]
    dilate = (1,) * nd if dilate is None else dilate
    xp = backend.get_array_module(col)
    padded = padded_extent(in_size, out_size, ksize, stride, pad, dilate)
    img = xp.zeros(col.shape[:2] + padded, col.dtype)
    rest = (slice(None),) * (2 + nd)
    add_windows(img, lambda tap: col[rest + tap], ksize, stride, dilate, out_size)
    inner = tuple(slice(p, p + size) for p, size in zip(pad, in_size, strict=True))
    return img[(slice(None), slice(None), *inner)]


def im2col_cpu(
    img, kh, kw, sy, sx, ph, pw, pval=0, cover_all=False, dy=1, dx=1,
    out_h=None, out_w=None,
):  # fmt: skip
    """Extracts 2-d patches into a new array (Chainer's layout).

    Args:
        img (:ref:`ndarray`): Array of shape ``(n, c, h, w)``.
        kh, kw (int): Filter size.
        sy, sx (int): Stride.
        ph, pw (int): Padding.
        pval (scalar): Value read in the padding.
        cover_all (bool): Chainer's ``cover_all`` option.
        dy, dx (int): Dilation.
        out_h, out_w (int or None): Output size (computed when None).

    Returns:
        :ref:`ndarray`: Array of shape ``(n, c, kh, kw, out_h, out_w)``.
    """
    xp = backend.get_array_module(img)
    h, w = img.shape[2:]
    if out_h is None:
        out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
    if out_w is None:
        out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
    if out_h <= 0 or out_w <= 0:
        raise ValueError(f"the output would be empty ({out_h}, {out_w})")
    hi_h = max(0, (out_h - 1) * sy + (kh - 1) * dy + 1 - h - ph)
    hi_w = max(0, (out_w - 1) * sx + (kw - 1) * dx + 1 - w - pw)
    x = pad_spatial(img, (ph, pw), (hi_h, hi_w), pval)
    view = window_view(x, (kh, kw), (sy, sx), (out_h, out_w), (dy, dx))
    return xp.ascontiguousarray(view.transpose(0, 1, 4, 5, 2, 3))


def col2im_cpu(col, sy, sx, ph, pw, h, w, dy=1, dx=1):
    """Sums 2-d patches back onto an image: the adjoint of :func:`im2col_cpu`.

    Args:
        col (:ref:`ndarray`): Array of shape ``(n, c, kh, kw, out_h, out_w)``.
        sy, sx (int): Stride.
        ph, pw (int): Padding.
        h, w (int): Image size.
        dy, dx (int): Dilation.

    Returns:
        :ref:`ndarray`: Array of shape ``(n, c, h, w)``.
    """
    return col2im_nd(
        col.transpose(0, 1, 4, 5, 2, 3), (sy, sx), (ph, pw), (h, w), (dy, dx)
    )


def parse_dilate_groups(kwargs, name):
    """Reads the keyword-only ``dilate`` and ``groups`` of 2-d convolutions.

    Chainer's 2-d convolution functions and links take these two options as
    ``**kwargs``; ``deterministic`` is a removed option.

    Args:
        kwargs (dict): The keyword arguments left after the named ones.
        name (str): Name of the caller, used in error messages.

    Returns:
        tuple: ``(dilate, groups)``, 1 where not given.

    Raises:
        ValueError: For the removed ``deterministic`` option.
        TypeError: For any other unexpected keyword.
    """
    if "deterministic" in kwargs:
        raise ValueError(
            "deterministic argument is not supported anymore. Use "
            "chainer.using_config('cudnn_deterministic', value) context where "
            "value is either `True` or `False`."
        )
    unknown = sorted(set(kwargs) - {"dilate", "groups"})
    if unknown:
        raise TypeError(
            f"{name}() got unexpected keyword argument(s): {', '.join(unknown)}"
        )
    return kwargs.get("dilate", 1), kwargs.get("groups", 1)
