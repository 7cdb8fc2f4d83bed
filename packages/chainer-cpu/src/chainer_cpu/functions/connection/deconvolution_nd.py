"""NumPy kernel of the N-d deconvolution (transposed convolution).

The kernel override for ``(DeconvolutionND, "numpy")`` (and its 2-d
subclass), registered by :mod:`chainer_cpu._plugin`. Two algorithms give the
catalogue's result: one GEMM into a patch matrix of the output that is summed
back onto it (col2im), or, for unit strides where ``c_I <= c_O``, a
convolution of the padded input with the flipped filters
(:func:`chainer_cpu.functions.connection.convolution_nd.convolution_forward`),
whose patch matrix has the fewer rows. ``benchmarks/workloads/convnet_step.py``
measures both. From the node it reads ``stride``, ``pad``, ``dilate``,
``groups`` and ``ndim``, and calls its documented ``set_output_geometry``.
"""

import numpy

from chainer.utils import conv
from chainer_cpu import _layout
from chainer_cpu import _onednn
from chainer_cpu.functions.connection import convolution_nd


def deconvolution(node, inputs):
    """Forward of ``DeconvolutionND``: ``(x, W[, b])`` to ``(y,)``.

    Retains ``x`` and ``W`` and sets the node's output geometry, as the
    node's forward does.
    """
    x, W = inputs[:2]
    node.retain_inputs((0, 1))
    if W.dtype != x.dtype:
        W = W.astype(x.dtype)
    ksize = W.shape[2:]
    out_size = node.set_output_geometry(x.shape[2:], ksize)
    b = inputs[2] if len(inputs) == 3 else None

    def own():
        if (
            W.shape[0] <= W.shape[1] * node.groups
            and all(s == 1 for s in node.stride)
            and all(
                p <= d * (k - 1)
                for p, d, k in zip(node.pad, node.dilate, ksize, strict=True)
            )
            and any(k > 1 for k in ksize)
        ):
            return _as_convolution(x, W, b, node.pad, node.dilate, node.groups)
        return deconvolution_forward(
            x, W, b, node.stride, node.pad, out_size, node.dilate, node.groups
        )

    pad_hi = _onednn_pad_hi(x, W, node, out_size)
    if pad_hi is None:
        return (own(),)
    key = (  # per geometry, whatever the memory order of x (see convolution)
        "backward_data", x.shape, W.shape, b is None, out_size, node.stride,
        node.pad, pad_hi, node.dilate, node.groups,
    )  # fmt: skip

    def onednn():
        shape = (x.shape[0], W.shape[1] * node.groups, *out_size)
        y = _onednn.backward_data(
            x, W, shape, node.stride, node.pad, pad_hi, node.dilate, node.groups
        )
        if b is not None:
            y += b.reshape((-1,) + (1,) * len(out_size))
        return y

    return (_onednn.pick(key, onednn, own),)


def _onednn_pad_hi(x, W, node, out_size):
    # The transposed convolution runs as oneDNN's backward-data convolution
    # (see chainer_cpu._onednn) from the output back to ``x``, with padding
    # ``pad`` before and the returned ``pad_hi`` after each axis; None where
    # oneDNN does not apply.
    if x.dtype != numpy.float32 or not 3 <= x.ndim <= 5 or W.size == 0:
        return None
    pad_hi = tuple(
        (i - 1) * s + d * (k - 1) + 1 - o - p
        for i, o, k, s, p, d in zip(
            x.shape[2:], out_size, W.shape[2:], node.stride, node.pad, node.dilate,
            strict=True,
        )
    )  # fmt: skip
    return pad_hi if _onednn.applies(x, pad_hi) else None


def _as_convolution(x, W, b, pad, dilate, groups):
    # With unit strides the transposed convolution is a convolution of x
    # padded by d * (k - 1) - p with the flipped, regrouped filters.
    ksize = W.shape[2:]
    nd = len(ksize)
    c_in, c_out_g = W.shape[:2]
    w_conv = W.reshape(groups, c_in // groups, c_out_g, *ksize).swapaxes(1, 2)
    w_conv = w_conv.reshape(groups * c_out_g, c_in // groups, *ksize)
    w_conv = w_conv[(Ellipsis, *(slice(None, None, -1),) * nd)]
    conv_pad = tuple(
        d * (k - 1) - p for d, k, p in zip(dilate, ksize, pad, strict=True)
    )
    y, _ = convolution_nd.convolution_forward(
        x, w_conv, b, (1,) * nd, conv_pad, False, dilate, groups
    )
    return y


def deconvolution_forward(
    x, W, b=None, stride=None, pad=None, out_size=None, dilate=None, groups=1
):  # fmt: skip
    """Computes a transposed convolution: GEMMs, then patches summed onto the image.

    The adjoint of :func:`convolution_nd.convolution_forward` with the same
    filters: for each cache-sized chunk of the batch one GEMM gives the patch
    matrix of the output (see :func:`chainer_cpu._layout.im2col_matrix`),
    whose windows are added onto the output with one strided addition per
    kernel tap.

    Args:
        x (:ref:`ndarray`): Input of shape ``(n, c_I, *in_size)``.
        W (:ref:`ndarray`): Filters of shape ``(c_I, c_O / groups, *ksize)``
            with the dtype of ``x``.
        b (:ref:`ndarray` or None): Bias of shape ``(c_O,)``.
        stride, pad (tuple of int): Per-axis stride and padding.
        out_size (tuple of int): Spatial output shape; the convolution with
            these parameters (and ``cover_all`` where needed) maps it back
            to ``in_size``.
        dilate (tuple of int or None): Per-axis dilation (1 if None).
        groups (int): Number of channel groups.

    Returns:
        :ref:`ndarray`: Output of shape ``(n, c_O, *out_size)``: a view with
        the channel axis outermost in memory and, for batches that are not
        chunked and for batch-innermost inputs (see
        :func:`chainer_cpu._layout.is_batch_innermost`), the batch axis
        innermost (dense for those inputs).
    """
    n, in_channels = x.shape[:2]
    in_size = x.shape[2:]
    ksize = W.shape[2:]
    nd = len(ksize)
    dilate = (1,) * nd if dilate is None else dilate
    out_channels = W.shape[1] * groups
    w2 = W.reshape(in_channels, -1)
    if _layout.is_pointwise(ksize, stride, pad) and tuple(in_size) == tuple(out_size):
        x2 = x.swapaxes(0, 1).reshape(in_channels, -1)
        y = _layout.grouped_matmul(w2, x2, groups, transa=True)
        if b is not None:
            y += b[:, None]
        return y.reshape(out_channels, n, *out_size).swapaxes(0, 1)
    size = _layout.prod(in_size)
    padded = conv.padded_extent(out_size, in_size, ksize, stride, pad, dilate)
    inner = tuple(slice(p, p + o) for p, o in zip(pad, out_size, strict=True))
    rows = out_channels * _layout.prod(ksize)
    chunks = _layout.batch_chunks(n, rows * size * x.itemsize)
    if len(chunks) == 1 or _layout.is_batch_innermost(x):
        # Batch innermost: the window additions then run over whole rows of
        # (width x batch) elements instead of short rows of width elements
        # (4x faster for the LeNet-style layers).
        x2 = numpy.ascontiguousarray(x.transpose(1, *range(2, nd + 2), 0))
        # (One GEMM here: blocks of output channels on a CPU team's threads
        # made the VGG-style step slower, 166 vs 160 ms, 10 of 40 steps.)
        col = _layout.grouped_matmul(
            w2, x2.reshape(in_channels, -1), groups, transa=True
        )
        col = col.reshape(out_channels, *ksize, *in_size, n)
        img = numpy.zeros((out_channels, *padded, n), x.dtype)
        conv.add_windows(
            img, lambda tap: col[(slice(None), *tap)], ksize, stride, dilate,
            in_size, trail=1,
        )  # fmt: skip
        y = img[(slice(None), *inner)]
        if y.shape != img.shape:
            # A dense batch-innermost output: long inner runs for what
            # follows (and a view of it needs no copy there).
            y = numpy.ascontiguousarray(y)
        if b is not None:
            y += b.reshape((-1,) + (1,) * (nd + 1))
        return y.transpose(nd + 1, 0, *range(1, nd + 1))
    x2 = x.swapaxes(0, 1).reshape(in_channels, -1)
    img = numpy.zeros((out_channels, n, *padded), x.dtype)
    for i, j in chunks:
        col = _layout.grouped_matmul(
            w2, x2[:, i * size : j * size], groups, transa=True
        )
        col = col.reshape(out_channels, *ksize, j - i, *in_size)
        conv.add_windows(
            img[:, i:j], lambda tap, col=col: col[(slice(None), *tap)], ksize, stride,
            dilate, in_size,
        )  # fmt: skip
    y = img[(slice(None), slice(None), *inner)]
    if b is not None:
        y += b.reshape((-1,) + (1,) * (nd + 1))
    return y.swapaxes(0, 1)
