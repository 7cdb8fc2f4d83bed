"""The ``StepShift`` trainer extension."""

from __future__ import annotations

import inspect
import math
import numbers

import numpy

from chainer import serializer as serializer_module
from chainer.training import extension


class StepShift(extension.Extension):
    """Trainer extension to shift an optimizer attribute in a step function.

    At the ``t``-th invocation the attribute is set to

    .. math:: \\text{value} = \\text{init} \\cdot
        \\gamma^{\\lfloor t / \\text{step} \\rfloor}

    that is, it is multiplied by ``gamma`` every ``step`` invocations. When
    ``target`` is given, the value stops there: it never goes beyond
    ``target`` in the direction of the shift. The extension also sets the
    attribute to its initial value (or, on resume, to the last value) before
    the training loop starts. It is invoked every iteration by default.

    Args:
        attr (str): Name of the attribute to shift, e.g. ``'lr'``.
        gamma (float): The factor by which the attribute changes.
        step (int): The interval for the multiplication: ``gamma`` is
            applied every ``step`` invocations.
        init (float): Initial value of the attribute. If ``None``, the
            attribute's value when the training starts is used.
        target (float): Target value of the attribute; once reached, the
            shift stops.
        optimizer (~chainer.Optimizer): Optimizer whose attribute is shifted;
            the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.StepShift('lr', gamma=0.1, step=10000)
    """

    def __init__(self, attr, gamma, step, init=None, target=None, optimizer=None):
        _check_attr("StepShift", attr)
        _check_real("StepShift", "gamma", gamma)
        _check_real("StepShift", "step", step)
        if step <= 0:
            raise ValueError(f"StepShift: step must be positive, got {step!r}")
        if init is not None:
            _check_real("StepShift", "init", init)
        if target is not None:
            _check_real("StepShift", "target", target)
        self._attr = attr
        self._gamma = gamma
        self._step = step
        self._init = init
        self._target = target
        self._optimizer = optimizer
        self._t = 0
        self._last_value = None
        self._bound = None  # optimizer resolved by initialize()

    def initialize(self, trainer):
        """Sets the attribute to its initial (or last, on resume) value.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        optimizer = self._bind(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        if self._last_value is not None:
            self._update_value(optimizer, self._last_value)
        else:
            self._update_value(optimizer, self._init)

    def __call__(self, trainer):
        """Advances the shift by one step and sets the new value.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        if self._bound is None:
            self.initialize(trainer)
        self._t += 1
        value = self._init * self._gamma ** math.floor(self._t / self._step)
        target = self._target
        if target:  # a zero target is never passed: no clamping needed
            if self._gamma > 1:
                # The value grows: min(value, target) for positive values.
                if value / target > 1:
                    value = target
            elif value / target < 1:
                value = target
        self._update_value(self._bound, value)

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

    def _bind(self, trainer):
        optimizer = self._optimizer
        if optimizer is None:
            optimizer = trainer.updater.get_optimizer("main")
        if not _has_attribute(optimizer, self._attr):
            raise AttributeError(
                f"StepShift: the optimizer {type(optimizer).__name__} has no "
                f"attribute {self._attr!r} to shift"
            )
        self._bound = optimizer
        return optimizer

    def _update_value(self, optimizer, value):
        try:
            setattr(optimizer, self._attr, value)
        except AttributeError as exc:
            raise AttributeError(
                f"StepShift cannot set {self._attr!r} of the optimizer "
                f"{type(optimizer).__name__}: {exc}"
            ) from exc
        self._last_value = value


def _check_attr(cls, attr):
    if not isinstance(attr, str):
        raise TypeError(f"{cls}: attr must be a str, got {attr!r}")


def _check_real(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{cls}: {name} must be a real number, got {value!r}")


def _has_attribute(obj, name):
    # A static lookup first: reading a property such as Adam.lr may warn or
    # raise, which is no answer to whether it exists.
    if inspect.getattr_static(obj, name, _MISSING) is not _MISSING:
        return True
    return hasattr(obj, name)


_MISSING = object()
