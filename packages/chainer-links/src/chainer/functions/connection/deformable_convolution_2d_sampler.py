import numpy

from chainer import backend
from chainer import primitive_ops
from chainer.functions.array import pad as pad_module
from chainer.functions.array import spatial_transformer_sampler
from chainer.utils import conv
from chainer.utils import type_check


def _check(x, offset, W, b):
    def fail(expect, actual):
        raise type_check.InvalidType(expect, actual)

    if x.ndim != 4 or x.dtype.kind != "f":
        fail("x.ndim == 4, x.dtype.kind == 'f'", f"x.ndim={x.ndim}, x.dtype={x.dtype}")
    if offset.ndim != 4 or offset.dtype != x.dtype or offset.shape[0] != x.shape[0]:
        fail(
            "offset.ndim == 4, offset.dtype == x.dtype, offset.shape[0] == x.shape[0]",
            f"offset.shape={offset.shape}, offset.dtype={offset.dtype}, "
            f"x.shape={x.shape}, x.dtype={x.dtype}",
        )
    if W.ndim != 4 or W.dtype != x.dtype or W.shape[1] != x.shape[1]:
        fail(
            "W.ndim == 4, W.dtype == x.dtype, W.shape[1] == x.shape[1]",
            f"W.shape={W.shape}, W.dtype={W.dtype}, x.shape={x.shape}",
        )
    if b is not None and (b.shape != W.shape[:1] or b.dtype != x.dtype):
        fail(
            "b.shape == (W.shape[0],), b.dtype == x.dtype",
            f"b.shape={b.shape}, b.dtype={b.dtype}, W.shape={W.shape}",
        )


def _grid(offset, kh, kw, stride, padded_size):
    """Sampling grid of spatial_transformer_sampler, ``(n, 2, kh * kw, P)``.

    Kernel position ``k = ky * kw + kx`` of output pixel ``(i, j)`` samples
    the padded image at ``(i * sy + ky + dy, j * sx + kx + dx)``, where
    ``dx = offset[:, k]`` and ``dy = offset[:, kh * kw + k]``.
    """
    n, _, out_h, out_w = offset.shape
    sy, sx = stride
    xp = backend.get_array_module(offset)
    dtype = offset.dtype
    ky, kx = numpy.divmod(numpy.arange(kh * kw), kw)
    base_y = ky[:, None, None] + sy * numpy.arange(out_h)[None, :, None]
    base_x = kx[:, None, None] + sx * numpy.arange(out_w)[None, None, :]
    base = numpy.stack(numpy.broadcast_arrays(base_x, base_y))
    # Normalized coordinates: -1 and 1 are the first and the last pixel.
    # NOTE: a padded size of 1 cannot be addressed by them; its coordinate
    # maps to the one pixel whatever the offset.
    scale = numpy.array([2 / max(s - 1, 1) for s in padded_size[::-1]])
    scale = scale.reshape(1, 2, 1, 1)
    shift = (base.reshape(1, 2, kh * kw, -1) * scale - 1).astype(dtype)
    grid = primitive_ops.reshape(offset, (n, 2, kh * kw, out_h * out_w))
    grid = grid * xp.asarray(scale.astype(dtype)) + xp.asarray(shift)
    return grid


def deformable_convolution_2d_sampler(x, offset, W, b=None, stride=1, pad=0):
    """Two-dimensional deformable convolution function using computed offset.

    Each filter tap samples the input at its regular position shifted by a
    learned, per-pixel fractional offset, with bilinear interpolation; the
    samples are then combined by an ordinary convolution with ``W`` (Dai et
    al., *Deformable Convolutional Networks*, 2017). With offsets all zero
    this equals :func:`~chainer.functions.convolution_2d`.

    The output spatial size ``(h_O, w_O)`` is that of ``offset``, normally
    the output size of a convolution of ``x`` with ``W``, ``stride`` and
    ``pad``. Tap ``k = k_y k_W + k_x`` of output pixel ``(i, j)`` reads the
    zero-padded input at row ``i s_Y + k_y + offset[:, k_H k_W + k, i, j]``
    and column ``j s_X + k_x + offset[:, k, i, j]``; positions outside the
    padded input read zero.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of shape
            ``(n, c_I, h, w)``.
        offset (~chainer.Variable or :ref:`ndarray`): Offsets of shape
            ``(n, 2 k_H k_W, h_O, w_O)`` and the dtype of ``x``: the first
            ``k_H k_W`` channels hold the horizontal offsets and the others
            the vertical ones.
        W (~chainer.Variable or :ref:`ndarray`): Filter weights of shape
            ``(c_O, c_I, k_H, k_W)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias of shape
            ``(c_O,)``.
        stride (int or pair of ints): Stride of filter applications.
            ``stride=s`` and ``stride=(s, s)`` are equivalent.
        pad (int or pair of ints): Spatial zero padding of the input.
            ``pad=p`` and ``pad=(p, p)`` are equivalent.

    Returns:
        ~chainer.Variable: Array of shape ``(n, c_O, h_O, w_O)``.

    Raises:
        ValueError: If ``offset`` does not have ``2 k_H k_W`` channels.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
        >>> W = np.ones((1, 1, 2, 2), np.float32)
        >>> offset = np.zeros((1, 8, 2, 2), np.float32)
        >>> F.deformable_convolution_2d_sampler(x, offset, W).array
        array([[[[ 8., 12.],
                 [20., 24.]]]], dtype=float32)
        >>> offset[:, :4] = 0.5  # every tap half a pixel to the right
        >>> F.deformable_convolution_2d_sampler(x, offset, W).array
        array([[[[10. ,  9.5],
                 [22. , 18.5]]]], dtype=float32)
    """
    _check(x, offset, W, b)
    sy, sx = conv.as_tuple(stride, 2, "stride")
    ph, pw = conv.as_tuple(pad, 2, "pad")
    out_c, c, kh, kw = W.shape
    n, _, h, w = x.shape
    out_h, out_w = offset.shape[2:]
    if offset.shape[1] != 2 * kh * kw:
        raise ValueError("The shape of the offset does not match the kernel size")
    if ph or pw:
        x = pad_module.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), "constant")
    grid = _grid(offset, kh, kw, (sy, sx), (h + 2 * ph, w + 2 * pw))
    samples = spatial_transformer_sampler.spatial_transformer_sampler(x, grid)
    # (n, c * kh * kw, P) columns against W as a (c_O, c * kh * kw) matrix.
    cols = primitive_ops.reshape(samples, (n, c * kh * kw, out_h * out_w))
    y = primitive_ops.matmul(primitive_ops.reshape(W, (out_c, c * kh * kw)), cols)
    y = primitive_ops.reshape(y, (n, out_c, out_h, out_w))
    if b is not None:
        y = y + primitive_ops.reshape(b, (1, out_c, 1, 1))
    return y
