"""ROI pooling (Fast R-CNN) and the ROI machinery the other ROI functions share.

Every ROI function is linear in ``x`` once its geometry (and, for the max
variants, the winning positions) is fixed, so each node implements two array
maps: ``_apply`` (the linear map) and ``_adjoint`` (its transpose). The nodes
:class:`ROIAdjoint` and :class:`ROIApply` wrap them and are each other's
backward, which gives gradients of any order.
"""

import numbers

import numpy

from chainer import backend
from chainer import function_node
from chainer.functions.pooling import pooling_nd
from chainer.utils import type_check

# Elements per gathered chunk in max_over_bins (bounds its temporary memory).
_CHUNK_ELEMENTS = 1 << 22


def roi_outsize(outsize):
    """Validates ``outsize`` of the ROI functions.

    Args:
        outsize (int or pair of ints): Output size.

    Returns:
        tuple of int: ``(outh, outw)``.

    Raises:
        TypeError: If a size is not a positive integer.
    """
    if isinstance(outsize, (tuple, list)):
        if len(outsize) != 2:
            raise TypeError(f"outsize must be an int or a pair of ints: {outsize!r}")
        outh, outw = outsize
    else:
        outh = outw = outsize
    for i, v in enumerate((outh, outw)):
        if not (isinstance(v, numbers.Integral) and v > 0):
            raise TypeError(f"outsize[{i}] must be positive integer: {type(v)}, {v}")
    return int(outh), int(outw)


def roi_spatial_scale(spatial_scale):
    """Validates ``spatial_scale`` of the ROI functions.

    Args:
        spatial_scale (float): Ratio of feature map size to ROI coordinates.

    Returns:
        float: The scale.

    Raises:
        TypeError: If it is not a positive real number.
    """
    if not (
        isinstance(spatial_scale, numbers.Real)
        and not isinstance(spatial_scale, bool)
        and spatial_scale > 0
    ):
        raise TypeError(
            "spatial_scale must be a positive float number: "
            f"{type(spatial_scale)}, {spatial_scale}"
        )
    return float(spatial_scale)


def check_roi_inputs(in_types):
    """Type checks of ``(x, rois, roi_indices)`` of the ROI functions.

    Args:
        in_types (tuple): Types of ``x`` ``(n, c, h, w)``, ``rois``
            ``(R, 4)`` of ``x``'s dtype and ``roi_indices`` ``(R,)`` int32.
    """
    type_check.expect(in_types.size() == 3)
    type_check.argname(in_types, ("x", "rois", "roi_indices"))
    x_type, roi_type, index_type = in_types
    type_check.expect(
        x_type.dtype.kind == "f",
        x_type.ndim == 4,
        x_type.dtype == roi_type.dtype,
        roi_type.ndim == 2,
        roi_type.shape[1] == 4,
        index_type.dtype == numpy.int32,
        index_type.ndim == 1,
        roi_type.shape[0] == index_type.shape[0],
    )


def bin_bounds(start, length, n_bins, size):
    """Integer bounds of the ROI pooling bins along one axis.

    Bin ``p`` covers ``[floor(p L / n), ceil((p + 1) L / n))`` shifted by the
    ROI start and clipped to ``[0, size]``.

    Args:
        start (:ref:`ndarray`): ``(R,)`` float64 ROI starts (integral).
        length (:ref:`ndarray`): ``(R,)`` float64 ROI lengths (at least 1).
        n_bins (int): Number of bins.
        size (int): Input length.

    Returns:
        tuple: ``(lo, hi)``, int64 arrays of shape ``(R, n_bins)``.
    """
    xp = backend.get_array_module(start)
    p = xp.arange(n_bins, dtype=numpy.float64)
    bin_size = (length / n_bins)[:, None]
    lo = xp.floor(p * bin_size) + start[:, None]
    hi = xp.ceil((p + 1) * bin_size) + start[:, None]
    return (
        xp.clip(lo, 0, size).astype(numpy.int64),
        xp.clip(hi, 0, size).astype(numpy.int64),
    )


def roi_bins(x_shape, batch, boxes, outsize, spatial_scale, plus_one):
    """Bins of ROI max/average pooling.

    Corners are scaled and rounded half to even; a ROI spans
    ``max(end - start (+ 1), 1)`` cells.

    Args:
        x_shape (tuple of int): ``(n, c, h, w)``.
        batch (:ref:`ndarray`): ``(R,)`` image index of each ROI.
        boxes (:ref:`ndarray`): ``(R, 4)`` float64 ``(y_min, x_min, y_max,
            x_max)``.
        outsize (tuple of int): ``(outh, outw)``.
        spatial_scale (float): Scale from ROI to feature coordinates.
        plus_one (bool): Count the end cell (Fast R-CNN's ``roi_pooling_2d``).

    Returns:
        tuple: ``(batch, hlo, hhi, wlo, whi)``; the bounds are ``(R, outh)``
        and ``(R, outw)`` int64 arrays.
    """
    xp = backend.get_array_module(boxes)
    _, _, h, w = x_shape
    corner = xp.round(boxes * spatial_scale)
    extra = 1 if plus_one else 0
    height = xp.maximum(corner[:, 2] - corner[:, 0] + extra, 1)
    width = xp.maximum(corner[:, 3] - corner[:, 1] + extra, 1)
    hlo, hhi = bin_bounds(corner[:, 0], height, outsize[0], h)
    wlo, whi = bin_bounds(corner[:, 1], width, outsize[1], w)
    return batch.astype(numpy.int64), hlo, hhi, wlo, whi


def max_over_bins(x, batch, hlo, hhi, wlo, whi, empty_value=0):
    """Maximum of each bin of each ROI, and its flat position in ``x``.

    ROIs are grouped by their largest bin; each group's bins are gathered
    into boxes of that size (smaller bins repeat their last row and column,
    which never changes the first maximum), in chunks of bounded memory.

    Args:
        x (:ref:`ndarray`): ``(n, c, h, w)`` input.
        batch (:ref:`ndarray`): ``(R,)`` image index of each ROI.
        hlo, hhi (:ref:`ndarray`): ``(R, outh)`` row bounds of the bins.
        wlo, whi (:ref:`ndarray`): ``(R, outw)`` column bounds of the bins.
        empty_value (float): Output of an empty bin.

    Returns:
        tuple: ``y`` ``(R, c, outh, outw)`` and ``pos``
        (flat index into ``x`` of the first maximum in row-major order, -1 for
        empty bins) of the same shape.
    """
    xp = backend.get_array_module(x)
    _n, c, h, w = x.shape
    r, outh = hlo.shape
    outw = wlo.shape[1]
    y = xp.full((r, outh, outw, c), empty_value, x.dtype)
    pos = xp.full((r, outh, outw, c), -1, numpy.int64)
    hlen = hhi - hlo
    wlen = whi - wlo
    if r == 0 or c == 0:
        return y.transpose(0, 3, 1, 2), pos.transpose(0, 3, 1, 2)
    xt = xp.ascontiguousarray(x.transpose(0, 2, 3, 1))
    chan = xp.arange(c)
    box_h = xp.maximum(hlen.max(axis=1), 1)
    box_w = xp.maximum(wlen.max(axis=1), 1)
    group = box_h * (int(box_w.max()) + 1) + box_w
    for key in backend.CpuDevice().send(xp.unique(group)).tolist():
        members = xp.flatnonzero(group == key)
        bh, bw = divmod(key, int(box_w.max()) + 1)
        taps = [(slice(None),) * 3 + (t,) for t in range(bh * bw)]
        step = max(1, _CHUNK_ELEMENTS // (outh * outw * bh * bw * c))
        for s in range(0, len(members), step):
            sel = members[s : s + step]
            rows = xp.minimum(
                hlo[sel, :, None]
                + xp.minimum(xp.arange(bh), xp.maximum(hlen[sel] - 1, 0)[:, :, None]),
                h - 1,
            )
            cols = xp.minimum(
                wlo[sel, :, None]
                + xp.minimum(xp.arange(bw), xp.maximum(wlen[sel] - 1, 0)[:, :, None]),
                w - 1,
            )
            b = batch[sel, None, None, None, None]
            g = xt[b, rows[:, :, None, :, None], cols[:, None, :, None, :]]
            g = g.reshape(len(sel), outh, outw, bh * bw, c)
            best = g.max(axis=3)
            arg = pooling_nd.window_argmax(g, best, taps)
            y[sel] = best
            # The first maximum is never a repeated cell: no clamping here.
            hh = hlo[sel, :, None, None] + arg // bw
            ww = wlo[sel, None, :, None] + arg % bw
            chan_row = (batch[sel, None, None, None] * c + chan) * h + hh
            pos[sel] = chan_row * w + ww
    empty = (hlen[:, :, None] <= 0) | (wlen[:, None, :] <= 0)
    y[empty] = empty_value
    pos[empty] = -1
    return y.transpose(0, 3, 1, 2), pos.transpose(0, 3, 1, 2)


def scatter_flat(g, pos, shape):
    """Sums ``g`` into a zero array of ``shape`` at flat positions ``pos``.

    Args:
        g (:ref:`ndarray`): Values.
        pos (:ref:`ndarray`): Flat indexes of ``g``'s shape; ``-1`` skips.
        shape (tuple of int): Result shape.

    Returns:
        :ref:`ndarray`: Array of ``shape`` and ``g``'s dtype.
    """
    xp = backend.get_array_module(g)
    size = 1
    for d in shape:
        size *= d
    valid = pos >= 0
    out = xp.bincount(pos[valid], weights=g[valid], minlength=size)
    return out.astype(g.dtype, copy=False).reshape(shape)


def gather_flat(x, pos):
    """Reads ``x`` at flat positions ``pos`` (``-1`` reads 0).

    Args:
        x (:ref:`ndarray`): Source array.
        pos (:ref:`ndarray`): Flat indexes.

    Returns:
        :ref:`ndarray`: Array of ``pos``'s shape and ``x``'s dtype.
    """
    xp = backend.get_array_module(x)
    flat = x.reshape(-1)
    out = flat[xp.maximum(pos, 0)]
    out[pos < 0] = 0
    return out


class ROIAdjoint(function_node.FunctionNode):
    """Transpose of a ROI node's linear map (the gradient w.r.t. ``x``)."""

    def __init__(self, roi_node):
        self._roi = roi_node

    def forward(self, inputs):
        return (self._roi._adjoint(inputs[0]),)

    def backward(self, indexes, grad_outputs):
        return ROIApply(self._roi).apply(grad_outputs)


class ROIApply(function_node.FunctionNode):
    """A ROI node's linear map in ``x`` with its geometry fixed."""

    def __init__(self, roi_node):
        self._roi = roi_node

    def forward(self, inputs):
        return (self._roi._apply(inputs[0]),)

    def backward(self, indexes, grad_outputs):
        return ROIAdjoint(self._roi).apply(grad_outputs)


class ROIPooling2D(function_node.FunctionNode):
    """ROI max pooling over rois ``(batch_index, x_min, y_min, x_max, y_max)``."""

    _plus_one = True
    _empty_value = 0

    def __init__(self, outh, outw, spatial_scale):
        self.outh, self.outw = int(outh), int(outw)
        self.spatial_scale = spatial_scale

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x", "rois"))
        x_type, roi_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
            x_type.dtype == roi_type.dtype,
            roi_type.ndim == 2,
            roi_type.shape[1] == 5,
        )

    def forward(self, inputs):
        x, rois = inputs
        rois = rois.astype(numpy.float64)
        return (self._max_pool(x, rois[:, 0], rois[:, [2, 1, 4, 3]]),)

    def _max_pool(self, x, batch, boxes):
        self._x_shape = x.shape
        bins = roi_bins(
            x.shape,
            batch,
            boxes,
            (self.outh, self.outw),
            self.spatial_scale,
            self._plus_one,
        )
        y, self._pos = max_over_bins(x, *bins, self._empty_value)
        return y

    def _apply(self, x):
        return gather_flat(x, self._pos)

    def _adjoint(self, gy):
        return scatter_flat(gy, self._pos, self._x_shape)

    def backward(self, indexes, grad_outputs):
        (gx,) = ROIAdjoint(self).apply(grad_outputs)
        return (gx,) + (None,) * (len(self.inputs) - 1)


def roi_pooling_2d(x, rois, outh, outw, spatial_scale):
    """Spatial Region of Interest (ROI) pooling function (Fast R-CNN).

    Acts like max pooling over each region of interest: the ROI, scaled by
    ``spatial_scale`` and rounded, is split into an ``outh x outw`` grid of
    bins (counting both end cells) and each bin of each channel is reduced
    to its maximum (0 for an empty bin).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        rois (~chainer.Variable or :ref:`ndarray`): ``(R, 5)`` array of
            ``x``'s dtype; row ``i`` is ``(batch_index, x_min, y_min, x_max,
            y_max)`` in input-image coordinates.
        outh (int): Height of the output.
        outw (int): Width of the output.
        spatial_scale (float): Scale from ROI coordinates to ``x``'s (e.g.
            ``1 / 16`` after four stride-2 stages).

    Returns:
        ~chainer.Variable: Output of shape ``(R, c, outh, outw)``, same dtype
        as ``x``. No gradient flows to ``rois``.

    See the original paper proposing ROIPooling:
    `Fast R-CNN <https://arxiv.org/abs/1504.08083>`_.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 0, 3, 3]], np.float32)
        >>> F.roi_pooling_2d(x, rois, 2, 2, 1.0).array[0, 0]
        array([[ 5.,  7.],
               [13., 15.]], dtype=float32)
    """
    (y,) = ROIPooling2D(outh, outw, spatial_scale).apply((x, rois))
    return y
