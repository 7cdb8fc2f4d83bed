from chainer import backend
from chainer import function_node
from chainer.functions import _labels
from chainer.utils import type_check


class _UnsupportedNormError(ValueError, NotImplementedError):
    # Chainer raises NotImplementedError for a norm other than L1/L2; a bad
    # argument raises ValueError elsewhere here, so this error is both.
    pass


class Hinge(function_node.FunctionNode):
    """Hinge loss of one-of-many classification."""

    def __init__(self, norm="L1", reduce="mean"):
        if norm not in ("L1", "L2"):
            raise _UnsupportedNormError(
                f"norm should be either 'L1' or 'L2', but {norm!r} is given"
            )
        if reduce not in ("mean", "no"):
            raise ValueError(
                f"only 'mean' and 'no' are valid for 'reduce', but {reduce!r} is given"
            )
        self.norm = norm
        self.reduce = reduce

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == "f")
        type_check.expect(t_type.dtype.kind == "i")
        type_check.expect(x_type.ndim == 2)
        type_check.expect(t_type.ndim == 1)
        type_check.expect(x_type.shape[0] == t_type.shape[0])

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        _labels.check_labels("hinge", t, x.shape[1], None, "t", "x.shape[1]")
        n = len(t)
        # sign is -1 at the true label and +1 elsewhere: margin = 1 + sign * x.
        sign = xp.ones_like(x)
        sign[xp.arange(n), t] = -1
        margin = 1 + sign * x
        self._sign = sign
        self._active = margin > 0
        if self.norm == "L2":
            self.retain_inputs((0,))
        loss = xp.maximum(margin, 0)
        if self.norm == "L2":
            loss *= loss
        if self.reduce == "mean":
            loss = xp.asarray(loss.sum() / max(n, 1), dtype=x.dtype)
        return (loss,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        shape = self._sign.shape
        if self.reduce == "mean":
            gy = gy * (1.0 / max(shape[0], 1))
        coeff = (self._sign * self._active).astype(gy.dtype)
        if self.norm == "L1":
            return gy * coeff, None
        # d/dx max(0, 1 + s x)^2 = 2 s max(0, 1 + s x); s^2 == 1.
        (x,) = self.get_retained_inputs()
        return gy * 2 * (coeff + x * self._active.astype(gy.dtype)), None


def hinge(x, t, norm="L1", reduce="mean"):
    """Hinge loss for a one-of-many classification task.

    .. math::
        L = \\frac{1}{N} \\sum_{n=1}^N \\sum_{k=1}^K
            \\left[ \\max(0, 1 - \\delta\\{t_n = k\\} x_{nk}) \\right]^p

    where :math:`\\delta\\{t_n = k\\}` is 1 if the condition holds and -1
    otherwise, and :math:`p` is 1 for ``'L1'`` and 2 for ``'L2'``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float scores of shape
            ``(N, K)``.
        t (~chainer.Variable or :ref:`ndarray`): Integer labels of shape
            ``(N,)``, each in ``[0, K)`` (any other raises ``ValueError``).
        norm (str): ``'L1'`` or ``'L2'``.
        reduce (str): ``'mean'`` averages the summed loss over the batch;
            ``'no'`` returns the elementwise loss of shape ``(N, K)``.

    Returns:
        ~chainer.Variable: A scalar for ``reduce='mean'``, else an array of
        the shape of ``x``; of ``x``'s dtype.
    """
    (y,) = Hinge(norm, reduce).apply((x, t))
    return y
