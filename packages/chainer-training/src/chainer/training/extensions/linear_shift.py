"""The ``LinearShift`` trainer extension."""

from __future__ import annotations

import numbers

from chainer.training.extensions import _shift


class LinearShift(_shift.Shift):
    """Trainer extension to change an optimizer attribute linearly.

    With ``value_range == (x, y)`` and ``time_range == (i, j)``, the
    attribute stays ``x`` up to the ``i``-th invocation, changes linearly to
    reach ``y`` at the ``j``-th one, and stays ``y`` afterwards:

    .. math:: \\text{value} = x + (y - x)
        \\frac{\\min(\\max(t, i), j) - i}{j - i}

    The extension also sets the attribute before the training loop starts
    (to ``x``, or on resume to the last value). It is invoked every
    iteration by default.

    Args:
        attr (str): Name of the attribute to change, e.g. ``'lr'``.
        value_range (tuple of float): The first and the last values of the
            attribute.
        time_range (tuple of ints): The first and last invocation counts
            between which the attribute changes.
        optimizer (~chainer.Optimizer): Optimizer whose attribute is changed;
            the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.LinearShift('lr', (0.1, 0.001), (1000, 5000))
    """

    def __init__(self, attr, value_range, time_range, optimizer=None):
        v1, v2 = _pair("value_range", value_range)
        t1, t2 = _pair("time_range", time_range)
        if t2 < t1:
            raise ValueError(
                "LinearShift: time_range must be (start, end) with start <= end, "
                f"got {time_range!r}"
            )
        # init is the first value: it is never read from the optimizer.
        super().__init__(attr, v1, optimizer)
        self._value_range = (v1, v2)
        self._time_range = (t1, t2)

    def _start_value(self):
        return self._next_value()

    def _next_value(self):
        t1, t2 = self._time_range
        v1, v2 = self._value_range
        t = self._t
        if t <= t1:
            return v1
        if t >= t2:
            return v2
        return v1 + (t - t1) / (t2 - t1) * (v2 - v1)


def _pair(name, value):
    try:
        first, second = value
    except (TypeError, ValueError):
        raise TypeError(
            f"LinearShift: {name} must be a pair (first, last), got {value!r}"
        ) from None
    for v in (first, second):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(
                f"LinearShift: {name} must hold two real numbers, got {value!r}"
            )
    return first, second
