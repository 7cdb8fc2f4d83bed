import numpy

from chainer import backend
from chainer import function_node
from chainer.functions import _labels
from chainer.utils import type_check


def _fbeta_score(precision, recall, beta):
    beta_square = beta * beta
    return (1 + beta_square) * precision * recall / (beta_square * precision + recall)


class ClassificationSummary(function_node.FunctionNode):
    """Per-class precision, recall, F-beta score and support (not differentiable)."""

    def __init__(self, label_num, beta, ignore_label):
        self.label_num = label_num
        self.beta = beta
        self.ignore_label = ignore_label

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
        if self.label_num is None:
            label_num = int(t.max()) + 1 if t.size else 0
        else:
            label_num = int(self.label_num)
        # A label past label_num would be counted in the ignored bin, or lost.
        _labels.check_labels(
            "classification_summary", t, label_num, self.ignore_label, "t", "label_num"
        )
        # Ignored instances are counted in an extra bin, label_num, and dropped.
        mask = (t == self.ignore_label).ravel()
        pred = xp.where(mask, label_num, y.argmax(axis=1).ravel())
        true = xp.where(mask, label_num, t.ravel())
        support = xp.bincount(true, minlength=label_num + 1)[:label_num]
        relevant = xp.bincount(pred, minlength=label_num + 1)[:label_num]
        tp_index = xp.where(pred == true, true, label_num)
        tp = xp.bincount(tp_index, minlength=label_num + 1)[:label_num]
        dtype = y.dtype
        # Classes never predicted (or never present) give 0/0 = NaN, as in
        # scikit-learn's undefined precision and recall, without a warning.
        with numpy.errstate(divide="ignore", invalid="ignore"):
            precision = tp / relevant
            recall = tp / support
            fbeta = _fbeta_score(precision, recall, self.beta)
        return (
            precision.astype(dtype),
            recall.astype(dtype),
            fbeta.astype(dtype),
            support,
        )


def classification_summary(y, t, label_num=None, beta=1.0, ignore_label=-1):
    """Calculates precision, recall, F-beta score and support per class.

    For each class:

    - Precision: :math:`\\frac{\\mathrm{tp}}{\\mathrm{tp} + \\mathrm{fp}}`
    - Recall: :math:`\\frac{\\mathrm{tp}}{\\mathrm{tp} + \\mathrm{fn}}`
    - F-beta score: the weighted harmonic mean of precision and recall,
      :math:`\\frac{(1 + \\beta^2) P R}{\\beta^2 P + R}`.
    - Support: the number of instances whose true label is the class.

    A class that is never predicted (or never present) gets NaN precision
    (or recall).

    Args:
        y (~chainer.Variable or :ref:`ndarray`): Float scores of shape
            ``(N, K)`` or ``(N, K, d_1, ..., d_m)``; the prediction is the
            argmax over axis 1.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels of shape
            ``(N,)`` or ``(N, d_1, ..., d_m)``, each in ``[0, label_num)`` or
            equal to ``ignore_label`` (any other raises ``ValueError``).
        label_num (int or None): Number of classes; ``None`` takes the
            largest label in ``t`` plus one.
        beta (float): Weight of recall relative to precision in the F-beta
            score.
        ignore_label (int): Instances with this label are not counted. A
            non-negative value below ``label_num`` is illegal (undefined
            results).

    Returns:
        tuple of ~chainer.Variable: ``(precision, recall, fbeta, support)``,
        each of shape ``(label_num,)``; the first three of ``y``'s dtype,
        ``support`` an integer count.

    .. note:: This function is not differentiable.

    Example:
        >>> import numpy as np
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], np.float32)
        >>> t = np.array([0, 1, 1], np.int32)
        >>> p, r, f, s = classification_summary(y, t)
        >>> p.array
        array([0.5, 1. ], dtype=float32)
        >>> r.array
        array([1. , 0.5], dtype=float32)
        >>> s.array.tolist()
        [1, 2]
    """
    return ClassificationSummary(label_num, beta, ignore_label).apply((y, t))


def precision(y, t, label_num=None, ignore_label=-1):
    """Calculates the precision of each class.

    Args:
        y (~chainer.Variable or :ref:`ndarray`): Float scores, as in
            :func:`classification_summary`.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels, as in
            :func:`classification_summary`.
        label_num (int or None): Number of classes (``None``: ``max(t) + 1``).
        ignore_label (int): Instances with this label are not counted.

    Returns:
        tuple of ~chainer.Variable: ``(precision, support)``, each of shape
        ``(label_num,)``.
    """
    ret = ClassificationSummary(label_num, 1.0, ignore_label).apply((y, t))
    return ret[0], ret[3]


def recall(y, t, label_num=None, ignore_label=-1):
    """Calculates the recall of each class.

    Args:
        y (~chainer.Variable or :ref:`ndarray`): Float scores, as in
            :func:`classification_summary`.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels, as in
            :func:`classification_summary`.
        label_num (int or None): Number of classes (``None``: ``max(t) + 1``).
        ignore_label (int): Instances with this label are not counted.

    Returns:
        tuple of ~chainer.Variable: ``(recall, support)``, each of shape
        ``(label_num,)``.
    """
    ret = ClassificationSummary(label_num, 1.0, ignore_label).apply((y, t))
    return ret[1], ret[3]


def fbeta_score(y, t, label_num=None, beta=1.0, ignore_label=-1):
    """Calculates the F-beta score of each class.

    Args:
        y (~chainer.Variable or :ref:`ndarray`): Float scores, as in
            :func:`classification_summary`.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels, as in
            :func:`classification_summary`.
        label_num (int or None): Number of classes (``None``: ``max(t) + 1``).
        beta (float): Weight of recall relative to precision.
        ignore_label (int): Instances with this label are not counted.

    Returns:
        tuple of ~chainer.Variable: ``(fbeta_score, support)``, each of shape
        ``(label_num,)``.
    """
    ret = ClassificationSummary(label_num, beta, ignore_label).apply((y, t))
    return ret[2], ret[3]


def f1_score(y, t, label_num=None, ignore_label=-1):
    """Calculates the F1 score (F-beta with beta 1) of each class.

    Args:
        y (~chainer.Variable or :ref:`ndarray`): Float scores, as in
            :func:`classification_summary`.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels, as in
            :func:`classification_summary`.
        label_num (int or None): Number of classes (``None``: ``max(t) + 1``).
        ignore_label (int): Instances with this label are not counted.

    Returns:
        tuple of ~chainer.Variable: ``(f1_score, support)``, each of shape
        ``(label_num,)``.
    """
    return fbeta_score(y, t, label_num, 1.0, ignore_label)
