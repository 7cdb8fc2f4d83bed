"""SMORMS3 (Simon Funk)."""

from __future__ import annotations

from chainer import backend
from chainer import optimizer
from chainer.optimizers import _util

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-16


class SMORMS3Rule(optimizer.UpdateRule):
    """Update rule for Simon Funk's SMORMS3.

    With the memory :math:`m` (initially 1) and :math:`r = 1 / (m + 1)`:

    .. math::

        \\bar g &\\leftarrow (1 - r) \\bar g + r g \\\\
        \\bar{g^2} &\\leftarrow (1 - r) \\bar{g^2} + r g^2 \\\\
        x &= \\bar g^2 / (\\bar{g^2} + \\epsilon) \\\\
        w &\\leftarrow w - g \\frac{\\min(x, lr)}{\\sqrt{\\bar{g^2}} + \\epsilon}
            \\\\
        m &\\leftarrow 1 + m (1 - x)

    (states ``mem``, ``g`` and ``g2``). See
    :class:`~chainer.optimizers.SMORMS3` for the default values of the
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
        """Creates the memory ``mem`` (ones) and the moments ``g``, ``g2``.

        Args:
            param (~chainer.Variable): Parameter variable.
        """
        xp = backend.get_array_module(param.array)
        self.state["mem"] = xp.ones_like(param.array)
        self.state["g"] = xp.zeros_like(param.array)
        self.state["g2"] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        """Applies one SMORMS3 step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        eps = hp.eps
        xp = backend.get_array_module(grad)
        mem, g, g2 = self.state["mem"], self.state["g"], self.state["g2"]
        r = xp.add(mem, 1.0, out=xp.empty_like(mem))
        xp.reciprocal(r, out=r)
        tmp = xp.subtract(grad, g, out=xp.empty_like(g))
        tmp *= r
        g += tmp
        xp.multiply(grad, grad, out=tmp)
        tmp -= g2
        tmp *= r
        g2 += tmp
        # x = g^2 / (g2 + eps), kept in ``r`` (r is not needed any more).
        x = xp.multiply(g, g, out=r)
        xp.add(g2, eps, out=tmp)
        x /= tmp
        step = xp.minimum(x, hp.lr, out=xp.empty_like(x))
        step *= grad
        xp.sqrt(g2, out=tmp)
        tmp += eps
        step /= tmp
        data = param.array
        data -= step
        xp.subtract(1.0, x, out=x)
        mem *= x
        mem += 1.0


class SMORMS3(optimizer.GradientMethod):
    """Simon Funk's SMORMS3.

    See http://sifter.org/~simon/journal/20150420.html.

    Args:
        lr (float): Learning rate.
        eps (float): Small value for the numerical stability.
    """

    def __init__(self, lr=_default_hyperparam.lr, eps=_default_hyperparam.eps):
        _util.check_real("SMORMS3", lr=lr, eps=eps)
        if eps < 0:
            raise ValueError(f"SMORMS3: eps must be non-negative; got {eps}")
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    lr = optimizer.HyperparameterProxy("lr")
    eps = optimizer.HyperparameterProxy("eps")

    def create_update_rule(self):
        """Returns a new :class:`SMORMS3Rule` following this optimizer's values."""
        return SMORMS3Rule(self.hyperparam)
