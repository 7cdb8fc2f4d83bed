"""The ``MultistepShift`` trainer extension."""

from __future__ import annotations

import inspect
import itertools
import numbers

from chainer import serializer as serializer_module
from chainer.training import extension


class MultistepShift(extension.Extension):
    """Trainer extension to shift an optimizer attribute in several steps.

    The attribute starts at ``init`` and is multiplied by ``gamma`` each time
    the invocation count reaches the next entry of ``step_value``, so the
    steps can be of arbitrary lengths: after the ``k``-th step,

    .. math:: \\text{value} = \\text{init} \\cdot \\gamma^k

    The extension also sets the attribute before the training loop starts
    (to ``init``, or on resume to the value of the restored step). It is
    invoked every iteration by default.

    Args:
        attr (str): Name of the attribute to shift, e.g. ``'lr'``.
        gamma (float): The factor by which the attribute changes per step.
        step_value (tuple of ints): The invocation counts (iterations) at
            which the attribute changes, in increasing order.
        init (float): Initial value of the attribute. If ``None``, the
            attribute's value when the training starts is used.
        optimizer (~chainer.Optimizer): Optimizer whose attribute is shifted;
            the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.MultistepShift('lr', 0.1, (32000, 48000), 0.1)
    """

    def __init__(self, attr, gamma, step_value, init, optimizer=None):
        if not isinstance(attr, str):
            raise TypeError(f"MultistepShift: attr must be a str, got {attr!r}")
        _check_real("gamma", gamma)
        try:
            steps = tuple(step_value)
        except TypeError:
            raise TypeError(
                "MultistepShift: step_value must be a sequence of iteration "
                f"counts, got {step_value!r}"
            ) from None
        for step in steps:
            _check_real("step_value entries", step)
        if any(b < a for a, b in itertools.pairwise(steps)):
            raise ValueError(
                "MultistepShift: step_value must be in increasing order, got "
                f"{step_value!r}"
            )
        if init is not None:
            _check_real("init", init)
        self._attr = attr
        self._gamma = gamma
        self._step_value = steps
        self._init = init
        self._optimizer = optimizer
        self._stepvalue_size = len(steps)
        self._current_step = 0
        self._t = 0
        self._bound = None  # optimizer resolved by initialize()

    def initialize(self, trainer):
        """Sets the attribute to the value of the current step.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        optimizer = self._bind(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        self._update_value(optimizer)

    def __call__(self, trainer):
        """Advances the invocation count and sets the value of its step.

        Args:
            trainer (~chainer.training.Trainer): The trainer.
        """
        if self._bound is None:
            self.initialize(trainer)
        self._t += 1
        if (
            self._current_step < self._stepvalue_size
            and self._t >= self._step_value[self._current_step]
        ):
            self._current_step += 1
        self._update_value(self._bound)

    def serialize(self, serializer):
        """Serializes the invocation count and the step (``_t``, ``_current_step``).

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        self._t = serializer("_t", self._t)
        self._current_step = serializer("_current_step", self._current_step)
        if isinstance(serializer, serializer_module.Deserializer) and (
            self._bound is not None
        ):
            # Loaded after initialize() (snapshot autoload): the optimizer
            # must run the next update with the restored step's value.
            self._update_value(self._bound)

    def _bind(self, trainer):
        optimizer = self._optimizer
        if optimizer is None:
            optimizer = trainer.updater.get_optimizer("main")
        if not _has_attribute(optimizer, self._attr):
            raise AttributeError(
                f"MultistepShift: the optimizer {type(optimizer).__name__} has no "
                f"attribute {self._attr!r} to shift"
            )
        self._bound = optimizer
        return optimizer

    def _update_value(self, optimizer):
        value = self._init * self._gamma**self._current_step
        try:
            setattr(optimizer, self._attr, value)
        except AttributeError as exc:
            raise AttributeError(
                f"MultistepShift cannot set {self._attr!r} of the optimizer "
                f"{type(optimizer).__name__}: {exc}"
            ) from exc


def _check_real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"MultistepShift: {name} must be real numbers, got {value!r}")


def _has_attribute(obj, name):
    # A static lookup first: reading a property such as Adam.lr may warn or
    # raise, which is no answer to whether it exists.
    if inspect.getattr_static(obj, name, _MISSING) is not _MISSING:
        return True
    return hasattr(obj, name)


_MISSING = object()
