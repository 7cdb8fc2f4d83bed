"""Lasso (L1 regularization) hook."""

from __future__ import annotations

from chainer import backend
from chainer.optimizer_hooks import _util


class Lasso:
    """Optimizer/UpdateRule hook function for Lasso regularization.

    It adds ``rate`` times the sign of the parameter to its gradient, i.e.
    the (sub)gradient of the L1 penalty :math:`rate \\|w\\|_1`.

    Args:
        rate (float): Coefficient for the L1 penalty.

    Attributes:
        rate (float): Coefficient for the L1 penalty.
        timing (str): ``'pre'`` (default) or ``'post'``: when the hook runs
            relative to the update.
        call_for_each_param (bool): True; the optimizer calls it as
            ``hook(rule, param)`` for each parameter.
    """

    name = "Lasso"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, rate):
        _util.check_number("Lasso", "rate", rate)
        self.rate = rate

    def __call__(self, rule, param):
        """Adds ``rate * sign(param)`` to the gradient of ``param``.

        Args:
            rule (~chainer.UpdateRule): Update rule of the parameter.
            param (~chainer.Parameter): The parameter.
        """
        p, g = param.array, param.grad
        if p is None or g is None or self.rate == 0:
            return
        rate = self.rate * _util.loss_scale(param)
        with param.device:
            xp = backend.get_array_module(p)
            sign = xp.sign(p)
            sign *= rate
            g += sign
