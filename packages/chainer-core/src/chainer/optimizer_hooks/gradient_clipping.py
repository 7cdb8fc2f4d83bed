"""Gradient clipping by the global L2 norm."""

from __future__ import annotations

import math

import numpy

from chainer import _dispatch
from chainer import backend
from chainer.optimizer_hooks import _util

#: The kernel-table keys under which a plugin registers its own
#: :func:`sum_squares` and :func:`scale` (same signatures) for NumPy arrays.
SUM_SQUARES_KEY = ("chainer.optimizer_hooks.gradient_clipping:sum_squares", "numpy")
SCALE_KEY = ("chainer.optimizer_hooks.gradient_clipping:scale", "numpy")

_FLOATS = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))


def sum_squares(arrays):
    """Sum of squares of each of several float32/float64 NumPy arrays.

    The norm pass of :class:`GradientClipping` over the NumPy gradients.
    This module is an extension of this project, not part of Chainer 7's
    API: a plugin registered under :data:`SUM_SQUARES_KEY` takes it over
    (chainer-cpu splits all arrays among its thread team in one run).

    Args:
        arrays (list of numpy.ndarray): float32/float64 arrays.

    Returns:
        list of float: One sum per array.
    """
    fn = _dispatch.core_hook(SUM_SQUARES_KEY)
    if fn is not None:
        return fn(arrays)
    return [float(numpy.vdot(a.ravel(), a.ravel())) for a in arrays]


def scale(arrays, rate):
    """Multiplies each of several float32/float64 NumPy arrays by ``rate`` in place.

    The rescaling pass of :class:`GradientClipping`; a plugin registered
    under :data:`SCALE_KEY` takes it over.

    Args:
        arrays (list of numpy.ndarray): float32/float64 arrays.
        rate (float): The factor.
    """
    fn = _dispatch.core_hook(SCALE_KEY)
    if fn is not None:
        fn(arrays, rate)
        return
    for a in arrays:
        a *= rate


def _numpy_floats(grads):
    # Indexes of the gradients that sum_squares and scale take.
    return [
        i
        for i, g in enumerate(grads)
        if type(g) is numpy.ndarray and g.dtype in _FLOATS
    ]


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
        grads = [p.grad for p in params]
        taken = _numpy_floats(grads)
        squares = [None] * len(params)
        if taken:
            on_cpu = sum_squares([grads[i] for i in taken])
            for i, sq in zip(taken, on_cpu, strict=True):
                squares[i] = sq
        # Launch every reduction before reading any result back, so that
        # device backends synchronize once.
        for i, param in enumerate(params):
            if squares[i] is None:
                g = _util.float_for_norm(grads[i])
                xp = backend.get_array_module(g)
                with param.device:
                    squares[i] = xp.vdot(g, g)
        sqnorm = 0.0
        for sq, param in zip(squares, params, strict=True):
            factor = _util.loss_scale(param)
            sqnorm += float(sq) / (factor * factor)
        norm = math.sqrt(sqnorm)
        if not norm > self.threshold:
            return
        rate = self.threshold / norm
        if taken:
            scale([grads[i] for i in taken], rate)
        done = set(taken)
        for i, param in enumerate(params):
            if i in done:
                continue
            g = grads[i]
            xp = backend.get_array_module(g)
            with param.device:
                if g.dtype == numpy.float16:
                    # A tiny rate loses its precision if rounded to float16.
                    xp.multiply(g, rate, out=g, dtype=numpy.float32)
                else:
                    g *= rate
