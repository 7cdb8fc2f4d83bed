import numpy

from chainer.functions.pooling import _roi
from chainer.functions.pooling import roi_pooling_2d


class ROIMaxPooling2D(_roi.ROIFunction2D, roi_pooling_2d.ROIPooling2D):
    """ROI max pooling over rois ``(y_min, x_min, y_max, x_max)``."""

    _plus_one = False
    # NOTE: Chainer 7 gives -inf for a bin that holds no input element.
    _empty_value = -numpy.inf

    def forward(self, inputs):
        x, rois, roi_indices = inputs
        return (self._max_pool(x, roi_indices, rois.astype(numpy.float64)),)


def roi_max_pooling_2d(x, rois, roi_indices, outsize, spatial_scale):
    """Spatial Region of Interest (ROI) max pooling function.

    Acts like max pooling over each region of interest: the ROI, scaled by
    ``spatial_scale`` and rounded, is split into an ``outh x outw`` grid of
    bins and each bin of each channel is reduced to its maximum (``-inf``
    for an empty bin, e.g. outside the image, as in Chainer 7). Unlike
    :func:`~chainer.functions.roi_pooling_2d`, the end coordinate is
    exclusive and ROIs come with a separate index array.

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
        >>> F.roi_max_pooling_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    func = ROIMaxPooling2D(outsize, spatial_scale)
    (y,) = func.apply((x, rois, roi_indices))
    return y
