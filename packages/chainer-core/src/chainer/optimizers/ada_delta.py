"""AdaDelta."""

from __future__ import annotations

from chainer import backend
from chainer import optimizer
from chainer.optimizers import _util

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.rho = 0.95
_default_hyperparam.eps = 1e-6


class AdaDeltaRule(optimizer.UpdateRule):
    """Update rule of Zeiler's ADADELTA.

    .. math::

        s &\\leftarrow \\rho s + (1 - \\rho) g^2 \\\\
        \\Delta &= \\sqrt{\\frac{d + \\epsilon}{s + \\epsilon}}\\, g \\\\
        d &\\leftarrow \\rho d + (1 - \\rho) \\Delta^2 \\\\
        w &\\leftarrow w - \\Delta

    where :math:`s` and :math:`d` are the states ``msg`` and ``msdx``. See
    :class:`~chainer.optimizers.AdaDelta` for the default values of the
    hyperparameters.

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        rho (float): Exponential decay rate of the first and second order
            moments.
        eps (float): Small value for the numerical stability.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam=None, rho=None, eps=None):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if rho is not None:
            self.hyperparam.rho = rho
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param):
        """Creates the running averages ``msg`` and ``msdx``.

        Args:
            param (~chainer.Variable): Parameter variable.
        """
        xp = backend.get_array_module(param.array)
        self.state["msg"] = xp.zeros_like(param.array)
        self.state["msdx"] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        """Applies one AdaDelta step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        rho, eps = hp.rho, hp.eps
        xp = backend.get_array_module(grad)
        msg, msdx = self.state["msg"], self.state["msdx"]
        tmp = xp.multiply(grad, grad, out=xp.empty_like(msg))
        tmp *= 1.0 - rho
        msg *= rho
        msg += tmp
        dx = xp.add(msdx, eps, out=xp.empty_like(msdx))
        xp.add(msg, eps, out=tmp)
        dx /= tmp
        xp.sqrt(dx, out=dx)
        dx *= grad
        xp.multiply(dx, dx, out=tmp)
        tmp *= 1.0 - rho
        msdx *= rho
        msdx += tmp
        data = param.array
        data -= dx


class AdaDelta(optimizer.GradientMethod):
    """Zeiler's ADADELTA.

    See: http://www.matthewzeiler.com/pubs/googleTR2012/googleTR2012.pdf

    Args:
        rho (float): Exponential decay rate of the first and second order
            moments.
        eps (float): Small value for the numerical stability.
    """

    def __init__(self, rho=_default_hyperparam.rho, eps=_default_hyperparam.eps):
        _util.check_real("AdaDelta", rho=rho, eps=eps)
        _util.check_range("AdaDelta", "rho", rho, 0, 1, high_inclusive=True)
        if eps < 0:
            raise ValueError(f"AdaDelta: eps must be non-negative; got {eps}")
        super().__init__()
        self.hyperparam.rho = rho
        self.hyperparam.eps = eps

    rho = optimizer.HyperparameterProxy("rho")
    eps = optimizer.HyperparameterProxy("eps")

    def create_update_rule(self):
        """Returns a new :class:`AdaDeltaRule` following this optimizer's values."""
        return AdaDeltaRule(self.hyperparam)
