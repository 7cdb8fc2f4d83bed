"""Nesterov's accelerated gradient."""

from __future__ import annotations

from chainer import backend
from chainer import optimizer
from chainer.optimizers import _util
from chainer.optimizers import momentum_sgd

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class NesterovAGRule(momentum_sgd.MomentumSGDRule):
    """Update rule for Nesterov's Accelerated Gradient.

    .. math::

        v \\leftarrow \\mu v - lr \\cdot g, \\qquad
        w \\leftarrow w + \\mu^2 v - (1 + \\mu)\\, lr \\cdot g

    (the formulation of Bengio et al., https://arxiv.org/abs/1212.0901).

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        lr (float): Learning rate.
        momentum (float): Exponential decay rate of the first order moment.
    """

    # The hyperparameters and the velocity state are MomentumSGDRule's.

    def update_core_cpu(self, param):
        """Applies one Nesterov step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        lr, mu = hp.lr, hp.momentum
        xp = backend.get_array_module(grad)
        v = self.state["v"]
        data = param.array
        step = xp.multiply(grad, lr, out=xp.empty_like(v))
        v *= mu
        v -= step
        step *= 1.0 + mu
        data -= step
        xp.multiply(v, mu * mu, out=step)
        data += step


class NesterovAG(optimizer.GradientMethod):
    """Nesterov's Accelerated Gradient.

    See: https://arxiv.org/abs/1212.0901

    Args:
        lr (float): Learning rate.
        momentum (float): Exponential decay rate of the first order moment.
    """

    def __init__(
        self, lr=_default_hyperparam.lr, momentum=_default_hyperparam.momentum
    ):
        _util.check_real("NesterovAG", lr=lr, momentum=momentum)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy("lr")
    momentum = optimizer.HyperparameterProxy("momentum")

    def create_update_rule(self):
        """Returns a new :class:`NesterovAGRule` following this optimizer."""
        return NesterovAGRule(self.hyperparam)
