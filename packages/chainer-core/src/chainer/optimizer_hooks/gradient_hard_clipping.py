"""Element-wise gradient clipping hook."""

from __future__ import annotations

from chainer import backend
from chainer.optimizer_hooks import _util


class GradientHardClipping:
    """Optimizer/UpdateRule hook function for gradient clipping.

    It clips every element of the gradient to
    ``[lower_bound, upper_bound]`` in place.

    Args:
        lower_bound (float): The lower bound of the gradient value.
        upper_bound (float): The upper bound of the gradient value.

    Attributes:
        lower_bound (float): The lower bound of the gradient value.
        upper_bound (float): The upper bound of the gradient value.
        timing (str): ``'pre'`` (default) or ``'post'``: when the hook runs
            relative to the update.
        call_for_each_param (bool): True; the optimizer calls it as
            ``hook(rule, param)`` for each parameter.
    """

    name = "GradientHardClipping"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, lower_bound, upper_bound):
        _util.check_number("GradientHardClipping", "lower_bound", lower_bound)
        _util.check_number("GradientHardClipping", "upper_bound", upper_bound)
        if lower_bound > upper_bound:
            raise ValueError(
                "GradientHardClipping: lower_bound must not exceed upper_bound; "
                f"got {lower_bound} > {upper_bound}"
            )
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __call__(self, rule, param):
        """Clips the gradient of ``param`` in place.

        Args:
            rule (~chainer.UpdateRule): Update rule of the parameter.
            param (~chainer.Parameter): The parameter.
        """
        g = param.grad
        if g is None:
            return
        # Bounds apply to the true gradient, so scale them like the gradient.
        scale = _util.loss_scale(param)
        with param.device:
            xp = backend.get_array_module(g)
            xp.clip(g, self.lower_bound * scale, self.upper_bound * scale, out=g)
