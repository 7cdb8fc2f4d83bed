"""Adam and its variants: AdamW, AMSGrad, AdaBound and AMSBound."""

from __future__ import annotations

import math
import warnings

from chainer import backend
from chainer import optimizer
from chainer.optimizers import _util

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.alpha = 0.001
_default_hyperparam.beta1 = 0.9
_default_hyperparam.beta2 = 0.999
_default_hyperparam.eps = 1e-8
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0
_default_hyperparam.amsgrad = False
_default_hyperparam.adabound = False
_default_hyperparam.final_lr = 0.1
_default_hyperparam.gamma = 1e-3


def _learning_rate(hp, t):
    return _alpha_t(hp.alpha, hp.beta1, hp.beta2, t)


def _alpha_t(alpha, beta1, beta2, t):
    if t == 0:
        raise RuntimeError(
            "Can't determine the learning rate of Adam optimizer because the "
            "update steps have not been started."
        )
    fix1 = 1.0 - math.pow(beta1, t)
    fix2 = 1.0 - math.pow(beta2, t)
    return alpha * math.sqrt(fix2) / fix1


class AdamRule(optimizer.UpdateRule):
    """Update rule of Adam optimization algorithm.

    With the bias-corrected step size
    :math:`\\alpha_t = \\alpha \\sqrt{1 - \\beta_2^t} / (1 - \\beta_1^t)`:

    .. math::

        m &\\leftarrow \\beta_1 m + (1 - \\beta_1) g \\\\
        v &\\leftarrow \\beta_2 v + (1 - \\beta_2) g^2 \\\\
        \\hat v &\\leftarrow \\max(\\hat v, v) \\ \\text{(AMSGrad) or}\\ v \\\\
        w &\\leftarrow w - \\eta \\left(
            \\frac{\\alpha_t m}{\\sqrt{\\hat v} + \\epsilon} + \\lambda w\\right)

    With ``adabound``, the per-element step size
    :math:`\\alpha_t / (\\sqrt{\\hat v} + \\epsilon)` is clipped to bounds
    that converge to ``final_lr`` at a speed set by ``gamma``. See
    :class:`~chainer.optimizers.Adam` for the default values of the
    hyperparameters.

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        alpha (float): Coefficient of learning rate.
        beta1 (float): Exponential decay rate of the first order moment.
        beta2 (float): Exponential decay rate of the second order moment.
        eps (float): Small value for the numerical stability.
        eta (float): Schedule multiplier, can be used for warm restarts.
        weight_decay_rate (float): Weight decay rate :math:`\\lambda`
            (decoupled from the gradient, as in AdamW).
        amsgrad (bool): Whether to use the AMSGrad variant of Adam.
        adabound (bool): Whether to use the AdaBound variant of Adam.
        final_lr (float): Final (SGD) learning rate in AdaBound.
        gamma (float): Convergence speed of the bound functions in AdaBound.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam=None,
        alpha=None,
        beta1=None,
        beta2=None,
        eps=None,
        eta=None,
        weight_decay_rate=None,
        amsgrad=None,
        adabound=None,
        final_lr=None,
        gamma=None,
    ):
        super().__init__(parent_hyperparam or _default_hyperparam)
        given = {
            "alpha": alpha,
            "beta1": beta1,
            "beta2": beta2,
            "eps": eps,
            "eta": eta,
            "weight_decay_rate": weight_decay_rate,
            "amsgrad": amsgrad,
            "adabound": adabound,
            "final_lr": final_lr,
            "gamma": gamma,
        }
        for name, value in given.items():
            if value is not None:
                setattr(self.hyperparam, name, value)
        # AdaBound scales its bounds by alpha / initial alpha, so that an
        # alpha schedule also moves the final learning rate.
        self.initial_alpha = None

    def init_state(self, param):
        """Creates the moments ``m``, ``v`` (and ``vhat`` for AMSGrad).

        Args:
            param (~chainer.Variable): Parameter variable.
        """
        xp = backend.get_array_module(param.array)
        self.state["m"] = xp.zeros_like(param.array)
        self.state["v"] = xp.zeros_like(param.array)
        if self.hyperparam.amsgrad:
            self.state["vhat"] = xp.zeros_like(param.array)

    def check_eps(self, dtype):
        """Raises ValueError if ``hyperparam.eps`` rounds to zero in ``dtype``.

        The check every step makes, as Chainer does, before dividing by a
        root of ``v`` and ``eps`` (kernel overrides of this rule make it too).

        Args:
            dtype: The gradient's dtype.
        """
        _util.check_eps("Adam", self.hyperparam.eps, dtype)

    def update_core_cpu(self, param):
        """Applies one Adam step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        eps = hp.eps
        _util.check_eps("Adam", eps, grad.dtype)
        alpha, beta1, beta2, eta = hp.alpha, hp.beta1, hp.beta2, hp.eta
        alpha_t = _alpha_t(alpha, beta1, beta2, self.t)
        xp = backend.get_array_module(grad)
        state = self.state
        m, v = state["m"], state["v"]
        # One scratch array serves every intermediate step.
        tmp = xp.subtract(grad, m, out=xp.empty_like(m))
        tmp *= 1.0 - beta1
        m += tmp
        xp.multiply(grad, grad, out=tmp)
        tmp -= v
        tmp *= 1.0 - beta2
        v += tmp
        if hp.amsgrad:
            vhat = state.get("vhat")
            if vhat is None:
                vhat = state["vhat"] = v.copy()
            xp.maximum(vhat, v, out=vhat)
        else:
            vhat = v
        xp.sqrt(vhat, out=tmp)
        tmp += eps
        if hp.adabound:
            lower, upper = self._bounds(hp)
            xp.divide(alpha_t, tmp, out=tmp)
            xp.clip(tmp, lower, upper, out=tmp)
            tmp *= m
            if eta != 1:
                tmp *= eta
        else:
            xp.divide(m, tmp, out=tmp)
            tmp *= eta * alpha_t
        data = param.array
        weight_decay_rate = hp.weight_decay_rate
        if weight_decay_rate != 0:
            data *= 1.0 - eta * weight_decay_rate
        data -= tmp

    def step_size_bounds(self):
        """Returns ``(lower, upper)``, AdaBound's clip of the step size now.

        Used when ``hyperparam.adabound`` is set: the per-element step size
        ``alpha_t / (sqrt(v) + eps)`` is clipped to these bounds, which close
        in on ``final_lr`` (scaled by how ``alpha`` changed since the first
        step) as ``t`` grows.

        Returns:
            tuple of float: The lower and upper bound.
        """
        return self._bounds(self.hyperparam)

    def _bounds(self, hp):
        if self.initial_alpha is None:
            self.initial_alpha = hp.alpha
        final_lr = hp.final_lr * hp.alpha / self.initial_alpha
        gamma_t = hp.gamma * self.t
        lower = final_lr * (1.0 - 1.0 / (gamma_t + 1.0))
        upper = final_lr * (1.0 + 1.0 / gamma_t)
        return lower, upper

    @property
    def alpha_t(self):
        """Bias-corrected step size :math:`\\alpha_t` of the current step."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self):
        """Deprecated alias of :attr:`alpha_t`."""
        warnings.warn(
            "AdamRule.lr has been renamed to AdamRule.alpha_t. "
            "Use of AdamRule.lr is deprecated in Chainer v6.",
            DeprecationWarning,
        )
        return self.alpha_t


def _check_adam_args(
    cls_name,
    alpha,
    beta1,
    beta2,
    eps,
    eta,
    weight_decay_rate,
    final_lr,
    gamma,
    adabound,
):
    _util.check_real(
        cls_name,
        alpha=alpha,
        beta1=beta1,
        beta2=beta2,
        eps=eps,
        eta=eta,
        weight_decay_rate=weight_decay_rate,
        final_lr=final_lr,
        gamma=gamma,
    )
    _util.check_range(cls_name, "beta1", beta1, 0, 1)
    _util.check_range(cls_name, "beta2", beta2, 0, 1)
    if eps < 0:
        raise ValueError(f"{cls_name}: eps must be non-negative; got {eps}")
    if adabound and not gamma > 0:
        raise ValueError(f"{cls_name}: gamma must be positive; got {gamma}")


class Adam(optimizer.GradientMethod):
    """Adam optimizer, with optional AdamW, AMSGrad and AdaBound behaviour.

    The base algorithm is from `Adam: A Method for Stochastic Optimization
    <https://arxiv.org/abs/1412.6980v8>`_. Two extra hyperparameters follow
    `Fixing Weight Decay Regularization in Adam
    <https://openreview.net/forum?id=rk6qdGgCZ>`_ (AdamW): ``eta`` multiplies
    the whole step (a schedule multiplier, e.g. for warm restarts) and
    ``weight_decay_rate`` decays the weights directly, decoupled from
    ``alpha``. ``amsgrad=True`` uses the running maximum of the second
    moment (`On the Convergence of Adam and Beyond
    <https://openreview.net/forum?id=ryQu7f-RZ>`_); ``adabound=True`` clips
    the per-element step size between bounds that converge to ``final_lr``
    (`Adaptive Gradient Methods with Dynamic Bound of Learning Rate
    <https://openreview.net/forum?id=Bkg3g2R9FX>`_). Both flags together
    give AMSBound.

    Args:
        alpha (float): Coefficient of learning rate.
        beta1 (float): Exponential decay rate of the first order moment.
        beta2 (float): Exponential decay rate of the second order moment.
        eps (float): Small value for the numerical stability.
        eta (float): Schedule multiplier, can be used for warm restarts.
        weight_decay_rate (float): Weight decay rate.
        amsgrad (bool): Whether to use AMSGrad variant of Adam.
        adabound (bool): Whether to use the AdaBound variant of Adam.
        final_lr (float): Final (SGD) learning rate in AdaBound.
        gamma (float): Convergence speed of the bound functions in AdaBound.
    """

    def __init__(
        self,
        alpha=_default_hyperparam.alpha,
        beta1=_default_hyperparam.beta1,
        beta2=_default_hyperparam.beta2,
        eps=_default_hyperparam.eps,
        eta=_default_hyperparam.eta,
        weight_decay_rate=_default_hyperparam.weight_decay_rate,
        amsgrad=_default_hyperparam.amsgrad,
        adabound=_default_hyperparam.adabound,
        final_lr=_default_hyperparam.final_lr,
        gamma=_default_hyperparam.gamma,
    ):
        _check_adam_args(
            type(self).__name__,
            alpha,
            beta1,
            beta2,
            eps,
            eta,
            weight_decay_rate,
            final_lr,
            gamma,
            adabound,
        )
        super().__init__()
        hp = self.hyperparam
        hp.alpha = alpha
        hp.beta1 = beta1
        hp.beta2 = beta2
        hp.eps = eps
        hp.eta = eta
        hp.weight_decay_rate = weight_decay_rate
        hp.amsgrad = bool(amsgrad)
        hp.adabound = bool(adabound)
        hp.final_lr = final_lr
        hp.gamma = gamma

    alpha = optimizer.HyperparameterProxy("alpha")
    beta1 = optimizer.HyperparameterProxy("beta1")
    beta2 = optimizer.HyperparameterProxy("beta2")
    eps = optimizer.HyperparameterProxy("eps")
    eta = optimizer.HyperparameterProxy("eta")
    weight_decay_rate = optimizer.HyperparameterProxy("weight_decay_rate")
    amsgrad = optimizer.HyperparameterProxy("amsgrad")
    adabound = optimizer.HyperparameterProxy("adabound")
    final_lr = optimizer.HyperparameterProxy("final_lr")
    gamma = optimizer.HyperparameterProxy("gamma")

    def create_update_rule(self):
        """Returns a new :class:`AdamRule` following this optimizer's values."""
        return AdamRule(self.hyperparam)

    @property
    def alpha_t(self):
        """Bias-corrected step size at the optimizer's current step ``t``."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self):
        """Deprecated alias of :attr:`alpha_t`."""
        warnings.warn(
            "Adam.lr has been renamed to Adam.alpha_t. "
            "Use of Adam.lr is deprecated in Chainer v6.",
            DeprecationWarning,
        )
        return self.alpha_t


class AdamW(Adam):
    """AdamW optimizer: Adam with decoupled weight decay.

    This is :class:`~chainer.optimizers.Adam` with ``amsgrad=False`` and
    ``adabound=False``; ``weight_decay_rate`` multiplies the parameter
    directly instead of being added to the gradient.

    See: `Fixing Weight Decay Regularization in Adam
    <https://openreview.net/forum?id=rk6qdGgCZ>`_

    Args:
        alpha (float): Coefficient of learning rate.
        beta1 (float): Exponential decay rate of the first order moment.
        beta2 (float): Exponential decay rate of the second order moment.
        eps (float): Small value for the numerical stability.
        eta (float): Schedule multiplier, can be used for warm restarts.
            The default value is 1.0.
        weight_decay_rate (float): Weight decay rate.
            The default value is 0.
    """

    def __init__(
        self,
        alpha=_default_hyperparam.alpha,
        beta1=_default_hyperparam.beta1,
        beta2=_default_hyperparam.beta2,
        eps=_default_hyperparam.eps,
        eta=_default_hyperparam.eta,
        weight_decay_rate=_default_hyperparam.weight_decay_rate,
    ):
        super().__init__(
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            weight_decay_rate=weight_decay_rate,
        )


class AMSGrad(Adam):
    """AMSGrad optimizer: Adam with the maximum of past second moments.

    This is :class:`~chainer.optimizers.Adam` with ``amsgrad=True``.

    See: `On the Convergence of Adam and Beyond
    <https://openreview.net/forum?id=ryQu7f-RZ>`_

    Args:
        alpha (float): Coefficient of learning rate.
        beta1 (float): Exponential decay rate of the first order moment.
        beta2 (float): Exponential decay rate of the second order moment.
        eps (float): Small value for the numerical stability.
        eta (float): Schedule multiplier, can be used for warm restarts.
    """

    def __init__(
        self,
        alpha=_default_hyperparam.alpha,
        beta1=_default_hyperparam.beta1,
        beta2=_default_hyperparam.beta2,
        eps=_default_hyperparam.eps,
        eta=_default_hyperparam.eta,
    ):
        super().__init__(
            alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, amsgrad=True
        )


class AdaBound(Adam):
    """AdaBound optimizer: Adam with step sizes clipped by dynamic bounds.

    This is :class:`~chainer.optimizers.Adam` with ``adabound=True``.

    See: `Adaptive Gradient Methods with Dynamic Bound of Learning Rate
    <https://openreview.net/forum?id=Bkg3g2R9FX>`_

    Args:
        alpha (float): Coefficient of learning rate.
        beta1 (float): Exponential decay rate of the first order moment.
        beta2 (float): Exponential decay rate of the second order moment.
        final_lr (float): Final (SGD) learning rate in AdaBound.
        gamma (float): Convergence speed of the bound functions in AdaBound.
        eps (float): Small value for the numerical stability.
        eta (float): Schedule multiplier, can be used for warm restarts.
    """

    def __init__(
        self,
        alpha=_default_hyperparam.alpha,
        beta1=_default_hyperparam.beta1,
        beta2=_default_hyperparam.beta2,
        final_lr=_default_hyperparam.final_lr,
        gamma=_default_hyperparam.gamma,
        eps=_default_hyperparam.eps,
        eta=_default_hyperparam.eta,
    ):
        super().__init__(
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            adabound=True,
            final_lr=final_lr,
            gamma=gamma,
        )


class AMSBound(Adam):
    """AMSBound optimizer: AdaBound with the AMSGrad second moment.

    This is :class:`~chainer.optimizers.Adam` with ``amsgrad=True`` and
    ``adabound=True``.

    See: `Adaptive Gradient Methods with Dynamic Bound of Learning Rate
    <https://openreview.net/forum?id=Bkg3g2R9FX>`_

    Args:
        alpha (float): Coefficient of learning rate.
        beta1 (float): Exponential decay rate of the first order moment.
        beta2 (float): Exponential decay rate of the second order moment.
        final_lr (float): Final (SGD) learning rate in AdaBound.
        gamma (float): Convergence speed of the bound functions in AdaBound.
        eps (float): Small value for the numerical stability.
        eta (float): Schedule multiplier, can be used for warm restarts.
    """

    def __init__(
        self,
        alpha=_default_hyperparam.alpha,
        beta1=_default_hyperparam.beta1,
        beta2=_default_hyperparam.beta2,
        final_lr=_default_hyperparam.final_lr,
        gamma=_default_hyperparam.gamma,
        eps=_default_hyperparam.eps,
        eta=_default_hyperparam.eta,
    ):
        super().__init__(
            alpha=alpha,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            eta=eta,
            amsgrad=True,
            adabound=True,
            final_lr=final_lr,
            gamma=gamma,
        )
