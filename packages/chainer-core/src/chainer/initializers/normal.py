"""Initializers drawing from Gaussian distributions."""

from __future__ import annotations

import math

import numpy

from chainer import backend
from chainer import initializer
from chainer.initializers import _util


class Normal(initializer.Initializer):
    """Initializes array with a normal distribution.

    Each element of the array is initialized by the value drawn
    independently from Gaussian distribution whose mean is 0,
    and standard deviation is ``scale``.

    Args:
        scale (float): Standard deviation of Gaussian distribution.
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
        """Fills ``array`` with draws from :math:`N(0, scale^2)`.

        Args:
            array (:ref:`ndarray`): Array to be filled in place.
        """
        _util.check_dtype(self, array)
        if self.rng is not None:
            values = self.rng.normal(loc=0.0, scale=self.scale, size=array.shape)
            array[...] = backend.get_device_from_array(array).send(
                numpy.asarray(values)
            )
            return
        xp = backend.get_array_module(array)
        if xp is numpy:
            array[...] = numpy.random.normal(
                loc=0.0, scale=self.scale, size=array.shape
            )
        else:
            # Device backends draw in the target dtype (float32 for float16,
            # which their generators lack) and skip a float64 copy.
            array[...] = xp.random.normal(
                loc=0.0,
                scale=self.scale,
                size=array.shape,
                dtype=_util.draw_dtype(array),
            )


class _ScaledNormal(initializer.Initializer):
    # Shared by the fan-based Gaussian initializers: N(0, std^2) with the
    # std computed from the array's shape by ``_std``.

    def __init__(self, scale=1.0, dtype=None, **kwargs):
        self.scale = scale
        self.rng = _util.pop_rng(type(self).__name__, kwargs)
        super().__init__(dtype)

    def __call__(self, array):
        _util.check_dtype(self, array)
        if array.size == 0:
            return
        fan_in, fan_out = initializer.get_fans(array.shape)
        std = self.scale * self._std(fan_in, fan_out)
        Normal(std, rng=self.rng)(array)


class GlorotNormal(_ScaledNormal):
    """Initializes array with scaled Gaussian distribution.

    Each element of the array is initialized by the value drawn
    independently from Gaussian distribution whose mean is 0,
    and standard deviation is
    :math:`scale \\times \\sqrt{\\frac{2}{fan_{in} + fan_{out}}}`,
    where :math:`fan_{in}` and :math:`fan_{out}` are the number of
    input and output units, respectively.

    Reference: Glorot & Bengio, AISTATS 2010

    Args:
        scale (float): A constant that determines the scale
            of the standard deviation.
        dtype: Data type specifier.
        rng (xp.random.RandomState): Pseudo-random number generator.
    """

    def _std(self, fan_in, fan_out):
        return math.sqrt(2.0 / (fan_in + fan_out))


class HeNormal(_ScaledNormal):
    """Initializes array with scaled Gaussian distribution.

    Each element of the array is initialized by the value drawn
    independently from Gaussian distribution whose mean is 0,
    and standard deviation is
    :math:`scale \\times \\sqrt{\\frac{2}{fan}}`.
    If ``fan_option == 'fan_in'``, :math:`fan` is the number of input units.
    If ``fan_option == 'fan_out'``, :math:`fan` is the number of output units.

    Reference:  He et al., https://arxiv.org/abs/1502.01852

    Args:
        scale (float): A constant that determines the scale
            of the standard deviation.
        dtype: Data type specifier.
        fan_option ({'fan_in', 'fan_out'}): Decides how to compute the
            standard deviation. The default value is ``'fan_in'``.
        rng (xp.random.RandomState): Pseudo-random number generator.
    """

    def __init__(self, scale=1.0, dtype=None, fan_option="fan_in", **kwargs):
        if fan_option not in ("fan_in", "fan_out"):
            raise ValueError(
                f"fan_option should be either 'fan_in' or 'fan_out'; got {fan_option!r}"
            )
        self.fan_option = fan_option
        super().__init__(scale, dtype, **kwargs)

    def _std(self, fan_in, fan_out):
        fan = fan_in if self.fan_option == "fan_in" else fan_out
        return math.sqrt(2.0 / fan)


class LeCunNormal(_ScaledNormal):
    """Initializes array with scaled Gaussian distribution.

    Each element of the array is initialized by the value drawn
    independently from Gaussian distribution whose mean is 0,
    and standard deviation is
    :math:`scale \\times \\sqrt{\\frac{1}{fan_{in}}}`,
    where :math:`fan_{in}` is the number of input units.

    Reference: LeCun 98, Efficient Backprop
    http://yann.lecun.com/exdb/publis/pdf/lecun-98b.pdf

    Args:
        scale (float): A constant that determines the scale
            of the standard deviation.
        dtype: Data type specifier.
        rng (xp.random.RandomState): Pseudo-random number generator.
    """

    def _std(self, fan_in, fan_out):
        return math.sqrt(1.0 / fan_in)
