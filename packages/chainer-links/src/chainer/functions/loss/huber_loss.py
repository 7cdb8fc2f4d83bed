from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class HuberLoss(function_node.FunctionNode):
    """Huber loss: quadratic near zero, linear beyond ``delta``."""

    def __init__(self, delta, reduce="sum_along_second_axis"):
        if reduce not in ("sum_along_second_axis", "no"):
            raise ValueError(
                "only 'sum_along_second_axis' and 'no' are valid for 'reduce', "
                f"but {reduce!r} is given"
            )
        self.delta = delta
        self.reduce = reduce

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == "f")
        type_check.expect(x_type.dtype == t_type.dtype)
        type_check.expect(x_type.shape == t_type.shape)
        if self.reduce == "sum_along_second_axis":
            type_check.expect(x_type.ndim >= 2)

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        delta = x.dtype.type(self.delta)
        diff = x - t
        abs_diff = abs(diff)
        self._mask = abs_diff <= delta
        # The gradient is diff inside the quadratic zone and delta * sign(diff)
        # outside; the outside part is constant.
        self._outer = xp.where(self._mask, 0, delta * xp.sign(diff)).astype(x.dtype)
        self.retain_inputs((0, 1))
        y = xp.where(self._mask, 0.5 * diff * diff, delta * (abs_diff - 0.5 * delta))
        if self.reduce == "sum_along_second_axis":
            y = y.sum(axis=1)
        return (xp.asarray(y, dtype=x.dtype),)

    def backward(self, indexes, grad_outputs):
        x, t = self.get_retained_inputs()
        (gy,) = grad_outputs
        if self.reduce == "sum_along_second_axis":
            shape = list(x.shape)
            shape[1] = 1
            gy = primitive_ops.broadcast_to(
                primitive_ops.reshape(gy, tuple(shape)), x.shape
            )
        gx = gy * ((x - t) * self._mask.astype(x.dtype) + self._outer)
        ret = []
        if 0 in indexes:
            ret.append(gx)
        if 1 in indexes:
            ret.append(-gx)
        return ret


def huber_loss(x, t, delta, reduce="sum_along_second_axis"):
    """Huber loss, less sensitive to outliers than the squared error.

    .. math::
        L_{\\delta}(a) = \\left\\{ \\begin{array}{cc}
        \\frac{1}{2} a^2 & {\\rm if~|a| \\leq \\delta} \\\\
        \\delta (|a| - \\frac{1}{2} \\delta) & {\\rm otherwise,}
        \\end{array} \\right.

    where :math:`a = x - t`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float predictions; at least
            2-d for ``reduce='sum_along_second_axis'``.
        t (~chainer.Variable or :ref:`ndarray`): Targets of the shape and
            dtype of ``x``.
        delta (float): Threshold between the quadratic and linear zones.
        reduce (str): ``'sum_along_second_axis'`` sums the loss over axis 1;
            ``'no'`` returns it elementwise.

    Returns:
        ~chainer.Variable: The loss, of shape ``x.shape`` without axis 1 (or
        ``x.shape`` for ``reduce='no'``), of ``x``'s dtype.

    See: `Huber loss - Wikipedia <https://en.wikipedia.org/wiki/Huber_loss>`_.
    """
    (y,) = HuberLoss(delta, reduce).apply((x, t))
    return y
