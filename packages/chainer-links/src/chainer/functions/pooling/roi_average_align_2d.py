"""ROIAlign with averaging, and the bilinear sampling both ROIAlign variants use.

Bilinear interpolation at a grid of sample points is separable: along each
axis the samples' weights form a small matrix ``A`` (samples x input length),
and the samples of a ROI are ``A_y @ x @ A_x.T`` on the input crop the ROI
touches. Each ROI thus costs two small GEMMs over its own crop.
"""

import math
import numbers

import numpy

from chainer import backend
from chainer.functions.pooling import _roi


def sampling_ratio_pair(sampling_ratio):
    """Validates ``sampling_ratio`` of the ROIAlign functions.

    Args:
        sampling_ratio (None, int or pair): Samples per bin along each axis;
            ``None`` adapts it to the ROI size.

    Returns:
        tuple: ``(ratio_h, ratio_w)``, each an int or ``None``.

    Raises:
        TypeError: If a ratio is neither None nor an integer >= 1.
    """
    if isinstance(sampling_ratio, (tuple, list)):
        pair = tuple(sampling_ratio)
    else:
        pair = (sampling_ratio, sampling_ratio)
    if len(pair) != 2 or not all(
        s is None or (isinstance(s, numbers.Integral) and s >= 1) for s in pair
    ):
        raise TypeError(
            f"sampling_ratio must be integer >= 1 or a pair of it: {sampling_ratio}"
        )
    return tuple(None if s is None else int(s) for s in pair)


def roi_geometry(rois, spatial_scale, outsize, sampling_ratio):
    """Continuous ROI geometry of ROIAlign, one row per ROI.

    Args:
        rois (:ref:`ndarray`): ``(R, 4)`` ``(y_min, x_min, y_max, x_max)``.
        spatial_scale (float): Scale from ROI coordinates to the input's.
        outsize (tuple of int): ``(outh, outw)``.
        sampling_ratio (tuple): Output of :func:`sampling_ratio_pair`.

    Returns:
        list of tuple: Per ROI ``((start_h, bin_h, grid_h), (start_w, bin_w,
        grid_w))`` as Python numbers.
    """
    box = backend.CpuDevice().send(rois).astype(numpy.float64) * spatial_scale
    out = []
    for y0, x0, y1, x1 in box.tolist():
        axes = []
        for start, end, n_bins, ratio in (
            (y0, y1, outsize[0], sampling_ratio[0]),
            (x0, x1, outsize[1], sampling_ratio[1]),
        ):
            length = max(end - start, 1.0)
            grid = ratio if ratio is not None else math.ceil(length / n_bins)
            axes.append((start, length / n_bins, grid))
        out.append(tuple(axes))
    return out


def interp_matrix(xp, start, bin_size, n_bins, grid, size, dtype):
    """Bilinear weights of the sample points of one ROI along one axis.

    Sample ``(p, i)`` sits at ``start + (p + (i + 0.5) / grid) * bin_size``.
    A sample outside ``[-1, size]`` is invalid (its row is zero); others are
    clamped to ``[0, size - 1]`` and interpolate their two neighbours.

    Args:
        xp (module): Array module.
        start, bin_size (float): ROI start and bin length.
        n_bins, grid (int): Bins and samples per bin.
        size (int): Input length.
        dtype: Dtype of the weights.

    Returns:
        tuple: Weights ``(n_bins * grid, size)`` and a boolean validity flag
        per sample.
    """
    i = xp.arange(n_bins * grid, dtype=numpy.float64)
    p = start + (i // grid + (i % grid + 0.5) / grid) * bin_size
    valid = (p >= -1.0) & (p <= size)
    p = xp.clip(p, 0, size - 1)
    lo = xp.floor(p)
    frac = p - lo
    hi = xp.minimum(lo + 1, size - 1)
    cols = xp.arange(size, dtype=numpy.float64)
    weights = (1 - frac)[:, None] * (cols == lo[:, None]) + frac[:, None] * (
        cols == hi[:, None]
    )
    weights *= valid[:, None]
    return weights.astype(dtype), valid


def support(weights):
    """Returns the ``[start, stop)`` range of columns with a nonzero weight.

    Args:
        weights (:ref:`ndarray`): 2-d weight matrix.

    Returns:
        tuple of int: The range (empty as ``(0, 0)``).
    """
    xp = backend.get_array_module(weights)
    nz = xp.flatnonzero(weights.any(axis=0))
    if nz.size == 0:
        return 0, 0
    return int(nz[0]), int(nz[-1]) + 1


def sample(crop, wy, wx):
    """Bilinear samples ``wy @ crop @ wx.T`` of every channel.

    Args:
        crop (:ref:`ndarray`): ``(c, hh, ww)`` input crop.
        wy (:ref:`ndarray`): ``(sy, hh)`` row weights.
        wx (:ref:`ndarray`): ``(sx, ww)`` column weights.

    Returns:
        :ref:`ndarray`: ``(c, sy, sx)`` samples.
    """
    # Broadcast matmuls over channels: no transposed copies (tensordot makes
    # them) and small GEMMs that stay in cache.
    with _spurious_invalid_ignored():
        return wy @ (crop @ wx.T)


def _spurious_invalid_ignored():
    # OpenBLAS's small-matrix kernels for AVX-512 now and then raise the
    # floating-point "invalid" flag on finite operands (seen about once in 25
    # runs of the pooling tests, float16 inputs computed in float32), which
    # NumPy reports as a RuntimeWarning of the product. Non-finite inputs
    # still give non-finite samples.
    return numpy.errstate(invalid="ignore")


def sample_adjoint(g, wy, wx):
    """Transpose of :func:`sample`: ``wy.T @ g @ wx`` of every channel.

    Args:
        g (:ref:`ndarray`): ``(c, sy, sx)`` values at the samples.
        wy (:ref:`ndarray`): ``(sy, hh)`` row weights.
        wx (:ref:`ndarray`): ``(sx, ww)`` column weights.

    Returns:
        :ref:`ndarray`: ``(c, hh, ww)``.
    """
    with _spurious_invalid_ignored():
        return (wy.T @ g) @ wx


def compute_dtype(dtype):
    """Dtype of the sampling GEMMs: float16 inputs are computed in float32."""
    return numpy.float32 if dtype == numpy.float16 else dtype


class ROIAverageAlign2D(_roi.ROIFunction2D):
    """ROIAlign averaging ``grid_h x grid_w`` bilinear samples per bin."""

    def __init__(self, outsize, spatial_scale, sampling_ratio=None):
        super().__init__(outsize, spatial_scale)
        self.sampling_ratio = sampling_ratio_pair(sampling_ratio)

    def forward(self, inputs):
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        self._x_shape = x.shape
        _, _, h, w = x.shape
        dtype = compute_dtype(x.dtype)
        geometry = roi_geometry(
            rois, self.spatial_scale, (self.outh, self.outw), self.sampling_ratio
        )
        batch = backend.CpuDevice().send(roi_indices).tolist()
        self._plans = []
        for b, ((y0, bin_h, gh), (x0, bin_w, gw)) in zip(batch, geometry, strict=True):
            wy, _ = interp_matrix(xp, y0, bin_h, self.outh, gh, h, dtype)
            wx, _ = interp_matrix(xp, x0, bin_w, self.outw, gw, w, dtype)
            # Average the samples of a bin: sum their rows, divide by count.
            wy = wy.reshape(self.outh, gh, h).sum(axis=1) / gh
            wx = wx.reshape(self.outw, gw, w).sum(axis=1) / gw
            h0, h1 = support(wy)
            w0, w1 = support(wx)
            self._plans.append((b, h0, h1, w0, w1, wy[:, h0:h1], wx[:, w0:w1]))
        return (self._apply(x),)

    def _apply(self, x):
        xp = backend.get_array_module(x)
        c = x.shape[1]
        y = xp.zeros((len(self._plans), c, self.outh, self.outw), x.dtype)
        for r, (b, h0, h1, w0, w1, wy, wx) in enumerate(self._plans):
            if h1 > h0 and w1 > w0:
                crop = x[b, :, h0:h1, w0:w1].astype(wy.dtype, copy=False)
                y[r] = sample(crop, wy, wx)
        return y

    def _adjoint(self, gy):
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._x_shape, gy.dtype)
        for r, (b, h0, h1, w0, w1, wy, wx) in enumerate(self._plans):
            if h1 > h0 and w1 > w0:
                g = gy[r].astype(wy.dtype, copy=False)
                gx[b, :, h0:h1, w0:w1] += sample_adjoint(g, wy, wx)
        return gx


def roi_average_align_2d(
    x, rois, roi_indices, outsize, spatial_scale, sampling_ratio=None
):
    """Region of Interest (ROI) Align function with average pooling (Mask R-CNN).

    Each ROI, scaled by ``spatial_scale`` (no rounding), is split into an
    ``outh x outw`` grid of bins; each bin averages the bilinear
    interpolations of ``x`` at a regular grid of sample points (points
    outside ``[-1, size]`` count as 0, others are clamped to the input).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        rois (~chainer.Variable or :ref:`ndarray`): ``(R, 4)`` array of
            ``x``'s dtype; row ``i`` is ``(y_min, x_min, y_max, x_max)``.
        roi_indices (~chainer.Variable or :ref:`ndarray`): ``(R,)`` int32
            image index (into ``x``'s batch) of each ROI.
        outsize (int or pair of ints): Output size ``(outh, outw)``.
        spatial_scale (float): Scale from ROI coordinates to ``x``'s.
        sampling_ratio (None, int or pair of ints): Sample points per bin
            along each axis; ``None`` takes ``ceil(roi_size / outsize)`` for
            each ROI.

    Returns:
        ~chainer.Variable: Output of shape ``(R, c, outh, outw)``, same dtype
        as ``x``. No gradient flows to ``rois``.

    Raises:
        TypeError: If ``outsize``, ``spatial_scale`` or ``sampling_ratio`` is
            not positive.

    See the original paper proposing ROIAlign:
    `Mask R-CNN <https://arxiv.org/abs/1703.06870>`_.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_average_align_2d(
        ...     x, rois, np.array([0], np.int32), 2, 1.0, 2).array
        array([[[[ 5.  ,  6.75],
                 [12.  , 13.75]]]], dtype=float32)
    """
    func = ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio)
    (y,) = func.apply((x, rois, roi_indices))
    return y
