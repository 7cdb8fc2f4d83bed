"""The worker side of MultiprocessParallelUpdater, and the shared-memory layout.

A worker process holds a copy of the model and its own iterator. On each
``('step',)`` order it copies the parameters from the shared parameter block,
computes the gradients of its own minibatch and writes them into its gradient
block. Both sides place the parameters in the blocks by the same layout.
"""

from __future__ import annotations

import os
import signal
import traceback

import numpy

from chainer import backend
from chainer import function
from chainer import reporter as reporter_module
from chainer.serializers import npz
from chainer.training.updaters import _step

# How often (seconds) a waiting process checks that its peer is still alive.
POLL_INTERVAL = 0.5
# Offsets of the arrays in the shared blocks are aligned to this many bytes.
_ALIGN = 64


def main(
    conn, model, iterator, converter, device_name, layout, param_block, grad_block, ppid
):
    """Runs a worker process: answers the main process's orders until stopped.

    Args:
        conn: The worker's end of the pipe to the main process.
        model (~chainer.Link): The worker's copy of the model.
        iterator: The worker's dataset iterator.
        converter: The updater's converter.
        device_name (str): The worker's device (``'@numpy'``, ``'@cupy:N'``).
        layout (list): The blocks' layout, from :func:`param_layout`.
        param_block: Shared block the main process writes parameters into.
        grad_block: Shared block this worker writes its gradients into.
        ppid (int): Id of the main process; the worker exits when it is gone.
    """
    # Ctrl-C reaches the whole process group; the main process handles it and
    # stops the workers, so that they do not die in the middle of a step.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        device = backend.get_device(device_name)
        # A pickled (spawned) model comes back on the default device.
        device.use()
        model.to_device(device)
        param_views = bind_views(model, param_block, layout)
        grad_views = bind_views(model, grad_block, layout)
        reporter = reporter_module.Reporter()
        reporter.add_observer("main", model)
        reporter.add_observers("main", model.namedlinks(skipself=True))
        conn.send(("ready",))
        while True:
            if not conn.poll(POLL_INTERVAL):
                if os.getppid() != ppid:
                    return  # the main process is gone
                continue
            message = conn.recv()
            command = message[0]
            if command == "step":
                conn.send(
                    _run_step(
                        model,
                        iterator,
                        converter,
                        device,
                        reporter,
                        param_views,
                        grad_views,
                    )
                )
            elif command == "get_iterator":
                state = npz.DictionarySerializer()
                iterator.serialize(state)
                conn.send(("iterator", state.target))
            elif command == "set_iterator":
                iterator.serialize(npz.NpzDeserializer(message[1]))
                conn.send(("ok",))
            else:  # "stop"
                return
    except BaseException:
        try:
            conn.send(("error", traceback.format_exc()))
        except (BrokenPipeError, OSError):
            pass
    finally:
        conn.close()
        finalize = getattr(iterator, "finalize", None)
        if finalize is not None:
            finalize()


def _run_step(model, iterator, converter, device, reporter, param_views, grad_views):
    for param, view in param_views:
        from_host(param.array, view)
    batch = iterator.next()
    in_arrays = _step.convert_batch(converter, batch, device)
    with (
        reporter.scope({}),
        function.force_backprop_mode(),
        backend.using_device(device),
    ):
        loss = _step.call_loss(model, in_arrays)
    model.cleargrads()
    loss.backward()
    del loss
    has_grad = []
    for param, view in grad_views:
        grad = param.grad
        if grad is None:
            has_grad.append(False)
        else:
            to_host(view, grad)
            has_grad.append(True)
    return ("grads", len(batch), has_grad)


def to_host(view, array):
    """Copies a NumPy or CuPy array into its place in a shared block."""
    if isinstance(array, numpy.ndarray):
        numpy.copyto(view, array)
    else:
        array.get(out=view)


def from_host(array, view):
    """Copies a place of a shared block into a NumPy or CuPy array."""
    if isinstance(array, numpy.ndarray):
        numpy.copyto(array, view)
    else:
        array.set(view)


# -- shared-memory layout ---------------------------------------------------
def param_layout(model):
    """Places the model's parameters in a block: ``(path, offset, shape, dtype)``."""
    layout = []
    offset = 0
    for path, param in sorted(model.namedparams()):
        array = param.array
        if array is None:
            continue
        if backend.get_array_module(array).__name__ not in ("numpy", "cupy"):
            raise RuntimeError(
                f"parameter {path!r} is a {type(array).__name__}; "
                "MultiprocessParallelUpdater takes NumPy and CuPy arrays"
            )
        offset = -(-offset // _ALIGN) * _ALIGN
        layout.append((path, offset, array.shape, array.dtype.str))
        offset += array.nbytes
    return layout


def block_size(layout):
    """Returns the number of bytes a block of this layout needs."""
    if not layout:
        return 0
    _, offset, shape, dtype = layout[-1]
    return (
        offset + int(numpy.prod(shape, dtype=numpy.int64)) * numpy.dtype(dtype).itemsize
    )


def bind_views(model, block, layout):
    """Returns (parameter, its array's place in the shared block) pairs."""
    params = dict(model.namedparams())
    return [
        (params[path], view)
        for (path, *_), view in zip(layout, views(block, layout), strict=True)
    ]


def views(block, layout):
    """Yields the arrays of the block, in the order of the layout."""
    buffer = numpy.frombuffer(block, dtype=numpy.uint8)
    for _, offset, shape, dtype in layout:
        dtype = numpy.dtype(dtype)
        count = int(numpy.prod(shape, dtype=numpy.int64))
        yield (
            buffer[offset : offset + count * dtype.itemsize].view(dtype).reshape(shape)
        )
