"""Helpers shared by the differentiable communication functions (private)."""

from __future__ import annotations

import numbers

import numpy

import chainer
from chainer import backend


def check_rank(comm, rank, what):
    """Returns ``rank`` as an int, or raises if it names no process of ``comm``."""
    if isinstance(rank, bool) or not isinstance(rank, numbers.Integral):
        raise TypeError(f"{what} must be an int rank, got {type(rank).__name__}")
    rank = int(rank)
    if not 0 <= rank < comm.size:
        raise ValueError(
            f"{what} {rank} is out of range: the communicator has {comm.size} "
            f"process(es), ranks 0 to {comm.size - 1}"
        )
    return rank


def check_peer(comm, rank, op):
    """Checks the peer of a point-to-point ``op``: a valid rank, not our own."""
    rank = check_rank(comm, rank, f"{op}: rank")
    if rank == comm.rank:
        raise ValueError(
            f"{op}: rank {rank} is this process's own rank; a process cannot "
            "send to or receive from itself (it would wait forever)"
        )
    return rank


def check_tag(tag, op):
    """Returns ``tag`` as a non-negative int (an MPI message tag)."""
    if isinstance(tag, bool) or not isinstance(tag, numbers.Integral) or tag < 0:
        raise ValueError(f"{op}: tag must be a non-negative int, got {tag!r}")
    return int(tag)


def device_of(x):
    """The device of an array (or a Variable's array)."""
    if isinstance(x, chainer.Variable):
        x = x.array
    if type(x) is numpy.ndarray:
        return _CPU
    return backend.get_device_from_array(x)


def anchor(device=None):
    """A new empty float32 Variable that requires a gradient.

    Communication nodes take one as an extra input, so that they are part of
    the graph (and their backward, which communicates, runs) even when no
    other input requires a gradient.
    """
    array = numpy.empty((0,), numpy.float32)
    if device is not None and not isinstance(device, backend.CpuDevice):
        array = device.send(array)
    return chainer.Variable(array, requires_grad=True)


def as_delegate(variable):
    """Readies a size-0 delegate variable for ``variable.backward()``.

    ``Variable.backward`` starts from a gradient of ones only for a
    one-element variable; an empty array is the only gradient an empty
    delegate can have, so it is set here.
    """
    variable.grad = variable.xp.empty((0,), variable.dtype)
    return variable


def to_host(x):
    """``x`` as a NumPy array (the communicators move host memory)."""
    if isinstance(x, numpy.ndarray):
        return x
    return _CPU.send(x)


def send_to(device, x):
    """``x`` moved to ``device`` (no copy if it is there already)."""
    if isinstance(x, numpy.ndarray) and isinstance(device, backend.CpuDevice):
        return x
    return device.send(x)


def zero_grads(grads, metas):
    """Host arrays of ``grads`` (Variables or None), zeros in place of None."""
    out = []
    for g, (shape, dtype) in zip(grads, metas, strict=True):
        out.append(numpy.zeros(shape, dtype) if g is None else to_host(g.array))
    return out


def check_received(op, source, received, metas):
    """Checks gradients received (from ``source``, e.g. ``'rank 1'``) for ``metas``."""
    hint = (
        "the processes' communications are out of step (check that they "
        "call them in matching order, with matching tags)"
    )
    if len(received) != len(metas):
        raise RuntimeError(
            f"{op}: received {len(received)} gradient array(s) from {source} "
            f"for {len(metas)} array(s); {hint}"
        )
    for i, (g, (shape, dtype)) in enumerate(zip(received, metas, strict=True)):
        if g.shape != shape or g.dtype != dtype:
            raise RuntimeError(
                f"{op}: gradient {i} received from {source} has shape "
                f"{g.shape} and dtype {g.dtype}, but the array it belongs to "
                f"has shape {shape} and dtype {dtype}; {hint}"
            )


COMMUNICATION_BACKENDS = ("auto", "mpi", "nccl")


def check_communication_backend(comm, name):
    """The backend that ``name`` selects for ``comm``: ``'mpi'`` or ``'nccl'``.

    ``'auto'`` picks the best backend of the communicator: NCCL for the
    ``'pure_nccl'`` (and ``'single_node'``) communicators, MPI otherwise;
    ``'nccl'`` needs one of those.
    """
    if name not in COMMUNICATION_BACKENDS:
        raise ValueError(
            f"unknown communication_backend {name!r}; choose one of "
            + ", ".join(repr(n) for n in COMMUNICATION_BACKENDS)
        )
    has_nccl = hasattr(comm, "_nccl_allreduce")
    if name == "nccl" and not has_nccl:
        raise ValueError(
            "communication_backend='nccl' needs the 'pure_nccl' communicator "
            f"(GPUs, NCCL); {type(comm).__name__} communicates through MPI: use "
            "'mpi' or 'auto'"
        )
    if name == "auto":
        return "nccl" if has_nccl else "mpi"
    return name


_CPU = backend.CpuDevice()
