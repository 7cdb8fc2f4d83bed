"""The ``ExponentialShift`` trainer extension."""

from __future__ import annotations

from chainer.training.extensions import _shift


class ExponentialShift(_shift.Shift):
    """Trainer extension to exponentially shift an optimizer attribute.

    The typical use is an exponential decay of the learning rate. At the
    ``t``-th invocation the attribute is set to

    .. math:: \\text{value} = \\text{init} \\cdot \\text{rate}^t

    When ``target`` is given, the value stops there: it never goes beyond
    ``target`` in the direction of the shift. The extension also sets the
    attribute to its initial value (or, on resume, to the last value) before
    the training loop starts. It is invoked every iteration by default;
    register it with e.g. ``trigger=(10, 'epoch')`` to shift less often.

    Args:
        attr (str): Name of the attribute to shift, e.g. ``'lr'``.
        rate (float): Rate of the exponential shift; the value is multiplied
            by it at each call. It must not be negative.
        init (float): Initial value of the attribute. If ``None``, the
            attribute's value when the training starts is used.
        target (float): Target value of the attribute; once reached, the
            shift stops.
        optimizer (~chainer.Optimizer): Optimizer whose attribute is shifted;
            the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.ExponentialShift('lr', 0.5, init=0.1, target=0.02)
    """

    def __init__(self, attr, rate, init=None, target=None, optimizer=None):
        super().__init__(attr, init, optimizer, target)
        _shift.check_real(self, "rate", rate)
        if rate < 0:
            raise ValueError(
                f"ExponentialShift does not support a negative rate; got {rate!r}"
            )
        self._rate = rate

    def _next_value(self):
        value = self._init * self._rate**self._t
        return self._clamp(value, grows=self._rate > 1)
