from chainer import backend
from chainer import function_node
from chainer.functions import _labels
from chainer.utils import type_check


class BinaryAccuracy(function_node.FunctionNode):
    """Accuracy of binary classification (not differentiable)."""

    ignore_label = -1

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == "f")
        type_check.expect(t_type.dtype.kind == "i")
        type_check.expect(t_type.shape == x_type.shape)

    def forward(self, inputs):
        y, t = inputs
        xp = backend.get_array_module(y)
        _labels.check_labels("binary_accuracy", t, 2, self.ignore_label)
        mask = t != self.ignore_label
        count = max(int(mask.sum()), 1)
        # A score is a positive prediction when it is >= 0 (pre-sigmoid).
        correct = ((y >= 0) == t) & mask
        return (xp.asarray(int(correct.sum()) / count, dtype=y.dtype),)


def binary_accuracy(y, t):
    """Computes the binary accuracy of a minibatch.

    Args:
        y (~chainer.Variable or :ref:`ndarray`): Float scores of any shape;
            ``y >= 0`` predicts label 1 (use pre-sigmoid values).
        t (~chainer.Variable or :ref:`ndarray`): Integer labels (0 or 1) of
            ``y``'s shape; ``-1`` marks instances to ignore (any other value
            raises ``ValueError``).

    Returns:
        ~chainer.Variable: A scalar (shape ``()``) of ``y``'s dtype; 0 when
        every instance is ignored.

    .. note:: This function is not differentiable.

    Example:
        >>> import numpy as np
        >>> y = np.array([[-1.0, 2.0], [0.5, -3.0]], np.float32)
        >>> t = np.array([[0, 1], [0, -1]], np.int32)
        >>> float(binary_accuracy(y, t).array)
        0.6666666865348816
    """
    (acc,) = BinaryAccuracy().apply((y, t))
    return acc
