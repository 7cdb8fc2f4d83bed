"""The ``WarmupShift`` trainer extension."""

from __future__ import annotations

import inspect
import numbers

import numpy

from chainer import serializer as serializer_module
from chainer.training import extension


class WarmupShift(extension.Extension):
    """Trainer extension to raise an optimizer attribute gradually at the start.

    The attribute starts at ``warmup_start`` and moves evenly to ``init``
    over the first ``warmup_iter`` invocations, then stays ``init``:

    .. math:: \\text{value} = \\text{warmup\\_start} +
        (\\text{init} - \\text{warmup\\_start})
        \\frac{\\min(t, \\text{warmup\\_iter})}{\\text{warmup\\_iter}}

    For example, invoked every iteration with ``warmup_start=0.1``,
    ``init=0.4`` and ``warmup_iter=3``, it sets the attribute to 0.1 before
    the training and then to 0.2, 0.3, 0.4, 0.4, ... On resume, the last
    value is restored before the training loop starts.

    Args:
        attr (str): Name of the attribute to shift, e.g. ``'lr'``.
        warmup_start (float): Value of the attribute when the training
            starts.
        warmup_iter (int): Number of invocations (iterations) over which the
            attribute changes from ``warmup_start`` to ``init``.
        init (float): Value of the attribute after the warm-up.
        optimizer (~chainer.Optimizer): Optimizer whose attribute is shifted;
            the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.WarmupShift('lr', 0.01, 1000, 0.1)
    """

    def __init__(self, attr, warmup_start, warmup_iter, init, optimizer=None):
        if not isinstance(attr, str):
            raise TypeError(f"WarmupShift: attr must be a str, got {attr!r}")
        _check_real("warmup_start", warmup_start)
        _check_real("init", init)
        if (
            isinstance(warmup_iter, bool)
            or not isinstance(warmup_iter, numbers.Integral)
            or warmup_iter <= 0
        ):
            raise ValueError(
                f"WarmupShift: warmup_iter must be a positive int, got {warmup_iter!r}"
            )
        self._attr = attr
        self._warmup_start = warmup_start
        self._warmup_iter = int(warmup_iter)
        self._init = init
        self._optimizer = optimizer
        self._t = 0
        self._last_value = None
        self._bound = None  # optimizer resolved by initialize()

    def initialize(self, trainer):
        """Sets the attribute to ``warmup_start`` (or the last value on resume).

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        optimizer = self._bind(trainer)
        value = self._last_value
        if value is None:
            value = self._warmup_start
        self._update_value(optimizer, value)

    def __call__(self, trainer):
        """Advances the warm-up by one step and sets the new value.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        if self._bound is None:
            self.initialize(trainer)
        self._t += 1
        if self._t < self._warmup_iter:
            start = self._warmup_start
            value = start + (self._init - start) * self._t / self._warmup_iter
        else:
            value = self._init
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
                f"WarmupShift: the optimizer {type(optimizer).__name__} has no "
                f"attribute {self._attr!r} to shift"
            )
        self._bound = optimizer
        return optimizer

    def _update_value(self, optimizer, value):
        try:
            setattr(optimizer, self._attr, value)
        except AttributeError as exc:
            raise AttributeError(
                f"WarmupShift cannot set {self._attr!r} of the optimizer "
                f"{type(optimizer).__name__}: {exc}"
            ) from exc
        self._last_value = value


def _check_real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"WarmupShift: {name} must be a real number, got {value!r}")


def _has_attribute(obj, name):
    # A static lookup first: reading a property such as Adam.lr may warn or
    # raise, which is no answer to whether it exists.
    if inspect.getattr_static(obj, name, _MISSING) is not _MISSING:
        return True
    return hasattr(obj, name)


_MISSING = object()
