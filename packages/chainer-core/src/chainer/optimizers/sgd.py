"""Vanilla stochastic gradient descent."""

from __future__ import annotations

from chainer import optimizer
from chainer.optimizers import _util

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01


class SGDRule(optimizer.UpdateRule):
    """Update rule of vanilla stochastic gradient descent.

    .. math:: w \\leftarrow w - lr \\cdot g

    See :class:`~chainer.optimizers.SGD` for the default values of the
    hyperparameters.

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        lr (float): Learning rate.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, lr=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr

    def update_core_cpu(self, param):
        """Applies one SGD step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        data = param.array
        data -= self.hyperparam.lr * grad


class SGD(optimizer.GradientMethod):
    """Vanilla Stochastic Gradient Descent.

    Args:
        lr (float): Learning rate.
    """

    def __init__(self, lr=_default_hyperparam.lr):
        _util.check_real("SGD", lr=lr)
        super().__init__()
        self.hyperparam.lr = lr

    lr = optimizer.HyperparameterProxy("lr")

    def create_update_rule(self):
        """Returns a new :class:`SGDRule` following this optimizer's values."""
        return SGDRule(self.hyperparam)
