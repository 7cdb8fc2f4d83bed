"""The ``InverseShift`` trainer extension."""

from __future__ import annotations

from chainer.training.extensions import _shift


class InverseShift(_shift.Shift):
    """Trainer extension to shift an optimizer attribute by an inverse decay.

    The typical use is an inverse decay of the learning rate. At the
    ``t``-th invocation the attribute is set to

    .. math:: \\text{value} = \\text{init} \\cdot (1 + \\gamma t)^{-\\text{power}}

    When ``target`` is given, the value stops there: it never goes beyond
    ``target`` in the direction of the shift. The extension also sets the
    attribute to its initial value (or, on resume, to the last value) before
    the training loop starts. It is invoked every iteration by default.

    Args:
        attr (str): Name of the attribute to shift, e.g. ``'lr'``.
        gamma (float): Parameter of the formula above; it must not be
            negative.
        power (float): Exponent of the formula above. A negative power makes
            the value increase.
        init (float): Initial value of the attribute. If ``None``, the
            attribute's value when the training starts is used.
        target (float): Target value of the attribute; once reached, the
            shift stops.
        optimizer (~chainer.Optimizer): Optimizer whose attribute is shifted;
            the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.InverseShift('lr', gamma=1e-4, power=0.75)
    """

    def __init__(self, attr, gamma, power, init=None, target=None, optimizer=None):
        super().__init__(attr, init, optimizer, target)
        _shift.check_real(self, "gamma", gamma)
        _shift.check_real(self, "power", power)
        if gamma < 0:
            raise ValueError(
                f"InverseShift does not support a negative gamma; got {gamma!r}"
            )
        self._gamma = gamma
        self._power = power

    def _next_value(self):
        value = self._init * (1 + self._gamma * self._t) ** (-self._power)
        return self._clamp(value, grows=self._power < 0)
