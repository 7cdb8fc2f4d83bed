"""Layer-wise adaptive rate scaling (LARS) hook."""

from __future__ import annotations

from chainer import backend
from chainer.optimizer_hooks import _util


class GradientLARS:
    """Optimizer/UpdateRule hook function for layer-wise adaptive rate scaling.

    For each parameter :math:`w` with gradient :math:`g` it computes the
    local rate

    .. math::

        \\lambda = \\frac{\\|w\\|}{\\epsilon + \\|g\\| + \\beta \\|w\\|}

    and replaces the gradient by :math:`\\lambda' (g + \\beta w)`, where
    :math:`\\lambda' = \\lambda` if :math:`\\lambda` exceeds ``threshold``
    and 1 otherwise. With momentum SGD this gives the LARS update of
    `Large Batch Training of Convolutional Networks
    <https://arxiv.org/abs/1708.03888>`_ (see also
    https://arxiv.org/abs/1801.03137).

    Args:
        threshold (float): If the local rate is not larger than this, the
            rate 1 is used instead.
        weight_decay (float): Coefficient :math:`\\beta` of the weight decay.
        eps (float): Small value for numerical stability.

    Attributes:
        threshold (float): Threshold of the local rate.
        weight_decay (float): Coefficient of the weight decay.
        eps (float): Small value for numerical stability.
        timing (str): ``'pre'`` (default) or ``'post'``: when the hook runs
            relative to the update.
        call_for_each_param (bool): True; the optimizer calls it as
            ``hook(rule, param)`` for each parameter.
    """

    name = "GradientLARS"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, threshold=0.01, weight_decay=0.0, eps=1e-9):
        for arg_name, value in (
            ("threshold", threshold),
            ("weight_decay", weight_decay),
            ("eps", eps),
        ):
            _util.check_number("GradientLARS", arg_name, value)
        if eps < 0:
            raise ValueError(f"GradientLARS: eps must be non-negative; got {eps}")
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def __call__(self, rule, param):
        """Rescales the gradient of ``param`` by its local rate.

        Args:
            rule (~chainer.UpdateRule): Update rule of the parameter.
            param (~chainer.Parameter): The parameter.
        """
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        scale = _util.loss_scale(param)
        with param.device:
            xp = backend.get_array_module(p)
            p_norm = xp.linalg.norm(_util.float_for_norm(p))
            g_norm = xp.linalg.norm(_util.float_for_norm(g)) / scale
            local_rate = p_norm / (self.eps + g_norm + self.weight_decay * p_norm)
            # Kept on the device: no synchronization for device backends.
            rate = xp.where(local_rate > self.threshold, local_rate, 1.0)
            if self.weight_decay != 0:
                g += (self.weight_decay * scale) * p
            g *= rate.astype(g.dtype)
