"""Shared machinery of the extensions that shift an optimizer attribute."""

from __future__ import annotations

import abc
import inspect
import numbers

import numpy

from chainer import serializer as serializer_module
from chainer.training import extension

_MISSING = object()


class Shift(extension.Extension, metaclass=abc.ABCMeta):
    """Base of the shifts: sets the attribute at each call and keeps the state.

    A subclass gives the formula in :meth:`_next_value` (the value at the
    invocation count ``self._t``), and may change the value set before the
    training (:meth:`_start_value`) and what a snapshot restores
    (:meth:`_serialize_value`, :meth:`_resume_value`).
    """

    def __init__(self, attr, init, optimizer, target=None):
        if not isinstance(attr, str):
            raise TypeError(f"{type(self).__name__}: attr must be a str, got {attr!r}")
        if init is not None:
            check_real(self, "init", init)
        if target is not None:
            check_real(self, "target", target)
        self._attr = attr
        self._init = init
        self._target = target
        self._optimizer = optimizer
        self._t = 0
        self._last_value = None
        self._bound = None  # optimizer resolved by initialize()

    def initialize(self, trainer):
        """Sets the attribute to its initial (or restored, on resume) value.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        optimizer = self._bind(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        value = self._resume_value()
        if value is None:
            value = self._start_value()
        self._update_value(optimizer, value)

    def __call__(self, trainer):
        """Advances the shift by one step and sets the new value.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        if self._bound is None:
            self.initialize(trainer)
        self._t += 1
        self._update_value(self._bound, self._next_value())

    def serialize(self, serializer):
        """Serializes the step count ``_t`` and the shift's state.

        The state is the last value (``_last_value``), or the current step
        (``_current_step``) for :class:`MultistepShift`.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        self._t = serializer("_t", self._t)
        self._serialize_value(serializer)
        if isinstance(serializer, serializer_module.Deserializer) and (
            self._bound is not None
        ):
            value = self._resume_value()
            if value is not None:
                # Loaded after initialize() (snapshot autoload): the optimizer
                # must run the next update with the restored value.
                self._update_value(self._bound, value)

    @abc.abstractmethod
    def _next_value(self):
        """Returns the value at the invocation count ``self._t``."""

    def _start_value(self):
        # The value set before the training when no snapshot was restored.
        return self._init

    def _resume_value(self):
        # The value a snapshot restored, or None.
        return self._last_value

    def _serialize_value(self, serializer):
        self._last_value = serializer("_last_value", self._last_value)
        if isinstance(self._last_value, numpy.ndarray):
            self._last_value = self._last_value.item()

    def _clamp(self, value, grows):
        # Stops the value at the target, which it never passes in the
        # direction of the shift: min(value, target) for a growing positive
        # value, max(value, target) for a shrinking one; the ratio keeps the
        # comparison right for negative values too.
        target = self._target
        if target:  # a zero target is never passed: no clamping needed
            ratio = value / target
            if (ratio > 1) if grows else (ratio < 1):
                return target
        return value

    def _bind(self, trainer):
        optimizer = self._optimizer
        if optimizer is None:
            optimizer = trainer.updater.get_optimizer("main")
        if not _has_attribute(optimizer, self._attr):
            raise AttributeError(
                f"{type(self).__name__}: the optimizer {type(optimizer).__name__} "
                f"has no attribute {self._attr!r} to shift"
            )
        self._bound = optimizer
        return optimizer

    def _update_value(self, optimizer, value):
        try:
            setattr(optimizer, self._attr, value)
        except AttributeError as exc:
            raise AttributeError(
                f"{type(self).__name__} cannot set {self._attr!r} of the optimizer "
                f"{type(optimizer).__name__}: {exc}"
            ) from exc
        self._last_value = value


def check_real(shift, name, value):
    """Raises TypeError unless ``value`` is a real number (bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{type(shift).__name__}: {name} must be a real number, got {value!r}"
        )


def _has_attribute(obj, name):
    # A static lookup first: reading a property such as Adam.lr may warn or
    # raise, which is no answer to whether it exists.
    if inspect.getattr_static(obj, name, _MISSING) is not _MISSING:
        return True
    return hasattr(obj, name)
