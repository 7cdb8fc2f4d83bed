"""Kernel overrides of the N-d convolution and deconvolution nodes.

Chainer 7 ran these through cuDNN, which CuPy 14 no longer wraps: here a
CUDA im2col kernel builds the patch matrix, one cuBLAS GEMM per group
multiplies it with the filters, and a col2im gather (no atomics) sums the
patches of a deconvolution back onto its output. The patch matrix is
``(c * prod(k), n * prod(o))``: row ``(c, k_1, ..., k_d)`` and column
``(n, o_1, ..., o_d)`` hold the input element that kernel tap ``k`` reads
for output position ``o`` (the layout of chainer-cpu's NumPy patch
matrices, ``chainer_cpu._layout.im2col_matrix``), so that
``ConvolutionNDGradW`` can take it, as the node's ``patches``, from either
forward pass. One, two and three spatial axes are covered (fewer axes are
padded to three with unit ones); more go to ``node.forward``.
"""

from __future__ import annotations

import math

import cupy

from chainer.utils import conv
from chainer_cuda._kernels import _compiled
from chainer_cuda._kernels import sources

_MAX_NDIM = 3
_INPUTS = (0, 1)


def _padded(values, fill):
    # Per-axis values padded in front to three spatial axes.
    return (fill,) * (_MAX_NDIM - len(values)) + tuple(values)


def _geometry(in_size, out_size, ksize, stride, pad, dilate):
    # The int32 scalars of the kernels' geometry parameters, in order.
    return (
        *_padded(in_size, 1),
        *_padded(out_size, 1),
        *_padded(ksize, 1),
        *_padded(stride, 1),
        *_padded(pad, 0),
        *_padded(dilate, 1),
    )


def _covered(node, *arrays):
    return node.ndim <= _MAX_NDIM and all(a.size for a in arrays)


def _retained_in_dtype_of(node, x, other):
    # Retains both inputs, as the nodes' forwards do, and returns the second
    # (W or gy) in the dtype of x.
    node.retain_inputs(_INPUTS)
    return other if other.dtype == x.dtype else other.astype(x.dtype)


def _im2col(x, ksize, stride, pad, dilate, out_size):
    """Patch matrix ``(c * prod(ksize), n * prod(out_size))`` of ``x``."""
    n, c = x.shape[:2]
    col = cupy.empty((c * math.prod(ksize), n * math.prod(out_size)), dtype=x.dtype)
    geometry = _geometry(x.shape[2:], out_size, ksize, stride, pad, dilate)
    x = cupy.ascontiguousarray(x).reshape(-1)
    _compiled.get(sources.CONV_IM2COL)(x, n, c, *geometry, col)
    return col


def _grouped_matmul(a, b, groups, transa=False, transb=False):
    """Stacks ``op(a_g) @ op(b_g)`` over the ``groups`` row blocks of ``a``, ``b``."""
    if groups == 1:
        return cupy.matmul(a.T if transa else a, b.T if transb else b)
    a3 = a.reshape(groups, a.shape[0] // groups, a.shape[1])
    b3 = b.reshape(groups, b.shape[0] // groups, b.shape[1])
    if transa:
        a3 = a3.swapaxes(1, 2)
    if transb:
        b3 = b3.swapaxes(1, 2)
    y = cupy.matmul(a3, b3)
    return y.reshape(y.shape[0] * y.shape[1], y.shape[2])


def convolution(node, inputs):
    """Forward of ``ConvolutionND`` (and ``Convolution2DFunction``): im2col + GEMM.

    Keeps the patch matrix in ``node.patches`` for the weight gradient and
    retains ``x`` and ``W``, as the node's forward does; the output is the
    same channel-major view ``(n, c_O, *out_size)``.

    Args:
        node (~chainer.FunctionNode): The convolution node (holds ``stride``,
            ``pad``, ``cover_all``, ``dilate`` and ``groups``).
        inputs (tuple): ``(x, W)`` or ``(x, W, b)``.

    Returns:
        tuple: ``(y,)``.
    """
    x, W = inputs[:2]
    if not _covered(node, x, W):
        return node.forward(inputs)
    W = _retained_in_dtype_of(node, x, W)
    n = x.shape[0]
    out_channels = W.shape[0]
    ksize = W.shape[2:]
    out_size, _ = conv.conv_geometry(
        x.shape[2:], ksize, node.stride, node.pad, node.cover_all, node.dilate
    )
    col = _im2col(x, ksize, node.stride, node.pad, node.dilate, out_size)
    y = _grouped_matmul(W.reshape(out_channels, -1), col, node.groups)
    if len(inputs) == 3:
        y += inputs[2][:, None]
    node.patches = [(0, n, col)]
    return (y.reshape(out_channels, n, *out_size).swapaxes(0, 1),)


def convolution_grad_weight(node, inputs):
    """Forward of ``ConvolutionNDGradW``: GEMMs of ``gy`` with the patches of ``x``.

    Takes the patch matrices that the convolution's forward pass left in
    ``node.patches`` (either pass's layout), or builds one with im2col; retains
    ``x`` and ``gy``, as the node's forward does.

    Args:
        node (~chainer.FunctionNode): The ConvolutionNDGradW node.
        inputs (tuple): ``(x, gy)``.

    Returns:
        tuple: ``(gW,)`` of ``node.W_shape`` and ``node.W_dtype``.
    """
    x, gy = inputs
    if not _covered(node, x, gy):
        return node.forward(inputs)
    gy = _retained_in_dtype_of(node, x, gy)
    cols, node.patches = node.patches, None
    out_channels = gy.shape[1]
    out_size = gy.shape[2:]
    size = math.prod(out_size)
    gy2 = gy.swapaxes(0, 1).reshape(out_channels, -1)
    if cols is None:
        ksize = node.W_shape[2:]
        col = _im2col(x, ksize, node.stride, node.pad, node.dilate, out_size)
        cols = [(0, x.shape[0], col)]
    gW = None
    for i, j, col in cols:
        # Rows of group g are its (c_O / groups, c_I / groups * prod(ksize))
        # block: W's layout.
        g = _grouped_matmul(gy2[:, i * size : j * size], col, node.groups, transb=True)
        if gW is None:
            gW = g
        else:
            gW += g
    return (gW.reshape(node.W_shape).astype(node.W_dtype, copy=False),)


def deconvolution(node, inputs):
    """Forward of ``DeconvolutionND`` (and ``Deconvolution2DFunction``): GEMM + col2im.

    Sets ``cover_all`` (read by its backward) and retains ``x`` and ``W``, as
    the node's forward does; the bias is added by the col2im kernel.

    Args:
        node (~chainer.FunctionNode): The deconvolution node (holds
            ``stride``, ``pad``, ``outsize``, ``dilate`` and ``groups``).
        inputs (tuple): ``(x, W)`` or ``(x, W, b)``.

    Returns:
        tuple: ``(y,)``, C-contiguous.
    """
    x, W = inputs[:2]
    if not _covered(node, x, W):
        return node.forward(inputs)
    W = _retained_in_dtype_of(node, x, W)
    n, in_channels = x.shape[:2]
    in_size = x.shape[2:]
    ksize = W.shape[2:]
    out_size = node.set_output_geometry(in_size, ksize)
    out_channels = W.shape[1] * node.groups
    x2 = x.swapaxes(0, 1).reshape(in_channels, -1)
    col = _grouped_matmul(W.reshape(in_channels, -1), x2, node.groups, transa=True)
    col = col.reshape(-1)
    y = cupy.empty((n, out_channels, *out_size), dtype=x.dtype)
    _compiled.get(sources.CONV_COL2IM)(
        col,
        cupy.ascontiguousarray(inputs[2]) if len(inputs) == 3 else col,
        int(len(inputs) == 3),
        n,
        out_channels,
        *_geometry(out_size, in_size, ksize, node.stride, node.pad, node.dilate),
        y,
    )
    return (y,)
