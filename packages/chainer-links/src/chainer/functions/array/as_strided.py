import numpy

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


def _data_ptr(array):
    if isinstance(array, numpy.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr


def _storage(array):
    """The flat storage that ``array`` views, and where ``array`` lies in it.

    The storage is the memory of the array that ultimately owns the data of
    ``array`` (its last ``base``), read as a 1-d array of ``array.dtype``.
    Returns ``(flat, offset, strides)``: the storage, the index in it of the
    first element of ``array``, and the strides of ``array`` in elements.
    Where the memory cannot be read that way (a base that is not contiguous,
    strides that are not whole elements), the storage is a C-ordered copy of
    ``array``.
    """
    xp = backend.get_array_module(array)
    itemsize = array.itemsize
    base = array
    while True:
        parent = base.base
        if parent is not None and not isinstance(parent, xp.ndarray):
            # numpy.lib.stride_tricks.as_strided wraps the array it views.
            parent = getattr(parent, "base", None)
        if not isinstance(parent, xp.ndarray):
            break
        base = parent
    flat = None
    if base.flags.c_contiguous:
        flat = base.reshape(-1)
    elif base.flags.f_contiguous:
        flat = base.T.reshape(-1)
    delta = _data_ptr(array) - _data_ptr(base)
    if (
        flat is not None
        and delta % itemsize == 0
        and flat.nbytes % itemsize == 0
        and all(s % itemsize == 0 for s in array.strides)
    ):
        if flat.dtype != array.dtype:
            flat = flat.view(numpy.uint8).view(array.dtype)
        strides = tuple(s // itemsize for s in array.strides)
        return flat, delta // itemsize, strides
    flat = xp.ascontiguousarray(array).reshape(-1)
    strides = []
    step = 1
    for n in reversed(array.shape):
        strides.append(step)
        step *= n
    return flat, 0, tuple(reversed(strides))


def _index_range(shape, strides, offset):
    # Smallest and largest storage index read by a strided view (None when
    # the view is empty).
    if 0 in shape:
        return None
    low = high = offset
    for n, s in zip(shape, strides, strict=True):
        if s < 0:
            low += (n - 1) * s
        else:
            high += (n - 1) * s
    return low, high


def _stride_array(array, shape, strides, storage_offset):
    """A view of the storage of ``array`` with the given shape and strides.

    Unlike :func:`numpy.lib.stride_tricks.as_strided`, ``strides`` and
    ``storage_offset`` count elements, and ``storage_offset`` counts from the
    start of the memory that ``array`` views (its last ``base``), not from
    its first element.

    Args:
        array (:ref:`ndarray`): The array whose storage is viewed.
        shape (tuple of int): Shape of the view.
        strides (tuple of int): Strides of the view, in elements.
        storage_offset (int): Index in the storage of the view's first
            element.

    Returns:
        :ref:`ndarray`: The view.

    Raises:
        ValueError: If the view reads outside the storage.
    """
    xp = backend.get_array_module(array)
    flat, _, _ = _storage(array)
    bounds = _index_range(shape, strides, storage_offset)
    if bounds is not None:
        low, high = bounds
        if low < 0:
            raise ValueError(
                f"as_strided: shape {shape} with strides {strides} and offset "
                f"{storage_offset} reads before the start of the storage"
            )
        if high >= flat.size:
            raise ValueError(
                f"as_strided: shape {shape} with strides {strides} and offset "
                f"{storage_offset} reads past the end of a storage of "
                f"{flat.size} elements"
            )
    itemsize = flat.itemsize
    byte_strides = tuple(s * itemsize for s in strides)
    if xp is numpy:
        # Unlike as_strided, this keeps the storage as the view's base.
        return numpy.ndarray(
            shape,
            flat.dtype,
            buffer=flat,
            offset=storage_offset * itemsize,
            strides=byte_strides,
        )
    return xp.lib.stride_tricks.as_strided(flat[storage_offset:], shape, byte_strides)


class AsStrided(function_node.FunctionNode):
    """Strided view of the storage of the input."""

    def __init__(self, shape, strides, storage_offset=0):
        self.shape = shape
        self.strides = strides
        self.storage_offset = storage_offset

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))

    def forward(self, inputs):
        (x,) = inputs
        y = _stride_array(x, self.shape, self.strides, self.storage_offset)
        flat, x_offset, x_strides = _storage(x)
        self._x_layout = (x.shape, x_strides, x_offset, flat.size)
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        grad = AsStridedGrad(
            self._x_layout, self.shape, self.strides, self.storage_offset
        )
        return grad.apply((gy,))


class AsStridedGrad(function_node.FunctionNode):
    """Gradient of :class:`AsStrided`, independent of memory overlap.

    The gradient of the view is summed into the storage (repeated reads
    add up), then each element of the input takes its storage element's sum
    divided by the number of input elements sharing that storage element.
    """

    def __init__(self, x_layout, shape, strides, storage_offset):
        self._x_layout = x_layout
        self.shape = shape
        self.strides = strides
        self.storage_offset = storage_offset

    def _indices(self, xp):
        x_shape, x_strides, x_offset, size = self._x_layout
        idx_x = _storage_indices(xp, x_shape, x_strides, x_offset).reshape(-1)
        idx_y = _storage_indices(xp, self.shape, self.strides, self.storage_offset)
        count = xp.bincount(idx_x, minlength=size)
        count = xp.maximum(count, 1)
        return idx_x, idx_y.reshape(-1), count, size

    def forward(self, inputs):
        (gy,) = inputs
        if gy.dtype.kind != "f":
            raise TypeError(f"as_strided: gradients need a float dtype, got {gy.dtype}")
        xp = backend.get_array_module(gy)
        idx_x, idx_y, count, size = self._indices(xp)
        gs = xp.bincount(idx_y, weights=gy.reshape(-1), minlength=size) / count
        gx = gs[idx_x].astype(gy.dtype, copy=False)
        return (gx.reshape(self._x_layout[0]),)

    def backward(self, indexes, grad_outputs):
        (ggx,) = grad_outputs
        return (AsStridedGradGrad(self).apply((ggx,))[0],)


class AsStridedGradGrad(function_node.FunctionNode):
    """Adjoint of :class:`AsStridedGrad` (the linear map back to the view)."""

    def __init__(self, grad):
        self._grad = grad

    def forward(self, inputs):
        (ggx,) = inputs
        xp = backend.get_array_module(ggx)
        idx_x, idx_y, count, size = self._grad._indices(xp)
        gs = xp.bincount(idx_x, weights=ggx.reshape(-1), minlength=size) / count
        ggy = gs[idx_y].astype(ggx.dtype, copy=False)
        return (ggy.reshape(self._grad.shape),)

    def backward(self, indexes, grad_outputs):
        (g,) = grad_outputs
        return self._grad.apply((g,))


def as_strided(x, shape, strides, storage_offset=None):
    """Creates a new view of array with the given shape, strides, and offset.

    As :func:`numpy.lib.stride_tricks.as_strided`, the view reads the memory
    of ``x``: for an array that owns its data, its elements in memory order;
    for a view, the memory of the array it views. Where the view reads a
    storage element several times (overlapping windows), the gradients of
    those reads are summed; where several elements of ``x`` share a storage
    element, they share its gradient equally.

    .. note::
        ``strides`` and ``storage_offset`` count elements, not bytes, unlike
        :func:`numpy.lib.stride_tricks.as_strided`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Array whose storage is
            viewed; any shape. Gradients need a float dtype.
        shape (tuple of int): Shape of the output.
        strides (tuple of int): Strides of the output in elements, one per
            entry of ``shape``.
        storage_offset (int or None): Index in the storage of the output's
            first element; None means 0.

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
