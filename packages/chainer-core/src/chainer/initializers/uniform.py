"""Initializers drawing from uniform distributions."""

from __future__ import annotations

import math

import numpy

from chainer import backend
from chainer import initializer
from chainer.initializers import _util


class Uniform(initializer.Initializer):
    """Initializes array with a scaled uniform distribution.

    Every element is drawn independently from the uniform distribution
    :math:`U(-scale, scale)`.

    Args:
        scale (float): Half-width of the interval.
        dtype: Data type specifier.
        rng (xp.random.RandomState): Pseudo-random number generator. If
            omitted, the random module of the array's backend
            (``numpy.random`` for NumPy arrays) is used.
    """

    def __init__(self, scale=0.05, dtype=None, **kwargs):
        self.scale = scale
        self.rng = _util.pop_rng(type(self).__name__, kwargs)
        super().__init__(dtype)

    def __call__(self, array):
        """Fills ``array`` with draws from :math:`U(-scale, scale)`.

        Args:
            array (:ref:`ndarray`): Array to be filled in place.
        """
        _util.check_dtype(self, array)
        low, high = -self.scale, self.scale
        if self.rng is not None:
            values = self.rng.uniform(low=low, high=high, size=array.shape)
            array[...] = backend.get_device_from_array(array).send(
                numpy.asarray(values)
            )
            return
        xp = backend.get_array_module(array)
        if xp is numpy:
            array[...] = numpy.random.uniform(low=low, high=high, size=array.shape)
        else:
            # Device backends draw in the target dtype (float32 for float16,
            # which their generators lack) and skip a float64 copy.
            array[...] = xp.random.uniform(
                low=low, high=high, size=array.shape, dtype=_util.draw_dtype(array)
            )


class _ScaledUniform(initializer.Initializer):
    # Shared by the fan-based uniform initializers: U(-s, s) with the
    # half-width ``s`` computed from the array's shape by ``_bound``.

    def __init__(self, scale=1.0, dtype=None, **kwargs):
        self.scale = scale
        self.rng = _util.pop_rng(type(self).__name__, kwargs)
        super().__init__(dtype)

    def __call__(self, array):
        _util.check_dtype(self, array)
        if array.size == 0:
            return
        fan_in, fan_out = initializer.get_fans(array.shape)
        bound = self.scale * self._bound(fan_in, fan_out)
        Uniform(bound, rng=self.rng)(array)


class LeCunUniform(_ScaledUniform):
    """Initializes array with a scaled uniform distribution.

    Every element is drawn from :math:`U(-s, s)` with
    :math:`s = scale \\times \\sqrt{\\frac{3}{fan_{in}}}`, where
    :math:`fan_{in}` is the number of input units.

    Reference: LeCun 98, Efficient Backprop

    Args:
        scale (float): A constant that determines the scale of the interval.
        dtype: Data type specifier.
        rng (xp.random.RandomState): Pseudo-random number generator.
    """

    def _bound(self, fan_in, fan_out):
        return math.sqrt(3.0 / fan_in)


class GlorotUniform(_ScaledUniform):
    """Initializes array with a scaled uniform distribution.

    Every element is drawn from :math:`U(-s, s)` with
    :math:`s = scale \\times \\sqrt{\\frac{6}{fan_{in} + fan_{out}}}`, where
    :math:`fan_{in}` and :math:`fan_{out}` are the numbers of input and
    output units.

    Reference: Glorot & Bengio, AISTATS 2010

    Args:
        scale (float): A constant that determines the scale of the interval.
        dtype: Data type specifier.
        rng (xp.random.RandomState): Pseudo-random number generator.
    """

    def _bound(self, fan_in, fan_out):
        return math.sqrt(6.0 / (fan_in + fan_out))


class HeUniform(_ScaledUniform):
    """Initializes array with a scaled uniform distribution.

    Every element is drawn from :math:`U(-s, s)` with
    :math:`s = scale \\times \\sqrt{\\frac{6}{fan_{in}}}`, where
    :math:`fan_{in}` is the number of input units.

    Reference: He et al., https://arxiv.org/abs/1502.01852

    Args:
        scale (float): A constant that determines the scale of the interval.
        dtype: Data type specifier.
        rng (xp.random.RandomState): Pseudo-random number generator.
    """

    def _bound(self, fan_in, fan_out):
        return math.sqrt(6.0 / fan_in)
