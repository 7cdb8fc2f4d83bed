"""NumPy kernels of the N-d convolution: forward and weight gradient.

Kernel overrides for ``(ConvolutionND, "numpy")`` (and its 2-d subclass) and
``(ConvolutionNDGradW, "numpy")``, registered by :mod:`chainer_cpu._plugin`.
They compute what the catalogue's reference implementation
(:mod:`chainer.functions.connection.convolution_nd`) computes, as GEMMs of
the filters with patch matrices built in cache-sized chunks, on chainer-cpu's
thread team, and give their outputs the batch-innermost memory order (see
:mod:`chainer_cpu._layout`). From the nodes they read only the documented
attributes: ``stride``, ``pad``, ``cover_all``, ``dilate``, ``groups``,
``W_shape``, ``W_dtype`` and ``patches`` (the patch matrices that the forward
kernel keeps for the weight gradient).
"""

import numpy

from chainer import configuration
from chainer.utils import conv
from chainer_cpu import _blas
from chainer_cpu import _layout
from chainer_cpu import _onednn
from chainer_cpu import _parallel

# NumPy inputs that are not batch-innermost take the batch-innermost path
# (after one transposing copy) up to this size only: the copy of a larger
# C-order input costs more than the path saves (6 ms for a (64, 32, 32, 32)
# float32 array, whose convolution then took 27 ms instead of 19).
_TRANSPOSE_BYTES = 1 << 20
# With a CPU team (chainer_cpu._parallel), batch-innermost convolutions run
# in items of about this many bytes of patch matrix (at least one output row
# each, and at least one item per thread), each copied and multiplied by one
# thread, and their patch matrices are built again for the weight gradient
# instead of kept (_REBUILD_PATCHES). VGG-style step of
# benchmarks/workloads/convnet_step.py, in-process A/B alternating per step
# (2 cores, 2026-11-23): with the team 151.3 ms median against 167.9
# without (38 of 40 steps faster; the LeNet-style step 14.1 vs 14.3 ms, 82
# of 120); rebuilding against keeping the patch matrices 152.7 vs 158.0 ms
# (27 of 30); items of 0.5 or 2 MiB no faster than 1 MiB.
_ITEM_BYTES = 1 << 20
_REBUILD_PATCHES = True


def convolution_forward(
    x, W, b=None, stride=None, pad=None, cover_all=False, dilate=None, groups=1,
    keep_col=False,
):  # fmt: skip
    """Computes a convolution as GEMMs of the filters with patch matrices.

    An input that lies in memory as ``(c_I, *spatial, n)`` (the output of an
    earlier convolution, see :func:`chainer_cpu._layout.is_batch_innermost`) or
    that is small (up to 1 MiB, such as a batch of images; one transposing
    copy) gives an output that lies in memory likewise, as
    ``(c_O, *out_size, n)``. Each kernel tap of each output row is then one
    contiguous run of ``o_2 * ... * o_N * n`` elements, so building the
    patch matrices takes a few long copies instead of one short copy per
    image row (the VGG-style step of ``benchmarks/`` 6 % and the LeNet-style
    step 14 % faster than with channel-major outputs; in-process A/B,
    2026-11-23). The patch matrices are built for runs of output rows of
    about 4 MiB and kept as a :class:`RowChunks`; with a CPU team (see
    :mod:`chainer_cpu._parallel`) each thread copies and multiplies runs of
    about 1 MiB in turn, and the :class:`RowChunks` rebuilds them for the
    weight gradient instead of keeping them. Otherwise (larger inputs in
    other memory orders) the patch matrix of
    :func:`chainer_cpu._layout.im2col_matrix` is built and multiplied in
    chunks of the batch, and the output has its channel axis outermost in
    memory.

    Args:
        x (:ref:`ndarray`): Input of shape ``(n, c_I, *spatial)``.
        W (:ref:`ndarray`): Filters of shape ``(c_O, c_I / groups, *ksize)``
            with the dtype of ``x``.
        b (:ref:`ndarray` or None): Bias of shape ``(c_O,)``.
        stride, pad (tuple of int): Per-axis stride and padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option.
        dilate (tuple of int or None): Per-axis dilation (1 if None).
        groups (int): Number of channel groups.
        keep_col (bool): Also return the patch matrices (for the weight
            gradient).

    Returns:
        tuple: ``(y, cols)``: the output of shape ``(n, c_O, *out_size)`` (a
        view of a ``(c_O, *out_size, n)`` buffer on the batch-innermost
        path, of a ``(c_O, n, *out_size)`` one otherwise) and, with
        ``keep_col``, the patch matrices: a :class:`RowChunks` on the
        batch-innermost path, otherwise a list of
        ``(start, stop, col)``, the patch matrix of each chunk
        ``x[start:stop]`` of the batch (None without ``keep_col``).
    """
    if x.ndim > 2 and (x.nbytes <= _TRANSPOSE_BYTES or _layout.is_batch_innermost(x)):
        return _batch_innermost_forward(
            x, W, b, stride, pad, cover_all, dilate, groups, keep_col
        )
    n = x.shape[0]
    ksize = W.shape[2:]
    out_channels = W.shape[0]
    w2 = W.reshape(out_channels, -1)
    out_size, _ = conv.conv_geometry(x.shape[2:], ksize, stride, pad, cover_all, dilate)
    size = _layout.prod(out_size)
    chunks = _layout.batch_chunks(n, w2.shape[1] * size * x.itemsize)
    cols = []
    if len(chunks) == 1 or _layout.is_pointwise(ksize, stride, pad):
        col, out_size = _layout.im2col_matrix(x, ksize, stride, pad, cover_all, dilate)
        y = _layout.grouped_matmul(w2, col, groups)
        cols.append((0, n, col))
    else:
        y = numpy.empty((out_channels, n * size), x.dtype)

        def patches(i, j):
            col, _ = _layout.im2col_matrix(
                x[i:j], ksize, stride, pad, cover_all, dilate
            )
            return col

        _multiply_chunks(
            chunks, patches, w2, groups, y, size,
            w2.shape[1] * size * x.itemsize * (chunks[0][1] - chunks[0][0]),
            cols if keep_col else None,
        )  # fmt: skip
    if b is not None:
        y += b[:, None]
    y = y.reshape(out_channels, n, *out_size).swapaxes(0, 1)
    return y, (cols if keep_col else None)


def _multiply_chunks(chunks, patches, w2, groups, out, unit, chunk_bytes, cols):
    # For each chunk (start, stop), patches(start, stop) is its patch
    # matrix and columns start * unit to stop * unit of ``out`` its product
    # with ``w2``. The patch matrices are built first, then their GEMMs run
    # back to back (see _layout.CHUNK_BYTES on why they do not alternate): all of
    # them when they are kept (appended to the list ``cols``), else
    # _layout.WHOLE_BYTES of them at a time (``cols`` None).
    per_group = len(chunks)
    if cols is None:
        per_group = max(1, _layout.WHOLE_BYTES // max(1, chunk_bytes))
    for g in range(0, len(chunks), per_group):
        group = [(i, j, patches(i, j)) for i, j in chunks[g : g + per_group]]
        for i, j, col in group:
            _layout.grouped_matmul(w2, col, groups, out=out[:, i * unit : j * unit])
        if cols is not None:
            cols.extend(group)


class RowChunks(list):
    """Patch matrices of a batch-innermost convolution, by output rows.

    Items are ``(start, stop, col)``: the patch matrix of output rows
    ``start:stop`` (first spatial axis) of every image, with columns
    ``(o_1, ..., o_N, n)``, or None where ``rebuild(start, stop)`` builds it
    again from the input.
    """

    rebuild = None


def _batch_innermost_forward(x, W, b, stride, pad, cover_all, dilate, groups, keep_col):
    # convolution_forward on NumPy: the input read as (c, *spatial, n) (a
    # view for outputs of earlier convolutions, else one transposing copy),
    # so that each kernel tap of each output row is one contiguous run of
    # (o_2 * ... * o_N * n) elements; chunks are runs of output rows. The
    # output lies in memory as (c_O, *out_size, n).
    n, channels = x.shape[:2]
    nd = x.ndim - 2
    ksize = W.shape[2:]
    dilate = (1,) * nd if dilate is None else tuple(dilate)
    out_channels = W.shape[0]
    w2 = W.reshape(out_channels, -1)
    out_size, pad_hi = _layout.output_geometry(x, ksize, stride, pad, cover_all, dilate)
    _parallel.engage()  # first use: team, BLAS and malloc set-up
    threads = _parallel.width()
    # Per-tap GEMMs only without a CPU team: with one, patch matrices copied
    # and multiplied by each thread in turn are faster (VGG-style step
    # 174.1 vs 183.1 ms median, 27 of 40 steps).
    if (
        not keep_col
        and threads <= 1
        and _shift_applies(x, ksize, stride, pad, groups, out_size)
    ):
        gemm = _blas.gemm_function(x.dtype)
        if gemm is not None:
            return _shift_forward(gemm, x, W, b, pad, pad_hi, dilate, out_size), None
    if any(pad) or any(pad_hi):
        xb = _layout.pad_batch_innermost(x, pad, pad_hi)
    else:
        xb = _layout.as_batch_innermost(x)
    rows = channels * _layout.prod(ksize)
    row_size = _layout.prod(out_size[1:]) * n
    y = numpy.empty((out_channels, *out_size, n), x.dtype)
    y2 = y.reshape(out_channels, -1)
    cols = RowChunks()
    if _layout.is_pointwise(ksize, stride, pad):
        col = xb.reshape(channels, -1)
        _layout.grouped_matmul(w2, col, groups, out=y2)
        cols.append((0, out_size[0], col))
    else:
        st = xb.strides

        def patches(start, stop):
            view = numpy.lib.stride_tricks.as_strided(
                xb[:, start * stride[0] :],
                shape=(channels, *ksize, stop - start, *out_size[1:], n),
                strides=(
                    st[0],
                    *(a * d for a, d in zip(st[1:-1], dilate, strict=True)),
                    *(a * s for a, s in zip(st[1:-1], stride, strict=True)),
                    st[-1],
                ),
                writeable=False,
            )
            return numpy.ascontiguousarray(view).reshape(rows, -1)

        per_row = rows * row_size * x.itemsize
        if not per_row:
            threads = 1
        if threads > 1:
            step = max(1, min(_ITEM_BYTES // per_row, -(-out_size[0] // threads)))
        elif out_size[0] * per_row <= _layout.WHOLE_BYTES:
            step = out_size[0]
        else:
            step = max(1, _layout.CHUNK_BYTES // per_row)
        chunks = [(r, min(out_size[0], r + step)) for r in range(0, out_size[0], step)]
        if threads > 1 and len(chunks) > 1:
            keep = keep_col and not _REBUILD_PATCHES

            def item(k):
                start, stop = chunks[k]
                out = y2[:, start * row_size : stop * row_size]
                col = patches(start, stop)
                _layout.grouped_matmul(w2, col, groups, out=out)
                return (start, stop, col if keep else None)

            kept = _parallel.run(item, len(chunks))
            if keep_col:
                cols.rebuild = patches
                cols.extend(kept)
        else:
            _multiply_chunks(
                chunks, patches, w2, groups, y2, row_size, step * per_row,
                cols if keep_col else None,
            )  # fmt: skip
    if b is not None:
        y += b.reshape((-1,) + (1,) * (nd + 1))
    return y.transpose(nd + 1, 0, *range(1, nd + 1)), (cols if keep_col else None)


def _shift_applies(x, ksize, stride, pad, groups, out_size):
    # Whether _shift_forward takes this convolution: 2-d, unit strides, one
    # group, float32/64, a filter larger than one pixel, and padded rows at
    # most 1/8 wider than the output rows (the GEMMs also compute the
    # columns in between).
    if x.ndim != 4 or groups != 1 or x.shape[0] == 0 or x.dtype.char not in "fd":
        return False
    if any(s != 1 for s in stride) or all(k == 1 for k in ksize):
        return False
    padded_width = x.shape[3] + 2 * pad[1]
    return 8 * padded_width <= 9 * out_size[1]


def _shift_forward(gemm, x, W, b, pad, pad_hi, dilate, out_size):
    # A unit-stride 2-d convolution without a patch matrix: with the padded
    # input as a (c, h_p + 1, w_p, n) buffer, the input that kernel tap
    # (i, j) reads for all output positions (o_1, o_2') with o_2' < w_p is
    # one contiguous run per channel, starting (i d_1 w_p + j d_2) n
    # elements in. So the output, computed w_p wide, is the sum over taps of
    # GEMMs W[:, :, i, j] @ run, accumulated by the BLAS (beta = 1), and its
    # first o_2 columns are the result (the others read into the next row;
    # the spare row keeps the last tap in the buffer). No patch copies: the
    # input gradients of the VGG-style step's 32x32 and 16x16 layers run
    # 20-25 % faster than with patch matrices (2026-11-23).
    n, channels = x.shape[:2]
    out_channels = W.shape[0]
    kh, kw = W.shape[2:]
    xb = _layout.pad_batch_innermost(x, pad, (pad_hi[0] + 1, pad_hi[1]))
    rows, width = xb.shape[1:3]
    taps = numpy.ascontiguousarray(W.transpose(2, 3, 0, 1))
    out_h, out_w = out_size
    wide = numpy.empty((out_channels, out_h, width, n), x.dtype)
    size = out_h * width * n
    plane = rows * width * n
    for i in range(kh):
        for j in range(kw):
            gemm(
                out_channels, size, channels, taps, channels, xb, plane,
                0.0 if i == j == 0 else 1.0, wide, size,
                a_offset=(i * kw + j) * out_channels * channels,
                b_offset=(i * dilate[0] * width + j * dilate[1]) * n,
            )  # fmt: skip
    y = numpy.ascontiguousarray(wide[:, :, :out_w])
    if b is not None:
        y += b.reshape(-1, 1, 1, 1)
    return y.transpose(3, 0, 1, 2)


def convolution_grad_weight_array(
    x, gy, ksize, stride, pad, cover_all=False, dilate=None, groups=1, cols=None
):  # fmt: skip
    """Computes the filter gradient of a convolution: GEMMs of ``gy`` and patches.

    Args:
        x (:ref:`ndarray`): Input of the convolution, ``(n, c_I, *spatial)``.
        gy (:ref:`ndarray`): Output gradient, ``(n, c_O, *out_size)``, with
            the dtype of ``x``.
        ksize, stride, pad (tuple of int): Per-axis filter size, stride and
            padding.
        cover_all (bool or tuple of bool): Chainer's ``cover_all`` option.
        dilate (tuple of int or None): Per-axis dilation (1 if None).
        groups (int): Number of channel groups.
        cols (list or None): The patch matrices that
            :func:`convolution_forward` kept (a :class:`RowChunks` or a list of
            batch chunks); rebuilt chunk by chunk if None.

    Returns:
        :ref:`ndarray`: The gradient as a ``(c_O, c_I / groups * prod(ksize))``
        matrix.
    """
    n, out_channels = gy.shape[:2]
    if isinstance(cols, RowChunks):
        gy2 = _layout.as_batch_innermost(gy).reshape(out_channels, -1)
        size = _layout.prod(gy.shape[3:]) * n
    else:
        gy2 = gy.swapaxes(0, 1).reshape(out_channels, -1)
        size = _layout.prod(gy.shape[2:])
    if cols is None:
        rows = x.shape[1] * _layout.prod(ksize)
        if _layout.is_pointwise(ksize, stride, pad):
            chunks = [(0, n)]
        else:
            chunks = _layout.batch_chunks(n, rows * size * x.itemsize)
        cols = []
        for i, j in chunks:
            col, _ = _layout.im2col_matrix(
                x[i:j], ksize, stride, pad, cover_all, dilate
            )
            cols.append((i, j, col))

    # The transposed product col @ gy^T per chunk: 1.1-1.6x faster than
    # gy @ col^T for the small output-channel counts of the VGG-style and
    # LeNet-style layers (2 BLAS threads).
    def item(k):
        i, j, col = cols[k]
        if col is None:
            col = cols.rebuild(i, j)
        gy_part = gy2[:, i * size : j * size]
        return _layout.grouped_matmul(col, gy_part, groups, transb=True)

    # Summed in item order whichever thread made each term.
    _parallel.engage()
    parts = _parallel.run(item, len(cols))
    gW_t = parts[0]
    for g in parts[1:]:
        gW_t += g
    if groups == 1:
        return gW_t.T
    # Rows of group g of gW_t are block g's (c_I / groups * prod(ksize),
    # c_O / groups) transposed gradient.
    gW_t = gW_t.reshape(groups, -1, out_channels // groups)
    return gW_t.swapaxes(1, 2).reshape(out_channels, -1)


def convolution(node, inputs):
    """Forward of ``ConvolutionND``: ``(x, W[, b])`` to ``(y,)``.

    Retains ``x`` and ``W`` as the node's forward does, and keeps the patch
    matrices in ``node.patches`` where a backward pass may follow.
    """
    x, W = inputs[:2]
    node.retain_inputs((0, 1))
    if W.dtype != x.dtype:
        W = W.astype(x.dtype)
    b = inputs[2] if len(inputs) == 3 else None
    keep_col = configuration.config.enable_backprop

    def own():
        return convolution_forward(
            x, W, b, node.stride, node.pad, node.cover_all, node.dilate,
            node.groups, keep_col=keep_col,
        )  # fmt: skip

    geometry = _onednn_geometry(node, x, W.shape)
    if geometry is None:
        y, node.patches = own()
        return (y,)
    dilate, out_size, pad_hi = geometry
    # The engine is chosen per geometry, whatever the memory order of x:
    # with oneDNN's channels-last activations an earlier layer's choice
    # changes that order, and a key with strides would start a new race for
    # every layer after each earlier layer settles.
    key = (
        "forward", x.shape, W.shape, b is None, node.stride, node.pad, pad_hi,
        dilate, node.groups, keep_col,
    )  # fmt: skip

    def onednn():
        y = _onednn.forward(
            x, W, b, out_size, node.stride, node.pad, pad_hi, dilate, node.groups
        )
        return y, None

    y, node.patches = _onednn.pick(key, onednn, own)
    return (y,)


def convolution_grad_weight(node, inputs):
    """Forward of ``ConvolutionNDGradW``: ``(x, gy)`` to ``(gW,)``.

    Uses (and drops) the patch matrices that the convolution's forward kernel
    handed over in ``node.patches``; retains ``x`` and ``gy``.
    """
    x, gy = inputs
    node.retain_inputs((0, 1))
    cols, node.patches = node.patches, None
    if gy.dtype != x.dtype:
        gy = gy.astype(x.dtype)
    ksize = node.W_shape[2:]

    def own():
        return convolution_grad_weight_array(
            x, gy, ksize, node.stride, node.pad, node.cover_all, node.dilate,
            node.groups, cols,
        )  # fmt: skip

    geometry = _onednn_geometry(node, x, node.W_shape)
    if geometry is None:
        gW = own()
    else:
        dilate, _, pad_hi = geometry
        key = (  # per geometry, as convolution's
            "backward_weights", x.shape, gy.shape, tuple(node.W_shape),
            node.stride, node.pad, pad_hi, dilate, node.groups, cols is None,
        )  # fmt: skip

        def onednn():
            return _onednn.backward_weights(
                x, gy, tuple(node.W_shape), node.stride, node.pad, pad_hi, dilate,
                node.groups,
            )  # fmt: skip

        gW = _onednn.pick(key, onednn, own)
    return (gW.reshape(node.W_shape).astype(node.W_dtype, copy=False),)


def _dilation(dilate, nd):
    return (1,) * nd if dilate is None else tuple(dilate)


def _onednn_geometry(node, x, w_shape):
    # (dilate, out_size, pad_hi) of a float32 convolution by filters of
    # ``w_shape`` that oneDNN can run (see chainer_cpu._onednn), or None.
    if x.dtype != numpy.float32 or not 3 <= x.ndim <= 5 or 0 in w_shape:
        return None
    ksize = tuple(w_shape[2:])
    dilate = _dilation(node.dilate, len(ksize))
    out_size, pad_hi = _layout.output_geometry(
        x, ksize, node.stride, node.pad, node.cover_all, dilate
    )
    if not _onednn.applies(x, pad_hi):
        return None
    return dilate, out_size, pad_hi
