"""CuPy and NCCL for the GPU communicators: loading, and NCCL groups.

CuPy and NCCL come through chainer-cuda when a GPU communicator is created.
A :class:`NcclGroup` is an NCCL communicator over the processes of an MPI
channel, on one CUDA device; each operation is enqueued on the device's
current stream and waited for with the communicator's deadline, so that a
dead peer gives a :class:`chainermn.CommunicationTimeoutError` (and the NCCL
communicator is aborted) instead of a hang.
"""

from __future__ import annotations

import os
import time

import numpy

from chainer.utils import install_hint
from chainermn import _errors
from chainermn.communicators import _channel

_SPIN_SECONDS = 0.05
_NAP_SECONDS = 0.0002


def load_cupy(name):
    """Returns ``(cupy, cupy.cuda.nccl)``, or raises an error naming what is missing.

    CuPy comes through chainer-cuda (the one distribution that imports it).

    Args:
        name (str): Name of the communicator asking, for the messages.
    """
    fallback = "or train on CPUs with create_communicator('flat') or ('naive')"
    try:
        import chainer_cuda
    except ImportError as e:
        raise ImportError(
            f"the {name!r} communicator runs on GPUs through NCCL and needs "
            f"chainer-cuda with CuPy and NCCL, but chainer-cuda is not installed "
            f"({e}); install it with "
            f"{install_hint.install_hint('chainer-cuda', 'cuda12')} (use the "
            f"extra cuda13 for CUDA 13.x), {fallback}."
        ) from e
    try:
        return chainer_cuda.get_cupy(), chainer_cuda.get_nccl()
    except RuntimeError as e:
        raise RuntimeError(
            f"the {name!r} communicator runs on GPUs through NCCL: {e}; {fallback}."
        ) from e


# NumPy dtype names and the names of NCCL's data type constants.
_NCCL_TYPES = {
    "float16": "NCCL_FLOAT16",
    "float32": "NCCL_FLOAT32",
    "float64": "NCCL_FLOAT64",
    "int8": "NCCL_INT8",
    "uint8": "NCCL_UINT8",
    "int32": "NCCL_INT32",
    "uint32": "NCCL_UINT32",
    "int64": "NCCL_INT64",
    "uint64": "NCCL_UINT64",
}


def nccl_dtype(nccl, dtype, op):
    """NCCL's data type constant of a NumPy dtype."""
    dtype = numpy.dtype(dtype)
    constant = _NCCL_TYPES.get(dtype.name)
    if constant is None:
        raise TypeError(
            f"{op}: NCCL cannot reduce arrays of dtype {dtype}; use one of "
            + ", ".join(_NCCL_TYPES)
        )
    return getattr(nccl, constant)


class NcclGroup:
    """An NCCL communicator over the processes of an MPI channel, on one device.

    Collective: every process of ``channel`` creates it with the same ``op``.
    Rank 0 makes NCCL's unique id and broadcasts it through MPI (with the
    deadline); the NCCL communicator is then created on ``device_id``.

    Args:
        cupy: The CuPy module.
        nccl: ``cupy.cuda.nccl``.
        channel (_channel.Channel): The processes, in their MPI rank order.
        device_id (int): CUDA device of this process.
        op (str): Name of the operation that needs the group (for errors).
    """

    def __init__(self, cupy, nccl, channel, device_id, op):
        self._cupy = cupy
        self._nccl = nccl
        self._channel = channel
        self.device_id = device_id
        self.rank = channel.rank
        self.size = channel.size
        uid = _channel.dumps(nccl.get_unique_id()) if channel.rank == 0 else None
        uid = _channel.loads(channel.bcast_bytes(uid, 0, op))
        # Everyone got the id, so every peer is alive and about to join:
        # the blocking initialization cannot wait for a dead process.
        with cupy.cuda.Device(device_id), self._errors(op):
            self._comm = nccl.NcclCommunicator(channel.size, uid, channel.rank)

    def _errors(self, op):
        return _NcclErrors(self, op)

    def _stream(self):
        return self._cupy.cuda.get_current_stream()

    def _check(self, buf, op):
        if buf.device.id != self.device_id:
            raise ValueError(
                f"{op}: the array is on GPU {buf.device.id}, but this "
                f"communicator's NCCL group was set up on GPU {self.device_id}; "
                "keep the model on one device per process"
            )
        return nccl_dtype(self._nccl, buf.dtype, op)

    def allreduce(self, buf, op):
        """Sums a contiguous 1-d CuPy array over the group, in place."""
        dtype = self._check(buf, op)
        stream = self._stream()
        with self._errors(op):
            self._comm.allReduce(
                buf.data.ptr,
                buf.data.ptr,
                buf.size,
                dtype,
                self._nccl.NCCL_SUM,
                stream.ptr,
            )
        return stream

    def reduce(self, buf, root, op):
        """Sums a contiguous 1-d CuPy array into ``root``'s copy, in place."""
        dtype = self._check(buf, op)
        stream = self._stream()
        with self._errors(op):
            self._comm.reduce(
                buf.data.ptr,
                buf.data.ptr,
                buf.size,
                dtype,
                self._nccl.NCCL_SUM,
                root,
                stream.ptr,
            )
        return stream

    def bcast(self, buf, root, op):
        """Broadcasts a contiguous 1-d CuPy array from ``root``, in place."""
        dtype = self._check(buf, op)
        stream = self._stream()
        with self._errors(op):
            self._comm.bcast(buf.data.ptr, buf.size, dtype, root, stream.ptr)
        return stream

    def reduce_scatter(self, buf, out, op):
        """Sums ``buf`` over the group; rank ``r`` gets chunk ``r`` in ``out``.

        ``buf.size`` must be ``out.size * size``.
        """
        dtype = self._check(buf, op)
        stream = self._stream()
        with self._errors(op):
            self._comm.reduceScatter(
                buf.data.ptr,
                out.data.ptr,
                out.size,
                dtype,
                self._nccl.NCCL_SUM,
                stream.ptr,
            )
        return stream

    def allgather(self, chunk, out, op):
        """Gathers every rank's ``chunk`` into ``out`` (``size`` chunks)."""
        dtype = self._check(chunk, op)
        stream = self._stream()
        with self._errors(op):
            self._comm.allGather(
                chunk.data.ptr, out.data.ptr, chunk.size, dtype, stream.ptr
            )
        return stream

    def wait(self, stream, op):
        """Waits until ``stream`` has run what was enqueued, before the deadline.

        On timeout the NCCL communicator is aborted (so that the stuck kernels
        end) and :class:`chainermn.CommunicationTimeoutError` is raised.
        """
        event = stream.record()
        if event.done:
            return
        timeout = self._channel.timeout()
        start = time.monotonic()
        deadline = start + timeout
        spin_until = start + _SPIN_SECONDS
        while not event.done:
            now = time.monotonic()
            if now > deadline:
                self.abort()
                raise self._channel.timeout_error(op, timeout)
            if now < spin_until:
                os.sched_yield()
            else:
                time.sleep(_NAP_SECONDS)

    def abort(self):
        """Aborts the NCCL communicator (its pending operations end)."""
        comm, self._comm = self._comm, None
        if comm is not None:
            try:
                comm.abort()
            except Exception:
                pass

    def destroy(self):
        """Frees the NCCL communicator."""
        comm, self._comm = self._comm, None
        if comm is not None:
            comm.destroy()


class _NcclErrors:
    def __init__(self, group, op):
        self._group = group
        self._op = op

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or not isinstance(exc, self._group._nccl.NcclError):
            return False
        group = self._group
        _errors.abort_job_at_exit()
        raise _errors.CommunicationError(
            f"{self._op} failed in NCCL on rank {group.rank} of {group.size} "
            f"(GPU {group.device_id}): {exc}; the MPI job is aborted when this "
            "process exits. NCCL needs one GPU per process: two processes of "
            "one NCCL group on the same GPU give 'invalid usage'.",
            self._op,
            group.rank,
            group.size,
        ) from exc
