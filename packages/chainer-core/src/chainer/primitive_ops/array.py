"""Shape and indexing primitives: reshape, transpose, broadcast_to, sum_to,
get_item, cast."""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import configuration
from chainer import function_node
from chainer import variable
from chainer.utils import type_check


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _infer_shape(shape, size):
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise ValueError(f"only one dimension can be -1 in shape {shape}")
    if any(s < -1 for s in shape):
        raise ValueError(f"negative dimension in shape {shape}")
    if unknown:
        rest = _prod(s for s in shape if s != -1)
        if rest == 0 or size % rest:
            raise type_check.InvalidType(
                f"size of x ({size}) divisible by {rest}",
                f"cannot reshape array of size {size} into shape {shape}",
            )
        shape = tuple(size // rest if s == -1 else s for s in shape)
    return shape


class Reshape(function_node.FunctionNode):
    """Reshape to a fixed shape."""

    def __init__(self, shape):
        self.shape = shape

    @type_check.fast_path(
        lambda node, xs: len(xs) == 1 and xs[0].size == _prod(node.shape)
    )
    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(type_check.prod(x_type.shape) == _prod(self.shape))

    def forward(self, inputs):
        (x,) = inputs
        return (x.reshape(self.shape),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (reshape(gy, self.inputs[0].shape),)


def reshape(x, shape):
    """Reshapes ``x`` without copying when possible.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input.
        shape (tuple of int): Target shape; one entry may be -1.

    Returns:
        ~chainer.Variable: Reshaped variable.
    """
    if isinstance(shape, int):
        shape = (shape,)
    data = x._data if isinstance(x, variable.Variable) else x
    shape = _infer_shape(shape, data.size) if -1 in shape else tuple(shape)
    if data.shape == shape:
        return variable.as_variable(x)
    (y,) = Reshape(shape).apply((x,))
    return y


class Transpose(function_node.FunctionNode):
    """Permutation of axes."""

    def __init__(self, axes=None):
        self.axes = axes

    @type_check.fast_path(
        lambda node, xs: (
            len(xs) == 1 and (node.axes is None or xs[0].ndim == len(node.axes))
        )
    )
    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        if self.axes is not None:
            (x_type,) = in_types
            type_check.expect(x_type.ndim == len(self.axes))

    def forward(self, inputs):
        (x,) = inputs
        return (x.transpose(self.axes),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        if self.axes is None:
            return (transpose(gy, None),)
        inv = tuple(numpy.argsort([a % len(self.axes) for a in self.axes]))
        return (transpose(gy, inv),)


def transpose(x, axes=None):
    """Permutes the axes of ``x`` (reverses them when ``axes`` is None).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input.
        axes (tuple of int): Permutation of ``range(x.ndim)``.

    Returns:
        ~chainer.Variable: Transposed variable.
    """
    if axes is not None:
        axes = tuple(axes)
        ndim = (x._data if isinstance(x, variable.Variable) else x).ndim
        if sorted(a % ndim if ndim else a for a in axes) != list(range(ndim)):
            raise ValueError(f"axes {axes} is not a permutation of {ndim} axes")
    (y,) = Transpose(axes).apply((x,))
    return y


class BroadcastTo(function_node.FunctionNode):
    """Broadcast to a shape."""

    def __init__(self, shape):
        self._shape = shape

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        ndim = type_check.make_variable(len(self._shape), "len(shape)")
        type_check.expect(x_type.ndim <= ndim)
        shape = tuple(type_check.eval(x_type.shape))
        lead = len(self._shape) - len(shape)
        for i, size in enumerate(shape):
            if size != 1 and size != self._shape[lead + i]:
                raise type_check.InvalidType(
                    f"x.shape broadcastable to {self._shape}", f"x.shape={shape}"
                )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        return (xp.broadcast_to(x, self._shape),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (sum_to(gy, self.inputs[0].shape),)


def broadcast_to(x, shape):
    """Broadcasts ``x`` to ``shape`` (differentiable).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input.
        shape (tuple of int): Target shape.

    Returns:
        ~chainer.Variable: Broadcast variable.
    """
    shape = tuple(shape)
    data = x._data if isinstance(x, variable.Variable) else x
    if data.shape == shape:
        return variable.as_variable(x)
    (y,) = BroadcastTo(shape).apply((x,))
    return y


class SumTo(function_node.FunctionNode):
    """Sum elements so that the result has a given (broadcast-compatible) shape."""

    def __init__(self, shape):
        self._shape = shape

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(x_type.ndim >= len(self._shape))

    def forward(self, inputs):
        (x,) = inputs
        return (_sum_to_array(x, self._shape),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (broadcast_to(gy, self.inputs[0].shape),)


def _sum_to_array(x, shape):
    lead = x.ndim - len(shape)
    axes = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and x.shape[i + lead] != 1:
            axes.append(i + lead)
        elif s != x.shape[i + lead]:
            raise type_check.InvalidType(
                f"x.shape can be summed to {shape}", f"x.shape={x.shape}"
            )
    y = x.sum(axis=tuple(axes), keepdims=True) if axes else x
    if lead:
        y = y.reshape(shape)
    return y


def sum_to(x, shape):
    """Sums ``x`` over broadcast axes so that it has ``shape``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input.
        shape (tuple of int): Target shape that ``x`` was broadcast from.

    Returns:
        ~chainer.Variable: Summed variable.
    """
    shape = tuple(shape)
    data = x._data if isinstance(x, variable.Variable) else x
    if data.shape == shape:
        return variable.as_variable(x)
    (y,) = SumTo(shape).apply((x,))
    return y


def _index_array(index):
    # A list inside an index is an integer (or boolean) array; an empty one
    # indexes nothing, as NumPy reads ``[]`` and ``[[]]``.
    array = numpy.asarray(index)
    if array.size == 0 and array.dtype.kind not in "biu":
        array = array.astype(numpy.intp)
    return array


def _normalize_slices(slices):
    if isinstance(slices, variable.Variable):
        return slices._data
    if isinstance(slices, list):
        if all(isinstance(s, (int, numpy.integer, numpy.bool_)) for s in slices):
            # A list of ints (or bools) is one index array.
            return _index_array(slices)
        # As in Chainer, any other list is a tuple of indices.
        slices = tuple(slices)
    if isinstance(slices, tuple):
        return tuple(_normalize_index(s) for s in slices)
    return slices


def _normalize_index(index):
    # One entry of a tuple index.
    if isinstance(index, variable.Variable):
        return index._data
    if isinstance(index, list):
        return _index_array(index)
    return index


class GetItem(function_node.FunctionNode):
    """Basic or advanced indexing."""

    def __init__(self, slices):
        self.slices = slices

    @type_check.fast_path(lambda node, xs: len(xs) == 1)
    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)

    def forward(self, inputs):
        (x,) = inputs
        try:
            return (x[self.slices],)
        except IndexError as e:
            self._raise_index_error(x, e)

    def _raise_index_error(self, x, error):
        # Classified only once indexing failed, to keep the hot path lean:
        # as in Chainer, too many indices fail the type check and a second
        # Ellipsis is a ValueError.
        slices = self.slices if isinstance(self.slices, tuple) else (self.slices,)
        n_ellipsis = sum(s is Ellipsis for s in slices)
        n_indexed = sum(s is not None and s is not Ellipsis for s in slices)
        if n_indexed > x.ndim:
            with type_check.get_function_check_context(self):
                raise type_check.InvalidType(
                    "x.ndim >= number of indices (None and Ellipsis aside)",
                    f"x.ndim={x.ndim}, {n_indexed} indices",
                ) from None
        if n_ellipsis > 1:
            raise ValueError("get_item: only one Ellipsis is allowed") from None
        raise IndexError(f"get_item: {error} (x.shape={x.shape})") from None

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        node = self.inputs[0]
        return GetItemGrad(self.slices, node.shape, node.dtype).apply((gy,))


class GetItemGrad(function_node.FunctionNode):
    """Scatter-add of a gradient into zeros of the indexed array's shape."""

    def __init__(self, slices, in_shape, in_dtype):
        self.slices = slices
        self._in_shape = in_shape
        self._in_dtype = in_dtype

    def forward(self, inputs):
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, gy.dtype)
        if _is_basic(self.slices):
            gx[self.slices] = gy
        else:
            xp.add.at(gx, self.slices, gy)
        return (gx,)

    def backward(self, indexes, grad_outputs):
        (ggx,) = grad_outputs
        return (get_item(ggx, self.slices),)


def _is_basic(slices):
    if not isinstance(slices, tuple):
        slices = (slices,)
    for s in slices:
        if not (
            s is None or s is Ellipsis or isinstance(s, (int, slice, numpy.integer))
        ):
            return False
    return True


def get_item(x, slices):
    """Extracts elements of ``x`` by basic or advanced indexing (``x[slices]``).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input.
        slices: Anything NumPy accepts as an index: ints, slices, None,
            Ellipsis, integer or boolean arrays (or lists, or Variables).

    Returns:
        ~chainer.Variable: The selected elements.
    """
    (y,) = GetItem(_normalize_slices(slices)).apply((x,))
    return y


def _one_input(node, inputs):
    return len(inputs) == 1


class Cast(function_node.FunctionNode):
    """Conversion to another dtype (any dtype; gradients flow between floats)."""

    def __init__(self, dtype):
        self.type = dtype

    @type_check.fast_path(_one_input)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))

    def forward(self, inputs):
        (x,) = inputs
        return (x.astype(self.type, copy=False),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        in_dtype = self.inputs[0].dtype
        if in_dtype.kind != "f":
            return (None,)  # only float inputs have gradients
        return (cast(gy, in_dtype),)


def cast(x, typ):
    """Casts ``x`` to dtype ``typ`` (identity when it already has it).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input.
        typ (dtype or str): Target dtype.

    Returns:
        ~chainer.Variable: Variable of dtype ``typ``.
    """
    typ = numpy.dtype(typ)
    data = x._data if isinstance(x, variable.Variable) else x
    if data.dtype == typ and not configuration.config.enable_backprop:
        return variable.as_variable(x)
    (y,) = Cast(typ).apply((x,))
    return y
