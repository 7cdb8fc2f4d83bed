"""Batch conversion: stack examples into arrays and send them to a device."""

from __future__ import annotations

import abc
import sys

import numpy

from chainer import backend


def _get_device(device_spec):
    # None means "leave arrays where they are"; everything else, including the
    # legacy integers (negative: CPU, N >= 0: CUDA device N), goes through
    # chainer.backend so that plugin backends work the same way.
    if device_spec is None:
        return None
    return backend.get_device(device_spec)


def to_device(device, x):
    """Sends an array to a given device.

    This is used by :func:`concat_examples`; custom converters of updaters and
    extensions may use it too.

    Args:
        device (None, int, str or ~chainer.backend.Device): Where the array
            goes. ``None`` leaves it on its original device, a negative
            integer means the CPU, a non-negative integer the CUDA device of
            that id; any specifier accepted by :func:`chainer.get_device`
            (``'@numpy'``, ``'@cupy:0'``, a Device...) works as well.
        x (:ref:`ndarray`): An array to send (nested tuples, lists and dicts
            of arrays are accepted too).

    Returns:
        The array on the requested device.
    """
    device = _get_device(device)
    if device is None:
        return x
    return device.send(x)


class Converter(abc.ABC):
    """Base class of converters.

    A converter receives a batch from an iterator, transforms it into what the
    model consumes and sends it to a device. Updaters and evaluators call new
    style converters, i.e. instances of this class, with a
    :class:`chainer.backend.Device` (or ``None``) as the device argument,
    whatever specifier the user gave them. Implementations override
    :meth:`__call__`; the :func:`converter` decorator turns a function into
    one.
    """

    @abc.abstractmethod
    def __call__(self, batch, device):
        """Converts a batch.

        Args:
            batch: A batch, typically a list of examples from an iterator.
            device (~chainer.backend.Device or None): The target device.

        Returns:
            The converted batch.
        """


class _CallableConverter(Converter):
    """A :class:`Converter` around a function; made by :func:`converter`."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError(f"converter() can only wrap a callable, got {func!r}")
        self._func = func
        # Look like the wrapped function (help(), pickling by reference). The
        # wrapper is not marked ``__wrapped__``: its call signature really is
        # (*args, **kwargs), as in Chainer.
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            value = getattr(func, attr, None)
            if value is not None:
                setattr(self, attr, value)

    def __call__(self, *args, **kwargs):
        if len(args) >= 2:
            args = (args[0], _get_device(args[1]), *args[2:])
        elif "device" in kwargs:
            kwargs["device"] = _get_device(kwargs["device"])
        return self._func(*args, **kwargs)

    def __repr__(self):
        return f"<converter {getattr(self, '__qualname__', repr(self._func))}>"

    def __reduce__(self):
        # A converter defined at module level pickles by reference, like the
        # function it replaced (so iterators and updaters stay picklable).
        module = sys.modules.get(getattr(self, "__module__", None) or "")
        obj = module
        for part in getattr(self, "__qualname__", "<>").split("."):
            obj = getattr(obj, part, None)
        if obj is self:
            return self.__qualname__
        return (_CallableConverter, (self._func,))


def converter():
    """Decorator that makes a converter out of a function.

    The decorated function takes a batch and a device and returns the
    converted batch; the result is a :class:`Converter` instance. For
    backward compatibility the wrapper turns the device argument, which may
    be given in any form :func:`chainer.get_device` accepts (including a
    legacy integer), into a :class:`chainer.backend.Device` before calling
    the function (``None`` stays ``None``).

    Returns:
        callable: The decorator.

    Example:
        >>> import numpy as np
        >>> from chainer import dataset
        >>> @dataset.converter()
        ... def first_half(batch, device):
        ...     return device.send(np.asarray(batch[: len(batch) // 2]))
        >>> first_half([1, 2, 3, 4], -1).tolist()
        [1, 2]
    """

    def wrap(func):
        return _CallableConverter(func)

    return wrap


def _is_array(x):
    if isinstance(x, numpy.ndarray):
        return True
    # Python and NumPy scalars/lists are common examples; keep them away from
    # the backend registry lookup.
    if type(x).__module__ in ("builtins", "numpy"):
        return False
    return backend.is_array_supported(x)


def _concat_arrays(arrays, padding):
    first = arrays[0]
    if not _is_array(first):
        if padding is None:
            # Python scalars and lists: one conversion of the whole batch.
            return numpy.asarray(arrays)
        arrays = [numpy.asarray(a) for a in arrays]
        first = arrays[0]
    if padding is not None:
        return _concat_arrays_with_padding(arrays, padding)
    xp = backend.get_array_module(first)
    try:
        if xp is numpy:
            return numpy.stack(arrays)
        with backend.using_device(backend.get_device_from_array(first)):
            return xp.stack(arrays)
    except ValueError:
        # Checked only on failure to keep the common path free of it.
        _check_same_shape(arrays)
        raise


def _check_same_shape(arrays):
    shape = arrays[0].shape
    for a in arrays:
        if a.shape != shape:
            raise ValueError(
                "cannot concatenate examples of different shapes "
                f"{shape} and {a.shape}; pass padding= to pad them"
            )


def _concat_arrays_with_padding(arrays, padding):
    first = arrays[0]
    shape = list(first.shape)
    for a in arrays:
        if a.ndim != first.ndim:
            raise ValueError(
                "cannot pad examples with different numbers of dimensions "
                f"{first.ndim} and {a.ndim}"
            )
        for axis, size in enumerate(a.shape):
            if size > shape[axis]:
                shape[axis] = size
    xp = backend.get_array_module(first)
    with backend.using_device(backend.get_device_from_array(first)):
        result = xp.full((len(arrays), *shape), padding, dtype=first.dtype)
        for i, a in enumerate(arrays):
            result[(i, *[slice(size) for size in a.shape])] = a
    return result


def _per_field_padding(padding, fields, kind):
    # One padding value for all fields, or a tuple/dict matching the examples.
    if kind is tuple:
        if not isinstance(padding, tuple):
            return [padding] * fields
        if len(padding) != fields:
            raise ValueError(
                f"padding has {len(padding)} entries but examples have {fields} "
                "elements"
            )
        return padding
    if not isinstance(padding, dict):
        return dict.fromkeys(fields, padding)
    missing = [k for k in fields if k not in padding]
    if missing:
        raise ValueError(f"padding has no entry for the example keys {missing}")
    return padding


def _check_batch(batch):
    try:
        n = len(batch)
    except TypeError:
        raise TypeError(
            f"batch must be a sequence of examples, got {type(batch).__name__}"
        ) from None
    if n == 0:
        raise ValueError("batch is empty")


@converter()
def concat_examples(batch, device=None, padding=None):
    """Concatenates a list of examples into array(s).

    Each example may be an array, a tuple of arrays or a dict of arrays.
    Corresponding arrays of all examples are stacked along a new first axis
    (the batch dimension), and the structure of the examples is kept: a tuple
    of batched arrays for tuple examples, a dict for dict examples. Python
    scalars and lists are converted to NumPy arrays.

    When arrays to concatenate have different shapes, ``padding`` decides:
    ``None`` raises an error; otherwise the result has, along each axis, the
    largest size among the examples, and the extra elements are filled with
    ``padding``.

    Args:
        batch (list): A list of examples, typically given by an iterator.
        device (None, int, str or ~chainer.backend.Device): Device to which
            each array is sent (see :func:`to_device`). ``None`` leaves the
            arrays on their original device; a negative integer means the
            CPU.
        padding: Scalar value for extra elements, or a tuple/dict of them
            giving one value per element of the examples. ``None`` (default)
            raises an error on shape mismatch.

    Returns:
        An array, a tuple of arrays, or a dict of arrays, according to the
        type of the examples.

    Example:
        >>> import numpy as np
        >>> from chainer import dataset
        >>> x, t = dataset.concat_examples([(np.zeros(2), 0), (np.ones(2), 1)])
        >>> x.shape, t.tolist()
        ((2, 2), [0, 1])
        >>> dataset.concat_examples([np.ones(1), np.ones(3)], padding=0).tolist()
        [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    """
    _check_batch(batch)
    first = batch[0]
    if isinstance(first, tuple):
        pads = _per_field_padding(padding, len(first), tuple)
        return tuple(
            to_device(device, _concat_arrays([example[i] for example in batch], pad))
            for i, pad in enumerate(pads)
        )
    if isinstance(first, dict):
        pads = _per_field_padding(padding, list(first), dict)
        return {
            key: to_device(
                device, _concat_arrays([example[key] for example in batch], pads[key])
            )
            for key in first
        }
    return to_device(device, _concat_arrays(batch, padding))


class ConcatWithAsyncTransfer(Converter):
    """Converter like :func:`concat_examples` that overlaps host-to-GPU copies.

    On the CPU (or with ``device=None``) it behaves exactly as
    :func:`concat_examples`. For a CUDA device it stacks each field of the
    batch straight into page-locked host memory and starts an asynchronous
    transfer on a dedicated stream. Buffers are double: the arrays returned
    by one call are reused by the call after next, so the next batch can be
    prepared while the current one is in use, but a result must not be kept
    beyond that. The device is fixed by the first call with a GPU device.

    Args:
        stream: CUDA stream used for the transfers. If ``None``, a
            non-blocking stream is created on the first GPU call.
        compute_stream: CUDA stream the model computes on. If given, the
            transferred arrays are returned without waiting for the copy;
            ordering is kept with CUDA events between the two streams
            instead. If ``None``, each call waits until its copies are done.

    Example:
        >>> import numpy as np
        >>> from chainer import dataset
        >>> convert = dataset.ConcatWithAsyncTransfer()
        >>> x, t = convert([(np.zeros(3), 0), (np.ones(3), 1)], -1)
        >>> x.shape, t.shape
        ((2, 3), (2,))
    """

    def __init__(self, stream=None, compute_stream=None):
        self._stream = stream
        self.compute_stream = compute_stream
        self._device = None
        self._conveyors = {}
        if compute_stream is not None:
            from chainer.backends import cuda

            # event1 keeps the host from overwriting pinned buffers the GPU
            # may still read; event2 keeps kernels from reading arrays that
            # are still being transferred.
            self._event1 = cuda.Event()
            self._event2 = cuda.Event()
            self._sync_get = False
        else:
            self._sync_get = True

    def __call__(self, batch, device=None, padding=None):
        """Concatenates the examples of ``batch`` and sends them to ``device``.

        Args:
            batch (list): A list of examples.
            device (None, int, str or ~chainer.backend.Device): Target device
                (see :func:`to_device`).
            padding: Padding value(s), as in :func:`concat_examples`.

        Returns:
            An array, a tuple of arrays, or a dict of arrays.
        """
        _check_batch(batch)
        device = _get_device(device)
        if device is None or device.xp is numpy:
            return concat_examples(batch, device, padding)
        self._bind(device)
        first = batch[0]
        if isinstance(first, tuple):
            keys = range(len(first))
            pads = _per_field_padding(padding, len(first), tuple)
        elif isinstance(first, dict):
            keys = list(first)
            pads = _per_field_padding(padding, keys, dict)
        else:
            with backend.using_device(device):
                return to_device(device, _concat_arrays(batch, padding))

        if self.compute_stream is not None:
            self._event1.synchronize()
            self._event1.record(stream=self.compute_stream)
        with backend.using_device(device):
            for key in keys:
                column = [example[key] for example in batch]
                self._conveyor(key).put(column, pads[key])
            out = [self._conveyor(key).get(sync=self._sync_get) for key in keys]
            if self.compute_stream is not None:
                self._event2.record(stream=self._stream)
                self.compute_stream.wait_event(self._event2)
        if isinstance(first, tuple):
            return tuple(out)
        return dict(zip(keys, out, strict=True))

    def _bind(self, device):
        if self._device is None:
            self._device = device
            if self._stream is None:
                from chainer.backends import cuda

                with backend.using_device(device):
                    self._stream = cuda.Stream(non_blocking=True)
        elif device != self._device:
            raise ValueError(
                f"ConcatWithAsyncTransfer is bound to {self._device} by its first "
                f"call; it cannot convert to {device}"
            )

    def _conveyor(self, key):
        conveyor = self._conveyors.get(key)
        if conveyor is None:
            conveyor = self._conveyors[key] = _Conveyor(self._device, self._stream)
        return conveyor


class _Conveyor:
    """Double-buffered asynchronous host-to-GPU transfer of one batch field."""

    def __init__(self, device, stream):
        self.device = device
        self.stream = stream
        # Two (pinned host buffer, device array) pairs, reused while the
        # shape and dtype stay the same.
        self._buffers = [(None, None), (None, None)]
        self._pending = []

    def put(self, column, padding):
        first = column[0]
        if _is_array(first) and not isinstance(first, numpy.ndarray):
            # Already on a device: nothing to stage in host memory.
            self._pending.append(
                to_device(self.device, _concat_arrays(column, padding))
            )
            return
        if padding is None and isinstance(first, numpy.ndarray):
            dtypes = {a.dtype for a in column}
            dtype = dtypes.pop() if len(dtypes) == 1 else numpy.result_type(*dtypes)
            pinned, on_device = self._buffers_for((len(column), *first.shape), dtype)
            # Stacking straight into page-locked memory saves a host copy.
            try:
                numpy.concatenate([a[None] for a in column], out=pinned)
            except ValueError:
                _check_same_shape(column)
                raise
        else:
            host = _concat_arrays(column, padding)
            pinned, on_device = self._buffers_for(host.shape, host.dtype)
            pinned[...] = host
        on_device.set(pinned, self.stream)
        self._pending.append(on_device)

    def _buffers_for(self, shape, dtype):
        from chainer.backends import cuda

        pinned, on_device = self._buffers.pop(0)
        if pinned is None or pinned.shape != shape or pinned.dtype != dtype:
            # Finish all GPU work first: the buffers being replaced may still
            # be read by kernels or copies queued on other streams.
            cuda.cupy.cuda.runtime.deviceSynchronize()
            size = int(numpy.prod(shape))
            memory = cuda.cupy.cuda.alloc_pinned_memory(size * dtype.itemsize)
            pinned = numpy.frombuffer(memory, dtype, size).reshape(shape)
            on_device = self.device.xp.empty(shape, dtype)
        self._buffers.append((pinned, on_device))
        return pinned, on_device

    def get(self, sync=True):
        if sync:
            self.stream.synchronize()
        return self._pending.pop(0)
