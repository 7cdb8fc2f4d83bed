import numpy

from chainer import backend
from chainer import function_node
from chainer.functions import _labels
from chainer.functions.activation import sigmoid
from chainer.utils import type_check


class SigmoidCrossEntropy(function_node.FunctionNode):
    """Sigmoid cross entropy of pre-sigmoid scores and binary labels."""

    ignore_label = -1

    def __init__(self, normalize=True, reduce="mean"):
        if reduce not in ("mean", "no"):
            raise ValueError(
                f"only 'mean' and 'no' are valid for 'reduce', but {reduce!r} is given"
            )
        self.normalize = normalize
        self.reduce = reduce
        self.count = None

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == "f")
        type_check.expect(t_type.dtype.kind == "i")
        type_check.expect(x_type.shape == t_type.shape)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        # A label of 2 would give a loss minimised at x = +inf, not an error.
        _labels.check_labels("sigmoid_cross_entropy", t, 2, self.ignore_label)
        self.ignore_mask = t != self.ignore_label
        # -(t log s(x) + (1 - t) log(1 - s(x))) = log(1 + exp(x)) - t x, written
        # as max(x, 0) - t x + log1p(exp(-|x|)) so that exp cannot overflow.
        loss = xp.maximum(x, 0) - x * t.astype(x.dtype) + xp.log1p(xp.exp(-abs(x)))
        loss *= self.ignore_mask
        if self.reduce == "no":
            return (xp.asarray(loss, dtype=x.dtype),)
        if self.normalize:
            count = int(self.ignore_mask.sum())
        else:
            count = len(x) if x.ndim else 1
        self.count = max(count, 1)
        # float16 sums are accumulated in float32 to avoid overflow.
        acc = numpy.float32 if x.dtype == numpy.float16 else x.dtype
        return (xp.asarray(loss.sum(dtype=acc) / self.count, dtype=x.dtype),)

    def backward(self, indexes, grad_outputs):
        x, t = self.get_retained_inputs()
        (gy,) = grad_outputs
        dtype = x.dtype
        # d/dx = sigmoid(x) - t on the instances that are not ignored.
        target = t.array.astype(dtype)
        mask = self.ignore_mask.astype(dtype)
        if self.reduce == "mean":
            gy = gy * (1.0 / self.count)
        return (gy * (sigmoid.sigmoid(x) - target) * mask, None)


def sigmoid_cross_entropy(x, t, normalize=True, reduce="mean"):
    """Computes cross entropy loss for pre-sigmoid activations.

    .. math::
        L = -\\frac{1}{C} \\sum_i \\left( t_i \\log \\sigma(x_i)
            + (1 - t_i) \\log (1 - \\sigma(x_i)) \\right)

    over the instances with :math:`t_i \\neq -1`, where :math:`C` is the
    normalization constant.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array whose elements
            are unnormalized log probabilities (any shape, typically
            ``(N, M)``).
        t (~chainer.Variable or :ref:`ndarray`): Integer labels of ``x``'s
            shape: 1 or 0, or -1 for an instance to ignore (any other value
            raises ``ValueError``). The loss is 0 if all labels are -1.
        normalize (bool): With ``reduce='mean'``, divide by the number of
            non-ignored instances if ``True``, or by the batch size
            ``len(x)`` if ``False``.
        reduce (str): ``'mean'`` returns the normalized scalar; ``'no'``
            returns the loss of each element, of ``x``'s shape.

    Returns:
        ~chainer.Variable: The loss, of ``x``'s dtype.

    .. note:: This function is differentiable only by ``x``.

    Example:
        >>> import numpy as np
        >>> x = np.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], np.float32)
        >>> t = np.array([[0, 1, 0], [1, 1, -1]], np.int32)
        >>> round(float(sigmoid_cross_entropy(x, t).array), 4)
        0.2566
    """
    (loss,) = SigmoidCrossEntropy(normalize, reduce).apply((x, t))
    return loss
