"""Shared by the N-d convolution and deconvolution nodes and wrappers (private).

The gradient helpers take the node whose gradient they compute: any of
:class:`~chainer.functions.connection.convolution_nd.ConvolutionND`,
``ConvolutionNDGradW`` and ``DeconvolutionND``, which all carry ``ndim``,
``stride``, ``pad``, ``cover_all``, ``dilate`` and ``groups``.
"""

from chainer import primitive_ops
from chainer.functions.connection import convolution_nd
from chainer.functions.connection import deconvolution_nd
from chainer.utils import conv


def check_options(name, ndim, stride, pad, dilate, groups):
    """Returns the per-axis ``stride``, ``pad``, ``dilate`` and int ``groups``.

    Raises:
        ValueError: If a stride, dilation or ``groups`` is not positive or a
            padding is negative.
    """
    stride = conv.as_tuple(stride, ndim, "stride")
    pad = conv.as_tuple(pad, ndim, "pad")
    dilate = conv.as_tuple(dilate, ndim, "dilate")
    if min(stride, default=1) < 1 or min(dilate, default=1) < 1:
        raise ValueError(f"{name}: stride and dilate must be positive")
    if min(pad, default=0) < 0:
        raise ValueError(f"{name}: pad must not be negative")
    if int(groups) < 1:
        raise ValueError(f"{name}: groups must be positive, got {groups}")
    return stride, pad, dilate, int(groups)


def check_ndim(x, expected, name):
    """Raises ValueError unless ``x`` has ``expected`` spatial axes (1-d/3-d)."""
    if x.ndim - 2 != expected:
        raise ValueError(
            f"{name}: the number of dimensions under the channel dimension of "
            f"the input 'x' should be {expected}, but the actual ndim was "
            f"{x.ndim - 2}"
        )


def apply(fnode, x, W, b):
    """Applies ``fnode`` to ``(x, W)``, or ``(x, W, b)`` with a bias."""
    (y,) = fnode.apply((x, W) if b is None else (x, W, b))
    return y


def convolve(node, x, W):
    """Convolution of ``x`` with ``W`` in the geometry of ``node``."""
    fnode = convolution_nd.ConvolutionND(
        node.ndim, node.stride, node.pad, node.cover_all, node.dilate, node.groups
    )
    return fnode.apply((x, W))[0]


def deconvolve(node, x, W, outsize):
    """Transpose of :func:`convolve`: ``x`` (shaped like its output) to ``outsize``."""
    fnode = deconvolution_nd.DeconvolutionND(
        node.ndim, node.stride, node.pad, outsize, node.dilate, node.groups
    )
    return fnode.apply((x, W))[0]


def grad_weight(node, x, gy, W, patches=None):
    """Gradient of :func:`convolve` for ``W`` (``patches``: a kernel's, of ``x``)."""
    fnode = convolution_nd.ConvolutionNDGradW(
        node.ndim, node.stride, node.pad, node.cover_all, node.dilate, node.groups,
        W.shape, W.dtype, patches,
    )  # fmt: skip
    return fnode.apply((x, gy))[0]


def in_compute_dtype(xp, x, other):
    """Returns ``x`` and ``other`` in the dtype the reference products use.

    That is the dtype of ``x``, except float32 for float16: NumPy's
    half-precision products accumulate in half precision.
    """
    if x.dtype == xp.float16:
        x = x.astype(xp.float32)
    return x, other.astype(x.dtype, copy=False)


def grad_bias(gy):
    """Gradient of the bias: ``gy`` summed over all but the channel axis."""
    return primitive_ops.sum(gy, axis=(0, *range(2, gy.ndim)))
