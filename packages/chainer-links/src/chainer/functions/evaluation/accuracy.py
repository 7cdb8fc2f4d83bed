from chainer import backend
from chainer import function_node
from chainer.functions import _labels
from chainer.utils import type_check


def _scores_and_labels(node, xs):
    # A type_check.fast_path predicate: float scores (n, k, d...) and integer
    # labels (n, d...); softmax_cross_entropy's uses it too.
    if len(xs) != 2:
        return False
    x, t = xs
    return (
        x.dtype.kind == "f"
        and t.dtype.kind == "i"
        and t.ndim >= 1
        and x.ndim == t.ndim + 1
        and x.shape[0] == t.shape[0]
        and x.shape[2:] == t.shape[1:]
    )


class Accuracy(function_node.FunctionNode):
    """Classification accuracy (not differentiable)."""

    def __init__(self, ignore_label=None):
        self.ignore_label = ignore_label

    @type_check.fast_path(_scores_and_labels)
    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == "f")
        type_check.expect(t_type.dtype.kind == "i")
        t_ndim = type_check.eval(t_type.ndim)
        type_check.expect(x_type.ndim >= t_type.ndim + 1)
        type_check.expect(x_type.shape[0] == t_type.shape[0])
        type_check.expect(x_type.shape[2 : t_ndim + 1] == t_type.shape[1:])
        for i in range(t_ndim + 1, type_check.eval(x_type.ndim)):
            type_check.expect(x_type.shape[i] == 1)

    def forward(self, inputs):
        y, t = inputs
        xp = backend.get_array_module(y)
        _labels.check_labels(
            "accuracy", t, y.shape[1], self.ignore_label, "t", "y.shape[1]"
        )
        pred = y.argmax(axis=1).reshape(t.shape)
        if self.ignore_label is None:
            return (xp.asarray((pred == t).mean(), dtype=y.dtype),)
        mask = t != self.ignore_label
        total = int(mask.sum())
        if total == 0:
            return (xp.asarray(0.0, dtype=y.dtype),)
        count = int(((pred == t) & mask).sum())
        return (xp.asarray(count / total, dtype=y.dtype),)


def accuracy(y, t, ignore_label=None):
    """Computes the multiclass classification accuracy of a minibatch.

    Args:
        y (~chainer.Variable or :ref:`ndarray`): Float scores of shape
            ``(N, K)`` or ``(N, K, d_1, ..., d_m)`` (trailing axes beyond
            those of ``t`` must have length one); the prediction is the
            argmax over axis 1.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels of shape
            ``(N,)`` or ``(N, d_1, ..., d_m)``, each in ``[0, K)`` or equal
            to ``ignore_label``; any other raises ``ValueError``.
        ignore_label (int or None): Instances labelled with this value are
            excluded from the count; if all are, the accuracy is 0.

    Returns:
        ~chainer.Variable: A scalar (shape ``()``) of ``y``'s dtype.

    .. note:: This function is not differentiable.

    Example:
        >>> import numpy as np
        >>> y = np.array([[0.1, 0.7, 0.2], [8.0, 1.0, 2.0]], np.float32)
        >>> t = np.array([1, 0], np.int32)
        >>> float(accuracy(y, t).array)
        1.0
        >>> float(accuracy(y, np.array([1, 2], np.int32), ignore_label=2).array)
        1.0
    """
    (acc,) = Accuracy(ignore_label).apply((y, t))
    return acc
