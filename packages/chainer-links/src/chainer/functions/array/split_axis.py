import itertools
import numbers

import chainer
from chainer import backend
from chainer import function_node
from chainer.functions.array import concat
from chainer.utils import type_check


class SplitAxis(function_node.FunctionNode):
    """Split of an array into pieces along an axis."""

    def __init__(self, indices_or_sections, axis):
        self.indices_or_sections = indices_or_sections
        self.axis = axis

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        ios = self.indices_or_sections
        if isinstance(ios, tuple):
            if ios:
                max_index = type_check.make_variable(ios[-1], "max_index")
                type_check.expect(x_type.shape[self.axis] >= max_index)
        else:
            sections = type_check.make_variable(ios, "sections")
            type_check.expect(x_type.shape[self.axis] % sections == 0)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        ys = tuple(xp.split(x, self.indices_or_sections, self.axis))
        self._shapes = [y.shape for y in ys]
        return ys

    def backward(self, indexes, grad_outputs):
        if len(grad_outputs) == 1:
            return grad_outputs
        zero = None
        gys = []
        for gy, shape in zip(grad_outputs, self._shapes, strict=True):
            if gy is None:
                if zero is None:
                    given = next(g for g in grad_outputs if g is not None)
                    zero = backend.get_array_module(given.array).zeros
                gy = zero(shape, self.inputs[0].dtype)
            gys.append(gy)
        return (concat.concat(gys, self.axis),)


def split_axis(x, indices_or_sections, axis, force_tuple=True):
    """Splits ``x`` into pieces along an axis.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array to split.
        indices_or_sections (int or 1-d array of ints): An integer ``N``
            divides ``x`` into ``N`` equal pieces along ``axis`` (the length
            must be divisible by ``N``). A sorted sequence of integers gives
            the positions where ``x`` is split, as :func:`numpy.split`
            (checked to be sorted in debug mode).
        axis (int): Axis along which to split.
        force_tuple (bool): If ``True`` (default) a tuple is returned even
            when there is only one piece; if ``False`` a single piece is
            returned as a Variable.

    Returns:
        tuple of ~chainer.Variable or ~chainer.Variable: The pieces.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.arange(12).reshape(2, 6).astype(np.float32)
        >>> [y.shape for y in F.split_axis(x, 3, axis=1)]
        [(2, 2), (2, 2), (2, 2)]
        >>> [y.shape for y in F.split_axis(x, [1, 4], axis=1)]
        [(2, 1), (2, 3), (2, 2)]
    """
    ios = indices_or_sections
    if isinstance(ios, numbers.Integral) and not isinstance(ios, bool):
        ios = int(ios)
        if ios <= 0:
            raise ValueError(f"number of sections must be positive, got {ios}")
    else:
        try:
            ios = backend.CpuDevice().send(ios) if hasattr(ios, "shape") else ios
            ios = tuple(int(i) for i in ios)
        except TypeError:
            raise TypeError(
                "indices_or_sections must be an integer or a 1-d array of "
                f"integers, not {indices_or_sections!r}"
            ) from None
        if chainer.is_debug() and any(a > b for a, b in itertools.pairwise(ios)):
            raise ValueError(f"indices_or_sections must be sorted, got {ios}")
    ys = SplitAxis(ios, axis).apply((x,))
    if force_tuple or len(ys) > 1:
        return ys
    return ys[0]
