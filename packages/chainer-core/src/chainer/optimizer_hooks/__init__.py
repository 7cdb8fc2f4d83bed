"""Hooks that edit gradients before (or after) an optimizer's update."""

from chainer.optimizer_hooks import gradient_clipping
from chainer.optimizer_hooks import gradient_hard_clipping
from chainer.optimizer_hooks import gradient_lars
from chainer.optimizer_hooks import gradient_noise
from chainer.optimizer_hooks import lasso
from chainer.optimizer_hooks import weight_decay

GradientClipping = gradient_clipping.GradientClipping
GradientHardClipping = gradient_hard_clipping.GradientHardClipping
GradientLARS = gradient_lars.GradientLARS
GradientNoise = gradient_noise.GradientNoise
Lasso = lasso.Lasso
WeightDecay = weight_decay.WeightDecay

__all__ = [
    "GradientClipping",
    "GradientHardClipping",
    "GradientLARS",
    "GradientNoise",
    "Lasso",
    "WeightDecay",
]
