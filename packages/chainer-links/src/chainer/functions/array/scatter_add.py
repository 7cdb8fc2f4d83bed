import numbers

import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import variable
from chainer.utils import type_check


def _normalize_slices(slices):
    if isinstance(slices, list):
        if all(isinstance(s, numbers.Integral) for s in slices):
            # A list of ints is one integer index array, as in NumPy.
            return (numpy.asarray(slices, numpy.intp),)
        slices = tuple(slices)
    elif not isinstance(slices, tuple):
        slices = (slices,)
    slices = tuple(variable.as_array(s) for s in slices)
    if sum(s is Ellipsis for s in slices) > 1:
        raise ValueError("an index can only have a single ellipsis ('...')")
    return slices


def _is_basic(slices):
    # NumPy treats a bool index as a mask (advanced indexing).
    return all(
        s is None
        or s is Ellipsis
        or isinstance(s, slice)
        or (isinstance(s, numbers.Integral) and not isinstance(s, bool))
        for s in slices
    )


class ScatterAdd(function_node.FunctionNode):
    """Addition of values at indexed positions of an array."""

    def __init__(self, slices):
        self.slices = slices

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        n_indexed = sum(s is not None and s is not Ellipsis for s in self.slices)
        type_check.expect(
            a_type.dtype == b_type.dtype,
            a_type.ndim >= type_check.make_variable(n_indexed, "len(slices)"),
        )

    def forward(self, inputs):
        a, b = inputs
        xp = backend.get_array_module(a)
        y = a.copy()
        slices = self.slices
        basic = _is_basic(slices)
        if basic:
            # A trailing Ellipsis makes the result a view even when every
            # axis gets an int (a 0-d array rather than a scalar).
            if all(s is not Ellipsis for s in slices):
                slices = (*slices, Ellipsis)
            target = y[slices]
        else:
            target = xp.empty_like(a, "?")[slices]
        # The indexed shape depends on the index arrays' values (boolean
        # masks), so it is checked here rather than in check_type_forward.
        if target.shape != b.shape:
            raise ValueError(
                "scatter_add does not broadcast b: a[slices].shape="
                f"{target.shape} but b.shape={b.shape}"
            )
        if basic:
            target += b
        else:
            # Unlike ``y[slices] += b``, repeated indices accumulate.
            xp.add.at(y, slices, b)
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        ret = []
        for i in indexes:
            ret.append(gy if i == 0 else primitive_ops.get_item(gy, self.slices))
        return tuple(ret)


def scatter_add(a, slices, b):
    """Adds ``b`` to the elements of ``a`` selected by ``slices``.

    Returns a new array ``y`` equal to ``a`` except that ``y[slices]`` has
    ``b`` added; elements indexed more than once receive every addition
    (like ``numpy.add.at``). ``a`` is left unchanged.

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Base array.
        slices (int, slice, Ellipsis, None, integer or boolean array, or a
            tuple or list of them): Index selecting elements of ``a``, as
            in NumPy indexing. A list of ints is one integer index array.
        b (~chainer.Variable or :ref:`ndarray`): Values to add; same dtype as
            ``a`` and exactly the shape of ``a[slices]`` (no broadcasting).

    Returns:
        ~chainer.Variable: Array of the shape and dtype of ``a``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.zeros((3, 2), np.float32)
        >>> b = np.ones((3, 2), np.float32)
        >>> F.scatter_add(a, [0, 2, 0], b).array
        array([[2., 2.],
               [0., 0.],
               [1., 1.]], dtype=float32)
    """
    (y,) = ScatterAdd(_normalize_slices(slices)).apply((a, b))
    return y
