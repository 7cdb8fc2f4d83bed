"""Gradient clipping by the global L2 norm."""

from __future__ import annotations

import math

import numpy

from chainer import backend
from chainer.optimizer_hooks import _util


class GradientClipping:
    """Optimizer hook function for gradient clipping.

    If the L2 norm of all gradients together (concatenated) exceeds
    ``threshold``, every gradient is multiplied by
    ``threshold / norm`` so that the norm becomes ``threshold``.

    Args:
        threshold (float): L2 norm threshold.

    Attributes:
        threshold (float): L2 norm threshold of gradient norm.
        timing (str): ``'pre'`` (default) or ``'post'``: when the hook runs
            relative to the update.
    """

    name = "GradientClipping"
    timing = "pre"

    def __init__(self, threshold):
        _util.check_number("GradientClipping", "threshold", threshold)
        if not threshold > 0:
            raise ValueError(
                f"GradientClipping: threshold must be positive; got {threshold}"
            )
        self.threshold = threshold

    def __call__(self, opt):
        """Rescales the gradients of ``opt.target`` if their norm is too large.

        Args:
            opt (~chainer.Optimizer): The optimizer.
        """
        params = [
            p for p in opt.target.params(include_uninit=False) if p.grad is not None
        ]
        # Launch every reduction before reading any result back, so that
        # device backends synchronize once.
        partial = []
        for param in params:
            g = _util.float_for_norm(param.grad)
            xp = backend.get_array_module(g)
            with param.device:
                partial.append((xp.vdot(g, g), _util.loss_scale(param)))
        sqnorm = sum(float(sq) / (scale * scale) for sq, scale in partial)
        norm = math.sqrt(sqnorm)
        if not norm > self.threshold:
            return
        rate = self.threshold / norm
        for param in params:
            g = param.grad
            xp = backend.get_array_module(g)
            with param.device:
                if g.dtype == numpy.float16:
                    # A tiny rate loses its precision if rounded to float16.
                    xp.multiply(g, rate, out=g, dtype=numpy.float32)
                else:
                    g *= rate
