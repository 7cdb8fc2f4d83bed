"""The ``StepShift`` trainer extension."""

from __future__ import annotations

import math

from chainer.training.extensions import _shift


class StepShift(_shift.Shift):
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
        super().__init__(attr, init, optimizer, target)
        _shift.check_real(self, "gamma", gamma)
        _shift.check_real(self, "step", step)
        if step <= 0:
            raise ValueError(f"StepShift: step must be positive, got {step!r}")
        self._gamma = gamma
        self._step = step

    def _next_value(self):
        value = self._init * self._gamma ** math.floor(self._t / self._step)
        return self._clamp(value, grows=self._gamma > 1)
