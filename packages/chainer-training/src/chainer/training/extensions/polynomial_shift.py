"""The ``PolynomialShift`` trainer extension."""

from __future__ import annotations

import math

from chainer.training.extensions import _shift


class PolynomialShift(_shift.Shift):
    """Trainer extension to polynomially shift an optimizer attribute.

    The typical use is a polynomial decay of the learning rate at each
    iteration. At the ``t``-th invocation the attribute is set to

    .. math:: \\text{value} = \\text{init} \\cdot
        \\max(1 - t / \\text{max\\_count}, 0)^{\\text{rate}}

    so with one invocation per iteration and ``max_count`` the number of
    iterations of the training, the value reaches zero at its end. When
    ``target`` is given, the value stops there: it never goes beyond
    ``target`` in the direction of the shift. The extension also sets the
    attribute to its initial value (or, on resume, to the last value) before
    the training loop starts.

    Args:
        attr (str): Name of the attribute to shift, e.g. ``'lr'``.
        rate (float): Exponent of the polynomial shift.
        max_count (int): Number of times this extension is invoked over the
            training.
        init (float): Initial value of the attribute. If ``None``, the
            attribute's value when the training starts is used.
        target (float): Target value of the attribute; once reached, the
            shift stops.
        optimizer (~chainer.Optimizer): Optimizer whose attribute is shifted;
            the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.PolynomialShift('lr', 0.5, max_count=10000)
    """

    def __init__(self, attr, rate, max_count, init=None, target=None, optimizer=None):
        super().__init__(attr, init, optimizer, target)
        _shift.check_real(self, "rate", rate)
        _shift.check_real(self, "max_count", max_count)
        if max_count <= 0:
            raise ValueError(
                f"PolynomialShift: max_count must be positive, got {max_count!r}"
            )
        self._rate = rate
        self._max_count = max_count

    def _next_value(self):
        decay = max(1 - self._t / self._max_count, 0)
        if decay == 0 and self._rate < 0:
            # 0 ** negative: the value has grown without bound.
            value = math.copysign(math.inf, self._init)
        else:
            value = self._init * decay**self._rate
        # A positive rate makes the value shrink (to zero at max_count).
        return self._clamp(value, grows=not self._rate > 0)
