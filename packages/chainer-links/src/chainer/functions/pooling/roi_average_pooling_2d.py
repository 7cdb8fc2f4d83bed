import numpy

from chainer import backend
from chainer.functions.pooling import _roi
from chainer.functions.pooling import roi_pooling_2d


class ROIAveragePooling2D(_roi.ROIFunction2D):
    """ROI average pooling over rois ``(y_min, x_min, y_max, x_max)``.

    Bin sums come from a summed-area table of ``x`` and the gradient from a
    corner-difference table, for all ROIs at once.
    """

    def forward(self, inputs):
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        self._x_shape = x.shape
        batch, hlo, hhi, wlo, whi = roi_pooling_2d.roi_bins(
            x.shape,
            roi_indices,
            rois.astype(numpy.float64),
            (self.outh, self.outw),
            self.spatial_scale,
            False,
        )
        # Corner coordinates broadcast to (R, outh, outw).
        self._b = batch[:, None, None]
        self._h = (hlo[:, :, None], hhi[:, :, None])
        self._w = (wlo[:, None, :], whi[:, None, :])
        area = (hhi - hlo)[:, :, None] * (whi - wlo)[:, None, :]
        # NOTE: an empty bin averages nothing and gives 0.
        self._scale = xp.where(area > 0, 1.0 / xp.maximum(area, 1), 0.0)
        return (self._apply(x),)

    def _apply(self, x):
        xp = backend.get_array_module(x)
        n, c, h, w = x.shape
        table = xp.zeros((n, h + 1, w + 1, c), numpy.float64)
        xt = x.transpose(0, 2, 3, 1)
        xp.cumsum(
            xp.cumsum(xt, axis=1, dtype=numpy.float64), axis=2, out=table[:, 1:, 1:]
        )
        (h0, h1), (w0, w1), b = self._h, self._w, self._b
        s = table[b, h1, w1] - table[b, h0, w1] - table[b, h1, w0] + table[b, h0, w0]
        s *= self._scale[..., None]
        return s.astype(x.dtype).transpose(0, 3, 1, 2)

    def _adjoint(self, gy):
        xp = backend.get_array_module(gy)
        n, c, h, w = self._x_shape
        r, _, outh, outw = gy.shape
        g = gy.transpose(0, 2, 3, 1) * self._scale[..., None]
        g = g.reshape(r * outh * outw, c)
        (h0, h1), (w0, w1), b = self._h, self._w, self._b
        # A box's indicator is the 2-d prefix sum of +1/-1 at its corners.
        size = n * (h + 1) * (w + 1)
        corners = []
        weights = []
        for hh, ww, sign in ((h0, w0, 1), (h0, w1, -1), (h1, w0, -1), (h1, w1, 1)):
            flat = (b * (h + 1) + hh) * (w + 1) + ww
            corners.append(xp.broadcast_to(flat, (r, outh, outw)).ravel())
            weights.append(g if sign > 0 else -g)
        flat = xp.concatenate(corners)[:, None] * c + xp.arange(c)
        table = xp.bincount(
            flat.reshape(-1),
            weights=xp.concatenate(weights).reshape(-1),
            minlength=size * c,
        ).reshape(n, h + 1, w + 1, c)
        gx = xp.cumsum(xp.cumsum(table, axis=1), axis=2)[:, :h, :w]
        return xp.ascontiguousarray(gx.transpose(0, 3, 1, 2).astype(gy.dtype))


def roi_average_pooling_2d(x, rois, roi_indices, outsize, spatial_scale):
    """Spatial Region of Interest (ROI) average pooling function.

    Acts like average pooling over each region of interest: the ROI, scaled
    by ``spatial_scale`` and rounded, is split into an ``outh x outw`` grid of
    bins and each bin of each channel is reduced to the mean of its input
    elements (0 for an empty bin). Bins are laid out as in
    :func:`~chainer.functions.roi_max_pooling_2d`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        rois (~chainer.Variable or :ref:`ndarray`): ``(R, 4)`` array of
            ``x``'s dtype; row ``i`` is ``(y_min, x_min, y_max, x_max)``.
        roi_indices (~chainer.Variable or :ref:`ndarray`): ``(R,)`` int32
            image index (into ``x``'s batch) of each ROI.
        outsize (int or pair of ints): Output size ``(outh, outw)``.
        spatial_scale (float): Scale from ROI coordinates to ``x``'s.

    Returns:
        ~chainer.Variable: Output of shape ``(R, c, outh, outw)``, same dtype
        as ``x``. No gradient flows to ``rois``.

    Raises:
        TypeError: If ``outsize`` or ``spatial_scale`` is not positive.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_average_pooling_2d(
        ...     x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    func = ROIAveragePooling2D(outsize, spatial_scale)
    (y,) = func.apply((x, rois, roi_indices))
    return y
