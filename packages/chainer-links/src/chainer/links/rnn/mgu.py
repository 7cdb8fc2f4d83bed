import chainer
from chainer import link
from chainer.functions.activation import sigmoid
from chainer.functions.activation import tanh
from chainer.functions.array import concat
from chainer.functions.math import linear_interpolate
from chainer.links.connection import linear
from chainer.links.rnn import _state


class _MGUBase(link.Chain):
    """The two linear layers of a Minimal Gated Unit and its step."""

    def __init__(self, n_inputs, n_units):
        super().__init__()
        with self.init_scope():
            self.W_f = linear.Linear(n_inputs + n_units, n_units)
            self.W_h = linear.Linear(n_inputs + n_units, n_units)

    def _call_mgu(self, h, x):
        f = sigmoid.sigmoid(self.W_f(concat.concat((h, x))))
        h_bar = tanh.tanh(self.W_h(concat.concat((f * h, x))))
        return linear_interpolate.linear_interpolate(f, h_bar, h)


class StatelessMGU(_MGUBase):
    """Stateless Minimal Gated Unit (MGU).

    Given the previous hidden vector :math:`h` and an input :math:`x`:

    .. math::

        f &= \\sigma(W_f [h; x]), \\\\
        \\bar{h} &= \\tanh(W_h [f \\odot h; x]), \\\\
        h_{\\text{new}} &= (1 - f) \\odot h + f \\odot \\bar{h},

    where :math:`[\\cdot; \\cdot]` concatenates along the feature axis and
    :math:`W_f`, :math:`W_h` are the :class:`~chainer.links.Linear` child
    links ``W_f`` and ``W_h`` (with bias).

    Args:
        n_inputs (int): Dimension of the input vectors.
        n_units (int): Dimension of the hidden vectors.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> mgu = L.StatelessMGU(3, 4)
        >>> h = np.zeros((2, 4), np.float32)
        >>> mgu(h, np.ones((2, 3), np.float32)).shape
        (2, 4)

    See `Minimal Gated Unit for Recurrent Neural Networks
    <https://arxiv.org/abs/1603.09420>`_.
    """

    def forward(self, h, x):
        """Returns the new hidden vector.

        Args:
            h (~chainer.Variable or :ref:`ndarray`): Previous hidden vector,
                shape :math:`(B, \\text{n\\_units})`.
            x (~chainer.Variable or :ref:`ndarray`): Input, shape
                :math:`(B, \\text{n\\_inputs})`.

        Returns:
            ~chainer.Variable: The new hidden vector, shape of ``h``.
        """
        return self._call_mgu(h, x)


class StatefulMGU(_state.HiddenState, _MGUBase):
    """Stateful Minimal Gated Unit: an MGU that keeps its hidden vector.

    Each call computes the new hidden vector as :class:`StatelessMGU` does,
    from the stored one (zeros after :meth:`reset_state`), stores it as ``h``
    and returns it.

    Args:
        in_size (int): Dimension of the input vectors.
        out_size (int): Dimension of the hidden vectors.

    Attributes:
        h (~chainer.Variable): The hidden vector (None after
            :meth:`reset_state`).
        state_size (int): Dimension of the hidden vector.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> mgu = L.StatefulMGU(3, 4)
        >>> mgu(np.ones((2, 3), np.float32)).shape
        (2, 4)
    """

    def __init__(self, in_size, out_size):
        super().__init__(in_size, out_size)
        self.state_size = out_size
        self.reset_state()

    def forward(self, x):
        """Runs one step and returns the new hidden vector.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input, shape
                :math:`(B, \\text{in\\_size})`.

        Returns:
            ~chainer.Variable: The new hidden vector, shape
            :math:`(B, \\text{out\\_size})`.
        """
        h = self.h
        if h is None:
            with chainer.using_device(self.device):
                h = self.xp.zeros((x.shape[0], self.state_size), x.dtype)
        self.h = self._call_mgu(h, x)
        return self.h
