"""Base of the ROI nodes over ``(x, rois, roi_indices)`` (private)."""

from chainer import function_node
from chainer.functions.pooling import roi_pooling_2d


class ROIFunction2D(function_node.FunctionNode):
    """Validates ``outsize`` and ``spatial_scale``, checks the three inputs.

    A subclass is linear in ``x`` and defines ``_apply`` and ``_adjoint``
    (see :mod:`~chainer.functions.pooling.roi_pooling_2d`); no gradient flows
    to ``rois`` or ``roi_indices``.
    """

    def __init__(self, outsize, spatial_scale):
        self.outh, self.outw = roi_pooling_2d.roi_outsize(outsize)
        self.spatial_scale = roi_pooling_2d.roi_spatial_scale(spatial_scale)

    def check_type_forward(self, in_types):
        roi_pooling_2d.check_roi_inputs(in_types)

    def backward(self, indexes, grad_outputs):
        (gx,) = roi_pooling_2d.ROIAdjoint(self).apply(grad_outputs)
        return gx, None, None
