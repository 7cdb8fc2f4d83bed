from chainer import backend
from chainer import function_node
from chainer.utils import type_check


class R2_score(function_node.FunctionNode):
    """Coefficient of determination (not differentiable)."""

    def __init__(self, sample_weight, multioutput):
        if sample_weight is not None:
            raise ValueError("r2_score admits only sample_weight=None")
        if multioutput not in ("uniform_average", "raw_values"):
            raise ValueError(
                "multioutput must be 'uniform_average' or 'raw_values', "
                f"but {multioutput!r} is given"
            )
        self.sample_weight = sample_weight
        self.multioutput = multioutput

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("pred", "true"))
        pred_type, true_type = in_types
        type_check.expect(pred_type.dtype.kind == "f")
        type_check.expect(true_type.dtype.kind == "f")
        type_check.expect(pred_type.shape == true_type.shape)
        type_check.expect(pred_type.ndim >= 1)

    def forward(self, inputs):
        pred, true = inputs
        xp = backend.get_array_module(pred)
        ss_res = ((pred - true) ** 2).sum(axis=0)
        ss_tot = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
        # A constant target has no variance: its score is defined as 0.
        constant = ss_tot == 0
        ret = xp.where(constant, 0, 1 - ss_res / xp.where(constant, 1, ss_tot))
        ret = ret.astype(pred.dtype)
        if self.multioutput == "uniform_average":
            ret = ret.mean()
        return (xp.asarray(ret),)


def r2_score(pred, true, sample_weight=None, multioutput="uniform_average"):
    """Computes the R^2 (coefficient of determination) regression score.

    .. math:: R^2 = 1 - \\frac{\\sum_i (y_i - \\hat{y}_i)^2}
        {\\sum_i (y_i - \\bar{y})^2}

    computed over axis 0 for each output.

    Args:
        pred (~chainer.Variable or :ref:`ndarray`): Float estimates of shape
            ``(N,)`` or ``(N, ...)``.
        true (~chainer.Variable or :ref:`ndarray`): Float targets of the shape
            of ``pred``.
        sample_weight: Kept for compatibility with scikit-learn's
            ``r2_score``; only ``None`` is accepted.
        multioutput (str): ``'uniform_average'`` averages the scores of the
            outputs; ``'raw_values'`` returns one score per output.

    Returns:
        ~chainer.Variable: A scalar for ``'uniform_average'``, else an array
        of shape ``pred.shape[1:]``; of ``pred``'s dtype. An output whose
        target is constant scores 0.

    .. note:: This function is not differentiable.
    """
    (score,) = R2_score(sample_weight, multioutput).apply((pred, true))
    return score
