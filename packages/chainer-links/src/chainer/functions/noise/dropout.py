from chainer import backend
from chainer import function_node
from chainer import utils
from chainer import variable
from chainer.functions.noise import _masks
from chainer.utils import type_check


class Dropout(function_node.FunctionNode):
    """Dropout regularization."""

    def __init__(self, dropout_ratio, mask=None, return_mask=False):
        if not 0.0 <= dropout_ratio < 1.0:
            raise ValueError(
                f"dropout_ratio must be in the range [0, 1), got {dropout_ratio}"
            )
        self.dropout_ratio = dropout_ratio
        self.mask = mask
        self.return_mask = return_mask

    @type_check.fast_path(
        lambda node, xs: node.mask is None and type_check.single_float_input(node, xs)
    )
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")
        if self.mask is not None:
            type_check.expect(
                type_check.make_variable(self.mask.shape, "mask.shape") == x_type.shape,
                type_check.make_variable(self.mask.dtype, "mask.dtype") == x_type.dtype,
            )

    def forward(self, inputs):
        (x,) = inputs
        if self.mask is None:
            xp = backend.get_array_module(x)
            self.mask = _masks.keep_mask(xp, x.shape, self.dropout_ratio, x.dtype)
        return (x * self.mask,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (gy * self.mask,)


def dropout(x, ratio=0.5, **kwargs):
    """Drops elements of input variable randomly.

    This function drops input elements randomly with probability ``ratio``
    and scales the remaining elements by factor ``1 / (1 - ratio)``. In
    testing mode (``chainer.config.train`` is ``False``), it does nothing and
    just returns ``x``.

    See the paper by G. Hinton: `Improving neural networks by preventing
    co-adaptation of feature detectors <https://arxiv.org/abs/1207.0580>`_.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input variable. A
            :math:`(s_1, s_2, ..., s_N)`-shaped float array.
        ratio (float): Dropout ratio, in ``[0, 1)``.
        mask (:ref:`ndarray` or None): Keyword only. The mask multiplied to
            ``x``, of the shape and dtype of ``x``: its elements are ``0`` for
            dropped units and ``1 / (1 - ratio)`` for kept ones. A new mask is
            drawn when None.
        return_mask (bool): Keyword only. If ``True``, the mask used is
            returned as well (``None`` in testing mode).

    Returns:
        ~chainer.Variable or tuple: Output variable of the shape of ``x``; with
        ``return_mask=True`` a tuple ``(y, mask)``.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> import chainer.functions as F
        >>> x = np.ones((2, 3), np.float32)
        >>> with chainer.using_config('train', True):
        ...     y, mask = F.dropout(x, ratio=0.5, return_mask=True)
        >>> bool(np.all((y.array == 0) | (y.array == 2)))
        True
        >>> bool(np.all(y.array == mask))
        True
        >>> with chainer.using_config('train', False):
        ...     y = F.dropout(x, ratio=0.5)
        >>> y.array
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    mask = kwargs.pop("mask", None)
    return_mask = kwargs.pop("return_mask", False)
    if "train" in kwargs:
        raise ValueError(
            "train argument is not supported anymore. "
            "Use chainer.using_config('train', ...)"
        )
    if kwargs:
        raise TypeError(f"dropout() got unexpected keyword arguments: {sorted(kwargs)}")
    if utils._config_entry("train"):
        func = Dropout(ratio, mask, return_mask)
        (y,) = func.apply((x,))
        mask = func.mask
    else:
        y = variable.as_variable(x)
        mask = None
    if return_mask:
        return y, mask
    return y
