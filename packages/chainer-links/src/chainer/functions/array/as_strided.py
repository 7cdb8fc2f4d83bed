from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _storage_indices(xp, shape, strides, offset):
    # Position in the flat storage of every element of the strided view.
    idx = xp.full(shape, offset, dtype=xp.intp)
    ndim = len(shape)
    for axis, (n, s) in enumerate(zip(shape, strides, strict=True)):
        steps = xp.arange(n, dtype=xp.intp) * s
        idx += steps.reshape((n,) + (1,) * (ndim - axis - 1))
    return idx


class AsStrided(function_node.FunctionNode):
    """Strided view of the flat storage of the input."""

    def __init__(self, shape, strides, storage_offset=0):
        self.shape = shape
        self.strides = strides
        self.storage_offset = storage_offset
        empty = 0 in shape
        # Largest storage position read; -1 when nothing is read.
        self._last = (
            -1
            if empty
            else storage_offset
            + sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s > 0)
        )
        first = storage_offset + sum(
            (n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0
        )
        if not empty and first < 0:
            raise ValueError(
                f"as_strided: shape {shape} with strides {strides} and offset "
                f"{storage_offset} reads before the start of the storage"
            )

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        last = type_check.make_variable(self._last, "last storage index read")
        type_check.expect(type_check.prod(x_type.shape) > last)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        self._in_shape = x.shape
        flat = xp.ascontiguousarray(x).reshape(-1)
        itemsize = flat.itemsize
        y = xp.lib.stride_tricks.as_strided(
            flat[self.storage_offset :],
            self.shape,
            tuple(s * itemsize for s in self.strides),
        )
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        grad = AsStridedGrad(
            self._in_shape, self.shape, self.strides, self.storage_offset
        )
        return grad.apply((gy,))


class AsStridedGrad(function_node.FunctionNode):
    """Scatter-add of the view's gradient into the flat storage (overlaps add)."""

    def __init__(self, in_shape, shape, strides, storage_offset):
        self._in_shape = in_shape
        self.shape = shape
        self.strides = strides
        self.storage_offset = storage_offset

    def forward(self, inputs):
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        size = 1
        for n in self._in_shape:
            size *= n
        idx = _storage_indices(xp, self.shape, self.strides, self.storage_offset)
        gx = xp.bincount(idx.reshape(-1), weights=gy.reshape(-1), minlength=size)
        return (gx.astype(gy.dtype, copy=False).reshape(self._in_shape),)

    def backward(self, indexes, grad_outputs):
        (ggx,) = grad_outputs
        return (as_strided(ggx, self.shape, self.strides, self.storage_offset),)


def as_strided(x, shape, strides, storage_offset=None):
    """Creates a new view of array with the given shape, strides, and offset.

    ``x`` is read as its flat storage: its elements in C order, whatever its
    own strides. Where the view reads a storage element several times
    (overlapping windows), the gradients of those reads are summed.

    .. note::
        ``strides`` and ``storage_offset`` count elements, not bytes, unlike
        :func:`numpy.lib.stride_tricks.as_strided`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array whose flat storage is
            viewed; any shape.
        shape (tuple of int): Shape of the output.
        strides (tuple of int): Strides of the output in elements, one per
            entry of ``shape``.
        storage_offset (int or None): Index in the flat storage of the
            output's first element; None means 0.

    Returns:
        ~chainer.Variable: Variable of shape ``shape`` and the dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(4, dtype=np.float32)
        >>> F.as_strided(x, (3, 2), (1, 1), 0).array
        array([[0., 1.],
               [1., 2.],
               [2., 3.]], dtype=float32)
    """
    shape = tuple(int(n) for n in shape)
    strides = tuple(int(s) for s in strides)
    if len(shape) != len(strides):
        raise ValueError(
            f"as_strided: shape {shape} and strides {strides} differ in length"
        )
    if any(n < 0 for n in shape):
        raise ValueError(f"as_strided: negative dimension in shape {shape}")
    offset = 0 if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise ValueError(f"as_strided: negative storage_offset {offset}")
    (y,) = AsStrided(shape, strides, offset).apply((x,))
    return y
