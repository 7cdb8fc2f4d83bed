import numpy

from chainer import backend
from chainer.functions.pooling import _roi
from chainer.functions.pooling import pooling_nd
from chainer.functions.pooling import roi_average_align_2d


class ROIMaxAlign2D(_roi.ROIFunction2D):
    """ROIAlign taking the maximum of the bilinear samples of each bin."""

    def __init__(self, outsize, spatial_scale, sampling_ratio=None):
        super().__init__(outsize, spatial_scale)
        self.sampling_ratio = roi_average_align_2d.sampling_ratio_pair(sampling_ratio)

    def forward(self, inputs):
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        self._x_shape = x.shape
        c, h, w = x.shape[1:]
        outh, outw = self.outh, self.outw
        dtype = roi_average_align_2d.compute_dtype(x.dtype)
        geometry = roi_average_align_2d.roi_geometry(
            rois, self.spatial_scale, (outh, outw), self.sampling_ratio
        )
        batch = backend.CpuDevice().send(roi_indices).tolist()
        # NOTE: as in Chainer 7, a bin without any valid sample gives -inf.
        y = xp.full((len(batch), c, outh, outw), -numpy.inf, x.dtype)
        self._plans = []
        for r, (b, ((y0, bin_h, gh), (x0, bin_w, gw))) in enumerate(
            zip(batch, geometry, strict=True)
        ):
            wy, vy = roi_average_align_2d.interp_matrix(
                xp, y0, bin_h, outh, gh, h, dtype
            )
            wx, vx = roi_average_align_2d.interp_matrix(
                xp, x0, bin_w, outw, gw, w, dtype
            )
            h0, h1 = roi_average_align_2d.support(wy)
            w0, w1 = roi_average_align_2d.support(wx)
            if h1 <= h0 or w1 <= w0:
                self._plans.append(None)
                continue
            wy, wx = wy[:, h0:h1], wx[:, w0:w1]
            crop = x[b, :, h0:h1, w0:w1].astype(dtype, copy=False)
            v = roi_average_align_2d.sample(crop, wy, wx)
            if not (vy.all() and vx.all()):
                v[:, ~vy] = -numpy.inf
                v[:, :, ~vx] = -numpy.inf
            keys = _tap_keys(gh, gw)
            best = v[keys[0]].copy()
            for key in keys[1:]:
                xp.maximum(best, v[key], out=best)
            arg = pooling_nd.window_argmax(v, best, keys).astype(numpy.int32)
            # A bin whose samples are all invalid passes no gradient.
            arg[xp.isneginf(best)] = -1
            y[r] = best
            self._plans.append((b, h0, h1, w0, w1, wy, wx, keys, arg))
        return (y,)

    def _apply(self, x):
        xp = backend.get_array_module(x)
        c = x.shape[1]
        y = xp.zeros((len(self._plans), c, self.outh, self.outw), x.dtype)
        for r, plan in enumerate(self._plans):
            if plan is None:
                continue
            b, h0, h1, w0, w1, wy, wx, keys, arg = plan
            crop = x[b, :, h0:h1, w0:w1].astype(wy.dtype, copy=False)
            v = roi_average_align_2d.sample(crop, wy, wx)
            for t, key in enumerate(keys):
                xp.copyto(y[r], v[key], where=arg == t, casting="unsafe")
        return y

    def _adjoint(self, gy):
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._x_shape, gy.dtype)
        c = gy.shape[1]
        for r, plan in enumerate(self._plans):
            if plan is None:
                continue
            b, h0, h1, w0, w1, wy, wx, keys, arg = plan
            g = xp.empty((c, wy.shape[0], wx.shape[0]), wy.dtype)
            for t, key in enumerate(keys):
                g[key] = gy[r] * (arg == t)
            gx[b, :, h0:h1, w0:w1] += roi_average_align_2d.sample_adjoint(g, wy, wx)
        return gx


def _tap_keys(gh, gw):
    # Sample (iy, ix) of every bin among (c, outh * gh, outw * gw) samples.
    return [
        (slice(None), slice(iy, None, gh), slice(ix, None, gw))
        for iy in range(gh)
        for ix in range(gw)
    ]


def roi_max_align_2d(x, rois, roi_indices, outsize, spatial_scale, sampling_ratio=None):
    """Region of Interest (ROI) Align function with max pooling.

    Like :func:`~chainer.functions.roi_average_align_2d`, but each bin takes
    the maximum of its bilinear samples; samples outside ``[-1, size]`` are
    skipped, and a bin without any valid sample gives ``-inf`` (as in
    Chainer 7).

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

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_max_align_2d(x, rois, np.array([0], np.int32), 2, 1.0, 2).array
        array([[[[ 7.5,  9. ],
                 [13.5, 15. ]]]], dtype=float32)
    """
    func = ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio)
    (y,) = func.apply((x, rois, roi_indices))
    return y
