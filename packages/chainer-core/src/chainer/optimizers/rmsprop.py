"""RMSprop."""

from __future__ import annotations

from chainer import backend
from chainer import optimizer
from chainer.optimizers import _util

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.alpha = 0.99
_default_hyperparam.eps = 1e-8
_default_hyperparam.eps_inside_sqrt = False


class RMSpropRule(optimizer.UpdateRule):
    """Update rule for RMSprop.

    .. math::

        s \\leftarrow \\alpha s + (1 - \\alpha) g^2, \\qquad
        w \\leftarrow w - lr \\frac{g}{\\sqrt{s} + \\epsilon}

    or :math:`\\sqrt{s + \\epsilon}` in the denominator if
    ``eps_inside_sqrt``. See :class:`~chainer.optimizers.RMSprop` for the
    default values of the hyperparameters.

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        lr (float): Learning rate.
        alpha (float): Exponential decay rate of the second order moment.
        eps (float): Small value for the numerical stability.
        eps_inside_sqrt (bool): When True, gradient will be divided by
            :math:`\\sqrt{ms + eps}` where ``ms`` is the mean square. When
            False (default), gradient will be divided by
            :math:`\\sqrt{ms} + eps` instead.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam=None,
        lr=None,
        alpha=None,
        eps=None,
        eps_inside_sqrt=None,
    ):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if alpha is not None:
            self.hyperparam.alpha = alpha
        if eps is not None:
            self.hyperparam.eps = eps
        if eps_inside_sqrt is not None:
            self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    def init_state(self, param):
        """Creates the mean square ``ms``.

        Args:
            param (~chainer.Variable): Parameter variable.
        """
        xp = backend.get_array_module(param.array)
        self.state["ms"] = xp.zeros_like(param.array)

    def check_eps(self, dtype):
        """Raises ValueError if ``hyperparam.eps`` rounds to zero in ``dtype``.

        The check every step makes, as Chainer does, before dividing by a
        root of ``v`` and ``eps`` (kernel overrides of this rule make it too).

        Args:
            dtype: The gradient's dtype.
        """
        _util.check_eps("RMSprop", self.hyperparam.eps, dtype)

    def update_core_cpu(self, param):
        """Applies one RMSprop step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        alpha, eps = hp.alpha, hp.eps
        _util.check_eps("RMSprop", eps, grad.dtype)
        xp = backend.get_array_module(grad)
        ms = self.state["ms"]
        tmp = xp.multiply(grad, grad, out=xp.empty_like(ms))
        tmp *= 1.0 - alpha
        ms *= alpha
        ms += tmp
        if hp.eps_inside_sqrt:
            xp.add(ms, eps, out=tmp)
            xp.sqrt(tmp, out=tmp)
        else:
            xp.sqrt(ms, out=tmp)
            tmp += eps
        xp.divide(grad, tmp, out=tmp)
        tmp *= hp.lr
        data = param.array
        data -= tmp


class RMSprop(optimizer.GradientMethod):
    """RMSprop optimizer.

    See: T. Tieleman and G. Hinton (2012). Lecture 6.5 - rmsprop, COURSERA:
    Neural Networks for Machine Learning.

    Args:
        lr (float): Learning rate.
        alpha (float): Exponential decay rate of the second order moment.
        eps (float): Small value for the numerical stability.
        eps_inside_sqrt (bool): When True, gradient will be divided by
            :math:`\\sqrt{ms + eps}` where ``ms`` is the mean square. When
            False (default), gradient will be divided by
            :math:`\\sqrt{ms} + eps` instead.
    """

    def __init__(
        self,
        lr=_default_hyperparam.lr,
        alpha=_default_hyperparam.alpha,
        eps=_default_hyperparam.eps,
        eps_inside_sqrt=_default_hyperparam.eps_inside_sqrt,
    ):
        _util.check_real("RMSprop", lr=lr, alpha=alpha, eps=eps)
        _util.check_range("RMSprop", "alpha", alpha, 0, 1, high_inclusive=True)
        if eps < 0:
            raise ValueError(f"RMSprop: eps must be non-negative; got {eps}")
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.eps = eps
        self.hyperparam.eps_inside_sqrt = bool(eps_inside_sqrt)

    lr = optimizer.HyperparameterProxy("lr")
    alpha = optimizer.HyperparameterProxy("alpha")
    eps = optimizer.HyperparameterProxy("eps")
    eps_inside_sqrt = optimizer.HyperparameterProxy("eps_inside_sqrt")

    def create_update_rule(self):
        """Returns a new :class:`RMSpropRule` following this optimizer's values."""
        return RMSpropRule(self.hyperparam)
