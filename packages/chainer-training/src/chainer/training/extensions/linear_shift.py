"""The ``LinearShift`` trainer extension."""

from __future__ import annotations

import inspect
import numbers

import numpy

from chainer import serializer as serializer_module
from chainer.training import extension


class LinearShift(extension.Extension):
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
        if not isinstance(attr, str):
            raise TypeError(f"LinearShift: attr must be a str, got {attr!r}")
        v1, v2 = _pair("value_range", value_range)
        t1, t2 = _pair("time_range", time_range)
        if t2 < t1:
            raise ValueError(
                "LinearShift: time_range must be (start, end) with start <= end, "
                f"got {time_range!r}"
            )
        self._attr = attr
        self._value_range = (v1, v2)
        self._time_range = (t1, t2)
        self._optimizer = optimizer
        self._t = 0
        self._last_value = None
        self._bound = None  # optimizer resolved by initialize()

    def initialize(self, trainer):
        """Sets the attribute to its current (or last, on resume) value.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        optimizer = self._bind(trainer)
        if self._last_value is not None:
            value = self._last_value
        else:
            value = self._compute_next_value()
        self._update_value(optimizer, value)

    def __call__(self, trainer):
        """Advances the schedule by one step and sets the new value.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        if self._bound is None:
            self.initialize(trainer)
        self._t += 1
        self._update_value(self._bound, self._compute_next_value())

    def serialize(self, serializer):
        """Serializes the step count and the last value (``_t``, ``_last_value``).

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        self._t = serializer("_t", self._t)
        self._last_value = serializer("_last_value", self._last_value)
        if isinstance(self._last_value, numpy.ndarray):
            self._last_value = self._last_value.item()
        if (
            isinstance(serializer, serializer_module.Deserializer)
            and self._bound is not None
            and self._last_value is not None
        ):
            # Loaded after initialize() (snapshot autoload): the optimizer
            # must run the next update with the restored value.
            self._update_value(self._bound, self._last_value)

    def _compute_next_value(self):
        t1, t2 = self._time_range
        v1, v2 = self._value_range
        t = self._t
        if t <= t1:
            return v1
        if t >= t2:
            return v2
        return v1 + (t - t1) / (t2 - t1) * (v2 - v1)

    def _bind(self, trainer):
        optimizer = self._optimizer
        if optimizer is None:
            optimizer = trainer.updater.get_optimizer("main")
        if not _has_attribute(optimizer, self._attr):
            raise AttributeError(
                f"LinearShift: the optimizer {type(optimizer).__name__} has no "
                f"attribute {self._attr!r} to shift"
            )
        self._bound = optimizer
        return optimizer

    def _update_value(self, optimizer, value):
        try:
            setattr(optimizer, self._attr, value)
        except AttributeError as exc:
            raise AttributeError(
                f"LinearShift cannot set {self._attr!r} of the optimizer "
                f"{type(optimizer).__name__}: {exc}"
            ) from exc
        self._last_value = value


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


def _has_attribute(obj, name):
    # A static lookup first: reading a property such as Adam.lr may warn or
    # raise, which is no answer to whether it exists.
    if inspect.getattr_static(obj, name, _MISSING) is not _MISSING:
        return True
    return hasattr(obj, name)


_MISSING = object()
