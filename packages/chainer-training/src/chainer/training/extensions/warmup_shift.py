"""The ``WarmupShift`` trainer extension."""

from __future__ import annotations

import numbers

from chainer.training.extensions import _shift


class WarmupShift(_shift.Shift):
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
        # init is required here: the value after the warm-up, never read from
        # the optimizer.
        _shift.check_real(self, "init", init)
        super().__init__(attr, init, optimizer)
        _shift.check_real(self, "warmup_start", warmup_start)
        if (
            isinstance(warmup_iter, bool)
            or not isinstance(warmup_iter, numbers.Integral)
            or warmup_iter <= 0
        ):
            raise ValueError(
                f"WarmupShift: warmup_iter must be a positive int, got {warmup_iter!r}"
            )
        self._warmup_start = warmup_start
        self._warmup_iter = int(warmup_iter)

    def _start_value(self):
        return self._warmup_start

    def _next_value(self):
        if self._t < self._warmup_iter:
            start = self._warmup_start
            return start + (self._init - start) * self._t / self._warmup_iter
        return self._init
