"""Annealed Gaussian gradient noise hook."""

from __future__ import annotations

import math

from chainer import backend
from chainer.optimizer_hooks import _util


def exponential_decay_noise(xp, shape, dtype, hook, opt):
    """Time-dependent annealed Gaussian noise function from the paper.

    The noise is drawn from :math:`N(0, \\sigma_t^2)` with
    :math:`\\sigma_t^2 = \\eta / (1 + t)^{0.55}`, where :math:`t` is the
    update count of ``opt``. See `Adding Gradient Noise Improves Learning for
    Very Deep Networks <https://arxiv.org/abs/1511.06807>`_.

    Args:
        xp (module): Array module used to draw the noise.
        shape (tuple of int): Shape of the noise.
        dtype: Dtype of the noise.
        hook (GradientNoise): The hook; its ``eta`` sets the scale.
        opt: Object with the update count ``t`` (the update rule).

    Returns:
        :ref:`ndarray`: The noise.
    """
    std = math.sqrt(hook.eta / (1 + opt.t) ** 0.55)
    return xp.random.normal(0, std, shape).astype(dtype, copy=False)


class GradientNoise:
    """Optimizer/UpdateRule hook function for adding gradient noise.

    It adds the noise made by ``noise_func`` to every gradient. The default
    adds time-dependent annealed Gaussian noise,

    .. math::

        g_t \\leftarrow g_t + N(0, \\sigma_t^2), \\qquad
        \\sigma_t^2 = \\frac{\\eta}{(1+t)^\\gamma}

    with :math:`\\eta` chosen from {0.01, 0.3, 1.0} and :math:`\\gamma = 0.55`.

    Args:
        eta (float): Parameter that defines the scale of the noise; for the
            default noise function 0.01, 0.3 or 1.0 is recommended.
        noise_func (callable): Noise generating function, called as
            ``noise_func(xp, shape, dtype, hook, rule)``; it returns an array
            of ``shape`` and ``dtype``. Default:
            :func:`exponential_decay_noise`.

    Attributes:
        eta (float): Scale of the noise.
        noise_func (callable): Noise generating function.
        timing (str): ``'pre'`` (default) or ``'post'``: when the hook runs
            relative to the update.
        call_for_each_param (bool): True; the optimizer calls it as
            ``hook(rule, param)`` for each parameter.
    """

    name = "GradientNoise"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, eta, noise_func=exponential_decay_noise):
        _util.check_number("GradientNoise", "eta", eta)
        if eta < 0:
            raise ValueError(f"GradientNoise: eta must be non-negative; got {eta}")
        if not callable(noise_func):
            raise TypeError(
                f"GradientNoise: noise_func must be callable; got {noise_func!r}"
            )
        self.eta = eta
        self.noise_func = noise_func

    def __call__(self, rule, param):
        """Adds noise to the gradient of ``param``.

        Args:
            rule (~chainer.UpdateRule): Update rule of the parameter; its
                ``t`` drives the annealing.
            param (~chainer.Parameter): The parameter.
        """
        g = param.grad
        if g is None:
            return
        with param.device:
            xp = backend.get_array_module(g)
            noise = self.noise_func(xp, g.shape, g.dtype, self, rule)
            scale = _util.loss_scale(param)
            if scale != 1.0:
                noise = noise * scale
            g += noise
