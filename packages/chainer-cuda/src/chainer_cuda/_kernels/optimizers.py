"""Kernel overrides of optimizer update rules: one fused kernel per step.

Each ``kernel(rule, param)`` does what ``rule.update_core_cpu(param)`` does for
a CuPy parameter: the same checks, hyperparameters and state, with every
array-module operation fused into one elementwise kernel. ``UpdateRule.
update_core`` calls it with the parameter's device made current, and only
for a parameter that has a gradient.
"""

from __future__ import annotations

import cupy
import numpy

from chainer_cuda._kernels import _compiled
from chainer_cuda._kernels import sources


def sgd(rule, param):
    """One ``SGDRule`` step: ``w -= lr * g``.

    Args:
        rule (~chainer.optimizers.sgd.SGDRule): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    _compiled.get(sources.SGD)(grad, float(rule.hyperparam.lr), param.array)


def momentum_sgd(rule, param):
    """One ``MomentumSGDRule`` step.

    Args:
        rule (~chainer.optimizers.MomentumSGD): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    _compiled.get(sources.MOMENTUM_SGD)(
        grad, float(hp.lr), float(hp.momentum), param.array, rule.state["v"]
    )


def nesterov_ag(rule, param):
    """One ``NesterovAGRule`` step.

    Args:
        rule (~chainer.optimizers.nesterov_ag.NesterovAGRule): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    lr, mu = float(hp.lr), float(hp.momentum)
    _compiled.get(sources.NESTEROV_AG)(
        grad, lr, mu, 1.0 + mu, mu * mu, param.array, rule.state["v"]
    )


def adam(rule, param):
    """One ``AdamRule`` step, with AMSGrad, AdaBound and weight decay.

    Args:
        rule (~chainer.optimizers.adam.AdamRule): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    eps = hp.eps
    rule.check_eps(grad.dtype)
    beta1, beta2 = hp.beta1, hp.beta2
    eta = float(hp.eta)
    alpha_t = rule.alpha_t
    if hp.adabound:
        lower, upper = (float(bound) for bound in rule.step_size_bounds())
    else:
        lower = upper = 0.0
    weight_decay_rate = hp.weight_decay_rate
    decay = 1.0 - eta * weight_decay_rate if weight_decay_rate != 0 else 1.0
    # Python floats: CuPy casts them to the parameter's dtype, as the
    # array-module path does.
    alpha_t = float(alpha_t)
    state = rule.state
    args = [
        grad,
        1.0 - beta1,
        1.0 - beta2,
        float(eps),
        alpha_t,
        eta,
        eta * alpha_t,
        decay,
        lower,
        upper,
        1 if hp.adabound else 0,
        param.array,
        state["m"],
        state["v"],
    ]
    if hp.amsgrad:
        vhat = state.get("vhat")
        if vhat is None:
            # The CPU path starts vhat as the updated v; max(0, v) is v.
            vhat = state["vhat"] = cupy.zeros_like(param.array)
        _compiled.get(sources.ADAM_AMSGRAD)(*args, vhat)
    else:
        _compiled.get(sources.ADAM)(*args)


def rmsprop(rule, param):
    """One ``RMSpropRule`` step.

    Args:
        rule (~chainer.optimizers.rmsprop.RMSpropRule): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    alpha, eps = hp.alpha, hp.eps
    rule.check_eps(grad.dtype)
    _compiled.get(sources.RMSPROP)(
        grad,
        float(hp.lr),
        float(alpha),
        1.0 - alpha,
        float(eps),
        1 if hp.eps_inside_sqrt else 0,
        param.array,
        rule.state["ms"],
    )


def ada_grad(rule, param):
    """One ``AdaGradRule`` step.

    Args:
        rule (~chainer.optimizers.ada_grad.AdaGradRule): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    eps = hp.eps
    _compiled.get(sources.ADA_GRAD)(
        grad, float(hp.lr), float(eps), param.array, rule.state["h"]
    )


def ada_delta(rule, param):
    """One ``AdaDeltaRule`` step.

    Args:
        rule (~chainer.optimizers.ada_delta.AdaDeltaRule): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    rho, eps = hp.rho, hp.eps
    state = rule.state
    _compiled.get(sources.ADA_DELTA)(
        grad,
        float(rho),
        1.0 - rho,
        float(eps),
        param.array,
        state["msg"],
        state["msdx"],
    )


def corrected_momentum_sgd(rule, param):
    """One ``CorrectedMomentumSGDRule`` step: ``v = mu v - g; w += lr v``.

    Args:
        rule (~chainer.optimizers.corrected_momentum_sgd.CorrectedMomentumSGDRule):
            The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    _compiled.get(sources.CORRECTED_MOMENTUM_SGD)(
        grad, float(hp.lr), float(hp.momentum), param.array, rule.state["v"]
    )


def rmsprop_graves(rule, param):
    """One ``RMSpropGravesRule`` step.

    Args:
        rule (~chainer.optimizers.rmsprop_graves.RMSpropGravesRule): The update
            rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    alpha, eps = hp.alpha, hp.eps
    state = rule.state
    _compiled.get(sources.RMSPROP_GRAVES)(
        grad,
        float(hp.lr),
        float(alpha),
        1.0 - alpha,
        float(hp.momentum),
        float(eps),
        param.array,
        state["n"],
        state["g"],
        state["delta"],
    )


def smorms3(rule, param):
    """One ``SMORMS3Rule`` step.

    Args:
        rule (~chainer.optimizers.smorms3.SMORMS3Rule): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    eps = hp.eps
    state = rule.state
    _compiled.get(sources.SMORMS3)(
        grad,
        float(hp.lr),
        float(eps),
        param.array,
        state["mem"],
        state["g"],
        state["g2"],
    )


def msvag(rule, param):
    """One ``MSVAGRule`` step, with weight decay.

    Args:
        rule (~chainer.optimizers.msvag.MSVAGRule): The update rule.
        param (~chainer.Variable): Parameter on a CUDA device.
    """
    grad = param.grad
    hp = rule.hyperparam
    beta, eta = hp.beta, hp.eta
    inv_bias = 1.0 / (1.0 - beta**rule.t)
    rho = rule.rho
    # The CPU path's threshold: rho_t close to 1 leaves the step undamped.
    damp = rho < 1.0 - 1e-7
    rho_ratio = rho / (1.0 - rho) if damp else 0.0
    weight_decay_rate = hp.weight_decay_rate
    decay = 1.0 - eta * weight_decay_rate if weight_decay_rate != 0 else 1.0
    state = rule.state
    _compiled.get(sources.MSVAG)(
        grad,
        1.0 - beta,
        float(inv_bias),
        float(rho_ratio),
        float(numpy.finfo(grad.dtype).tiny),
        float(eta * hp.lr),
        float(decay),
        1 if damp else 0,
        param.array,
        state["m"],
        state["v"],
    )
