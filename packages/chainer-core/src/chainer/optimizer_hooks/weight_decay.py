"""Weight decay (L2 regularization) hook."""

from __future__ import annotations

from chainer.optimizer_hooks import _util


class WeightDecay:
    """Optimizer/UpdateRule hook function for weight decay regularization.

    It adds the parameter times ``rate`` to its gradient, i.e. the gradient
    of the L2 penalty :math:`\\frac{rate}{2} \\|w\\|^2`. Register it with
    :meth:`~chainer.Optimizer.add_hook` (applied to every parameter) or
    :meth:`~chainer.UpdateRule.add_hook` (one parameter).

    Args:
        rate (float): Coefficient for the weight decay.

    Attributes:
        rate (float): Coefficient for the weight decay.
        timing (str): ``'pre'`` (default) or ``'post'``: when the hook runs
            relative to the update.
        call_for_each_param (bool): True; the optimizer calls it as
            ``hook(rule, param)`` for each parameter.
    """

    name = "WeightDecay"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, rate):
        _util.check_number("WeightDecay", "rate", rate)
        self.rate = rate

    def __call__(self, rule, param):
        """Adds ``rate * param`` to the gradient of ``param``.

        Args:
            rule (~chainer.UpdateRule): Update rule of the parameter.
            param (~chainer.Parameter): The parameter.
        """
        p, g = param.array, param.grad
        if p is None or g is None or self.rate == 0:
            return
        rate = self.rate * _util.loss_scale(param)
        with param.device:
            g += rate * p
