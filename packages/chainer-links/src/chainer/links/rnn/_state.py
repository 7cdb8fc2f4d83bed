"""The state handling of the stateful RNN links, written once."""

import chainer
from chainer import variable


def zeros(link_, batch, dtype):
    """A zero state Variable of shape ``(batch, link_.state_size)``."""
    with chainer.using_device(link_.device):
        return variable.Variable(link_.xp.zeros((batch, link_.state_size), dtype))


class HiddenState:
    """Mixin of the links that keep a hidden vector ``h`` between calls."""

    def device_resident_accept(self, visitor):
        """Visits the parameters and the state variable ``h``."""
        super().device_resident_accept(visitor)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, h):
        """Sets the hidden vector.

        Args:
            h (~chainer.Variable): Hidden vector, shape :math:`(B, H)`.
        """
        if not isinstance(h, variable.Variable):
            raise TypeError("set_state takes the hidden state h as a Variable")
        h.to_device(self.device)
        self.h = h

    def reset_state(self):
        """Resets the hidden vector to None."""
        self.h = None


class CellState:
    """Mixin of the LSTM links that keep a cell state ``c`` and an output ``h``."""

    def device_resident_accept(self, visitor):
        """Visits the parameters and the state variables ``c`` and ``h``."""
        super().device_resident_accept(visitor)
        if self.c is not None:
            visitor.visit_variable(self.c)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, c, h):
        """Sets the cell state and the output of the previous step.

        Args:
            c (~chainer.Variable): Cell state, shape :math:`(B, H)`.
            h (~chainer.Variable): Output, shape :math:`(B, H)`.
        """
        if not isinstance(c, variable.Variable) or not isinstance(h, variable.Variable):
            raise TypeError(
                f"{type(self).__name__}.set_state takes the state c and h as Variables"
            )
        c.to_device(self.device)
        h.to_device(self.device)
        self.c = c
        self.h = h

    def reset_state(self):
        """Resets the state (``c`` and ``h``) to None."""
        self.c = self.h = None
