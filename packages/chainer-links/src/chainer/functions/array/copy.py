from chainer import backend
from chainer import function_node
from chainer.backends import cuda
from chainer.utils import type_check


class Copy(function_node.FunctionNode):
    """Transfer of an array between devices."""

    def __init__(self, in_device, out_device):
        self._in_device = in_device
        self.out_device = out_device

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)

    def forward(self, inputs):
        (x,) = inputs
        y = self.out_device.send(x)
        # NOTE: sending to the device an array is already on returns the
        # array itself; the output must not alias the input.
        if y is x:
            y = x.copy()
        return (y,)

    def backward(self, indexes, grad_outputs):
        return Copy(self.out_device, self._in_device).apply(grad_outputs)


def copy(x, dst):
    """Copies the input variable onto the specified device.

    The result is always a new array, also when ``x`` already lives on
    ``dst``. The gradient is copied back to the device of ``x``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array of any shape.
        dst: Target device specifier: a :class:`~chainer.backend.Device`, a
            string such as ``'@numpy'`` or ``'@cupy:0'``, or an int (negative
            for the host, ``N >= 0`` for CUDA device ``N``).

    Returns:
        ~chainer.Variable: Variable with the same shape, dtype and values as
        ``x``, on device ``dst``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(3, dtype=np.float32)
        >>> F.copy(x, -1).array
        array([0., 1., 2.], dtype=float32)
    """
    if dst is cuda.DummyDevice:
        dst = -1
    in_device = backend.get_device_from_array(x)
    out_device = backend.get_device(dst)
    (y,) = Copy(in_device, out_device).apply((x,))
    return y
