"""AdaGrad."""

from __future__ import annotations

from chainer import backend
from chainer import optimizer
from chainer.optimizers import _util

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-8


class AdaGradRule(optimizer.UpdateRule):
    """Update rule of AdaGrad.

    .. math::

        h \\leftarrow h + g^2, \\qquad
        w \\leftarrow w - lr \\frac{g}{\\sqrt{h} + \\epsilon}

    See :class:`~chainer.optimizers.AdaGrad` for the default values of the
    hyperparameters.

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        lr (float): Learning rate.
        eps (float): Small value for the numerical stability.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, lr=None, eps=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param):
        """Creates the accumulated squared gradient ``h``.

        Args:
            param (~chainer.Variable): Parameter variable.
        """
        xp = backend.get_array_module(param.array)
        self.state["h"] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        """Applies one AdaGrad step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        eps = hp.eps
        xp = backend.get_array_module(grad)
        h = self.state["h"]
        tmp = xp.multiply(grad, grad, out=xp.empty_like(h))
        h += tmp
        xp.sqrt(h, out=tmp)
        tmp += eps
        xp.divide(grad, tmp, out=tmp)
        tmp *= hp.lr
        data = param.array
        data -= tmp


class AdaGrad(optimizer.GradientMethod):
    """AdaGrad optimizer.

    See: http://jmlr.org/papers/v12/duchi11a.html

    Args:
        lr (float): Learning rate.
        eps (float): Small value for the numerical stability.
    """

    def __init__(self, lr=_default_hyperparam.lr, eps=_default_hyperparam.eps):
        _util.check_real("AdaGrad", lr=lr, eps=eps)
        if eps < 0:
            raise ValueError(f"AdaGrad: eps must be non-negative; got {eps}")
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy("lr")
    eps = optimizer.HyperparameterProxy("eps")

    def create_update_rule(self):
        """Returns a new :class:`AdaGradRule` following this optimizer's values."""
        return AdaGradRule(self.hyperparam)
