"""Momentum SGD whose velocity does not depend on the learning rate."""

from __future__ import annotations

from chainer import optimizer
from chainer.optimizers import _util
from chainer.optimizers import momentum_sgd

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class CorrectedMomentumSGDRule(momentum_sgd.MomentumSGDRule):
    """Update rule for the corrected momentum SGD.

    .. math::

        v \\leftarrow \\mu v - g, \\qquad w \\leftarrow w + lr \\cdot v

    Unlike :class:`~chainer.optimizers.momentum_sgd.MomentumSGDRule`, the
    velocity does not include the learning rate, so changing the learning
    rate during training does not distort the momentum (see Goyal et al.,
    https://arxiv.org/abs/1706.02677).

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        lr (float): Learning rate.
        momentum (float): Exponential decay rate of the first order moment.
    """

    # The hyperparameters and the velocity state are MomentumSGDRule's.

    def update_core_cpu(self, param):
        """Applies one corrected momentum SGD step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        v = self.state["v"]
        v *= hp.momentum
        v -= grad
        data = param.array
        data += hp.lr * v


class CorrectedMomentumSGD(optimizer.GradientMethod):
    """Momentum SGD optimizer with the learning rate applied after momentum.

    Args:
        lr (float): Learning rate.
        momentum (float): Exponential decay rate of the first order moment.
    """

    def __init__(
        self, lr=_default_hyperparam.lr, momentum=_default_hyperparam.momentum
    ):
        _util.check_real("CorrectedMomentumSGD", lr=lr, momentum=momentum)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    lr = optimizer.HyperparameterProxy("lr")
    momentum = optimizer.HyperparameterProxy("momentum")

    def create_update_rule(self):
        """Returns a new :class:`CorrectedMomentumSGDRule` following this optimizer."""
        return CorrectedMomentumSGDRule(self.hyperparam)
