"""The ``MultistepShift`` trainer extension."""

from __future__ import annotations

import itertools

from chainer.training.extensions import _shift


class MultistepShift(_shift.Shift):
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
        super().__init__(attr, init, optimizer)
        _shift.check_real(self, "gamma", gamma)
        try:
            steps = tuple(step_value)
        except TypeError:
            raise TypeError(
                "MultistepShift: step_value must be a sequence of iteration "
                f"counts, got {step_value!r}"
            ) from None
        for step in steps:
            _shift.check_real(self, "each step_value entry", step)
        if any(b < a for a, b in itertools.pairwise(steps)):
            raise ValueError(
                "MultistepShift: step_value must be in increasing order, got "
                f"{step_value!r}"
            )
        self._gamma = gamma
        self._step_value = steps
        self._stepvalue_size = len(steps)
        self._current_step = 0

    def _next_value(self):
        if (
            self._current_step < self._stepvalue_size
            and self._t >= self._step_value[self._current_step]
        ):
            self._current_step += 1
        return self._resume_value()

    def _resume_value(self):
        # The value follows from the restored step: no last value is kept.
        return self._init * self._gamma**self._current_step

    def _serialize_value(self, serializer):
        self._current_step = serializer("_current_step", self._current_step)
