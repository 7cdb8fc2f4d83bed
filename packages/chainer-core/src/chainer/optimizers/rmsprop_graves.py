"""Alex Graves's RMSprop with momentum."""

from __future__ import annotations

from chainer import backend
from chainer import optimizer
from chainer.optimizers import _util

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 1e-4
_default_hyperparam.alpha = 0.95
_default_hyperparam.momentum = 0.9
_default_hyperparam.eps = 1e-4


class RMSpropGravesRule(optimizer.UpdateRule):
    """Update rule for Alex Graves's RMSprop.

    .. math::

        n &\\leftarrow \\alpha n + (1 - \\alpha) g^2 \\\\
        \\bar g &\\leftarrow \\alpha \\bar g + (1 - \\alpha) g \\\\
        \\delta &\\leftarrow \\mu \\delta
            - lr \\frac{g}{\\sqrt{n - \\bar g^2 + \\epsilon}} \\\\
        w &\\leftarrow w + \\delta

    (states ``n``, ``g`` and ``delta``). See
    :class:`~chainer.optimizers.RMSpropGraves` for the default values of the
    hyperparameters.

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        lr (float): Learning rate.
        alpha (float): Exponential decay rate of the first and second order
            moments of the raw gradient.
        momentum (float): Exponential decay rate of the first order moment of
            the adjusted gradient.
        eps (float): Small value for the numerical stability.
    """

    is_elementwise = True

    def __init__(
        self, parent_hyperparam=None, lr=None, alpha=None, momentum=None, eps=None
    ):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if alpha is not None:
            self.hyperparam.alpha = alpha
        if momentum is not None:
            self.hyperparam.momentum = momentum
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param):
        """Creates the moments ``n``, ``g`` and the step ``delta``.

        Args:
            param (~chainer.Variable): Parameter variable.
        """
        xp = backend.get_array_module(param.array)
        self.state["n"] = xp.zeros_like(param.array)
        self.state["g"] = xp.zeros_like(param.array)
        self.state["delta"] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        """Applies one RMSpropGraves step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        alpha, eps = hp.alpha, hp.eps
        xp = backend.get_array_module(grad)
        n, g, delta = self.state["n"], self.state["g"], self.state["delta"]
        tmp = xp.multiply(grad, grad, out=xp.empty_like(n))
        tmp *= 1.0 - alpha
        n *= alpha
        n += tmp
        xp.multiply(grad, 1.0 - alpha, out=tmp)
        g *= alpha
        g += tmp
        xp.multiply(g, g, out=tmp)
        xp.subtract(n, tmp, out=tmp)
        tmp += eps
        xp.sqrt(tmp, out=tmp)
        xp.divide(grad, tmp, out=tmp)
        tmp *= hp.lr
        delta *= hp.momentum
        delta -= tmp
        data = param.array
        data += delta


class RMSpropGraves(optimizer.GradientMethod):
    """Alex Graves's RMSprop.

    See: https://arxiv.org/abs/1308.0850

    Args:
        lr (float): Learning rate.
        alpha (float): Exponential decay rate of the first and second order
            moments of the raw gradient.
        momentum (float): Exponential decay rate of the first order moment of
            the adjusted gradient.
        eps (float): Small value for the numerical stability.
    """

    def __init__(
        self,
        lr=_default_hyperparam.lr,
        alpha=_default_hyperparam.alpha,
        momentum=_default_hyperparam.momentum,
        eps=_default_hyperparam.eps,
    ):
        _util.check_real(
            "RMSpropGraves", lr=lr, alpha=alpha, momentum=momentum, eps=eps
        )
        _util.check_range("RMSpropGraves", "alpha", alpha, 0, 1, high_inclusive=True)
        if eps < 0:
            raise ValueError(f"RMSpropGraves: eps must be non-negative; got {eps}")
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.momentum = momentum
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy("lr")
    alpha = optimizer.HyperparameterProxy("alpha")
    momentum = optimizer.HyperparameterProxy("momentum")
    eps = optimizer.HyperparameterProxy("eps")

    def create_update_rule(self):
        """Returns a new :class:`RMSpropGravesRule` following this optimizer."""
        return RMSpropGravesRule(self.hyperparam)
