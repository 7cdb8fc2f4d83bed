from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class ReLU(function_node.FunctionNode):
    """Rectified linear unit; retains its output for the backward mask.

    NumPy inputs take chainer-cpu's kernel (``chainer_cpu.functions.
    activation.relu``) when that plugin is installed.
    """

    @type_check.fast_path(type_check.single_float_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (backend.get_array_module(x).maximum(x, x.dtype.type(0)),)

    def backward(self, indexes, grad_outputs):
        # Only the output's array is needed (a constant of the backward
        # graph), so it is read without recreating its Variable.
        (y,) = self.output_data
        return ReLUGrad(y).apply(grad_outputs)


class ReLUGrad(function_node.FunctionNode):
    """``gy * (y > 0)`` as one node, ``y`` being ReLU's output.

    A dedicated node halves ReLU's backward cost against ``gy * mask`` (one
    apply instead of a cast and a Mul; see ``benchmarks/workloads/
    catalogue_ops.py``). Its own gradient is the same masking, so double
    backprop stays exact. The gradient at 0 is 0, as in Chainer.
    """

    def __init__(self, y):
        #: ReLU's output (an array): the gradient passes where it is positive.
        self.y = y

    def forward(self, inputs):
        (gy,) = inputs
        return (gy * (self.y > 0),)

    def backward(self, indexes, grad_outputs):
        return ReLUGrad(self.y).apply(grad_outputs)


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
