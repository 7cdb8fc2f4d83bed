import numpy

from chainer import backend
from chainer import function_node
from chainer.utils import type_check

# 0-d zeros per dtype: on NumPy 1.x, comparing with or taking the maximum
# against a 0-d array of the same dtype skips value-based casting, which costs
# more than the elementwise work on small arrays.
_ZEROS = {}
_FIRST = (0,)
_maximum = numpy.maximum


# NumPy's maximum of an array and a scalar ran 2-3x slower than that of two
# arrays (0.78 vs 0.34 ms for 8 MB of float32 on the 2-core AMD machine of
# benchmarks/, NumPy 1.26 and 2.4): large inputs that fill their memory
# block are taken in memory order as rows of _ROW elements against a row of
# zeros.
_ROW = 16384
_ZERO_ROWS = {}


def _is_dense(x):
    # Whether x's elements fill a block of memory in some axis order.
    if x.flags.c_contiguous or x.flags.f_contiguous:
        return True
    axes = sorted(
        (st, dim) for st, dim in zip(x.strides, x.shape, strict=True) if dim != 1
    )
    expected = x.itemsize
    for st, dim in axes:
        if st != expected:
            return False
        expected *= dim
    return True


def _relu_large(x):
    # maximum(x, 0) for a large dense float32/64 array; None if not dense.
    if not _is_dense(x):
        return None
    y = numpy.empty_like(x)
    xf = x.ravel(order="K")
    yf = y.ravel(order="K")
    if not (numpy.may_share_memory(xf, x) and numpy.may_share_memory(yf, y)):
        return None
    row = _ZERO_ROWS.get(x.dtype)
    if row is None:
        row = _ZERO_ROWS[x.dtype] = numpy.zeros(_ROW, x.dtype)
    whole = xf.size // _ROW * _ROW
    numpy.maximum(xf[:whole].reshape(-1, _ROW), row, out=yf[:whole].reshape(-1, _ROW))
    numpy.maximum(xf[whole:], _zero(x, numpy), out=yf[whole:])
    return y


def _zero(x, xp):
    if xp is not numpy:
        return x.dtype.type(0)
    zero = _ZEROS.get(x.dtype)
    if zero is None:
        zero = _ZEROS[x.dtype] = numpy.zeros((), x.dtype)
    return zero


class ReLU(function_node.FunctionNode):
    """Rectified linear unit."""

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        if type(x) is numpy.ndarray:
            y = None
            if x.size >= 4 * _ROW and x.dtype.char in "fd":
                y = _relu_large(x)
            if y is None:
                # The lookups inlined: they cost as much as the maximum of a
                # small array.
                zero = _ZEROS.get(x.dtype)
                y = _maximum(x, _zero(x, numpy) if zero is None else zero)
        else:
            xp = backend.get_array_module(x)
            y = xp.maximum(x, _zero(x, xp))
        self.retain_outputs(_FIRST)
        return (y,)

    def backward(self, indexes, grad_outputs):
        # Only the mask of the output is needed (a constant of the backward
        # graph), so the retained array is read without recreating its
        # Variable.
        y = self._retained_output_data[0]
        if type(y) is numpy.ndarray:
            zero = _ZEROS.get(y.dtype)
            if zero is None:
                zero = _zero(y, numpy)
        else:
            zero = _zero(y, backend.get_array_module(y))
        return ReLUGrad(y > zero).apply(grad_outputs)


class ReLUGrad(function_node.FunctionNode):
    """``gy * (y > 0)`` as one node.

    A dedicated node halves ReLU's backward cost against ``gy * mask`` (one
    apply instead of a cast and a Mul; see ``benchmarks/workloads/
    catalogue_ops.py``). Its own gradient is the same masking, so double
    backprop stays exact.
    """

    def __init__(self, mask):
        # NOTE: the gradient at 0 is 0, as in Chainer.
        self.mask = mask

    def forward(self, inputs):
        (gy,) = inputs
        return (gy * self.mask,)

    def backward(self, indexes, grad_outputs):
        return ReLUGrad(self.mask).apply(grad_outputs)


def relu(x):
    """Rectified Linear Unit function.

    .. math:: f(x) = \\max(0, x)

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.

    Returns:
        ~chainer.Variable: Output variable. A :math:`(s_1, s_2, ..., s_N)`-shaped
        float array.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[-1, 0], [2, -3], [-2, 1]], np.float32)
        >>> F.relu(x).array
        array([[0., 0.],
               [2., 0.],
               [0., 1.]], dtype=float32)
    """
    (y,) = ReLU().apply((x,))
    return y
