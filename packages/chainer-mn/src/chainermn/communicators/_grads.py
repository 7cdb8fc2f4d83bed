"""Collecting, packing and unpacking the parameters and gradients of a model."""

from __future__ import annotations

import numpy


def check_grad_dtype(value):
    """Returns ``value`` as a float dtype (or None), or raises ValueError."""
    if value is None:
        return None
    dtype = numpy.dtype(value)
    if dtype.kind != "f":
        raise ValueError(
            f"allreduce_grad_dtype must be a floating dtype (float16, float32, "
            f"float64) or None, got {dtype}"
        )
    return dtype


def _check_host(param, name, what, array, comm_name):
    if not isinstance(array, numpy.ndarray):
        raise TypeError(
            f"the {what} of parameter {name!r} is a {type(array).__module__}."
            f"{type(array).__name__}, but {comm_name} works on NumPy (CPU) "
            "arrays: move the model to the CPU (model.to_cpu()), or average "
            "CuPy gradients with a GPU communicator such as 'pure_nccl'"
        )


def initialized_params(model, comm_name, check=_check_host):
    """Returns the initialized parameters of ``model`` in the order of names.

    ``check(param, name, what, array, comm_name)`` raises for an array the
    communicator cannot take (by default, anything but a NumPy array).
    """
    params = []
    for name, param in sorted(model.namedparams(), key=lambda item: item[0]):
        if param.array is None:
            continue
        check(param, name, "array", param.array, comm_name)
        params.append(param)
    return params


def describe_params(model):
    """Lists ``(name, shape, dtype)`` of the initialized parameters of ``model``.

    In the order of names, the order the communicators move them in.
    """
    return [
        (name, tuple(param.array.shape), numpy.dtype(param.array.dtype).str)
        for name, param in sorted(model.namedparams(), key=lambda item: item[0])
        if param.array is not None
    ]


def check_same_params(described, op):
    """Raises ``ValueError`` unless every process described the same parameters.

    ``described`` holds the :func:`describe_params` lists of all processes, in
    rank order (the same on every process, so every process raises the same
    error), and ``op`` names the operation in the message.
    """
    reference = described[0]
    for rank, mine in enumerate(described):
        if mine == reference:
            continue
        raise ValueError(
            f"{op}: the models differ between processes: "
            f"{_first_difference(reference, mine, rank)}; every process must "
            "build the same model (same links, parameter shapes and dtypes, "
            "and the same parameters initialized) before the call"
        )


def _first_difference(reference, mine, rank):
    names = {d[0] for d in reference}
    my_names = {d[0] for d in mine}
    if names != my_names:
        parts = []
        for owner, other, extra in (
            (0, rank, names - my_names),
            (rank, 0, my_names - names),
        ):
            if extra:
                parts.append(
                    f"rank {owner} has initialized parameters "
                    f"{sorted(extra)} that rank {other} has not"
                )
        return " and ".join(parts)
    for ours, theirs in zip(reference, mine, strict=True):
        if ours != theirs:
            return (
                f"parameter {ours[0]!r} has shape {ours[1]} and dtype "
                f"{numpy.dtype(ours[2])} on rank 0 but shape {theirs[1]} and "
                f"dtype {numpy.dtype(theirs[2])} on rank {rank}"
            )
    return f"rank 0 and rank {rank} list their parameters differently"


def grad_params(model, zero_fill, comm_name, check=_check_host, xp=numpy):
    """Returns the parameters whose gradients take part in an average.

    Uninitialized parameters never do. A ``None`` gradient is replaced by
    zeros (``xp.zeros_like``) when ``zero_fill`` is true, and its parameter
    skipped otherwise. ``check`` is that of :func:`initialized_params`.
    """
    params = []
    for name, param in sorted(model.namedparams(), key=lambda item: item[0]):
        array = param.array
        if array is None:
            continue
        check(param, name, "array", array, comm_name)
        if param.grad is None:
            if not zero_fill:
                continue
            param.grad = xp.zeros_like(array)
        check(param, name, "gradient", param.grad, comm_name)
        params.append(param)
    return params


def pack_groups(params, attr, dtype, buffers=None, xp=numpy):
    """Packs ``getattr(param, attr)`` of ``params`` into 1-d buffers.

    With ``dtype`` every array goes into one buffer of that dtype; otherwise
    there is one buffer per dtype, in the order of the dtypes' names, so that
    every process packs the same layout. A group of one C-contiguous array of
    the buffer's dtype is not copied: its own memory is the buffer. Buffers
    are taken from (and stored in) the dict ``buffers`` when given, so that
    repeated calls do not allocate. ``xp`` is the arrays' module (NumPy, or
    CuPy for the GPU communicators).

    Yields:
        tuple: A buffer and its members, ``(param, offset, size)`` triples.
    """
    groups = {}
    for param in params:
        key = dtype if dtype is not None else getattr(param, attr).dtype
        groups.setdefault(key, []).append(param)
    for key in sorted(groups, key=lambda d: d.str):
        members = []
        offset = 0
        for param in groups[key]:
            size = getattr(param, attr).size
            members.append((param, offset, size))
            offset += size
        if len(members) == 1:
            array = getattr(members[0][0], attr)
            if array.dtype == key and array.flags.c_contiguous:
                yield array.reshape(-1), members
                continue
        buf = None if buffers is None else buffers.get((attr, key))
        if buf is None or buf.size != offset:
            buf = xp.empty(offset, key)
            if buffers is not None:
                buffers[(attr, key)] = buf
        for param, start, size in members:
            buf[start : start + size] = getattr(param, attr).reshape(-1)
        yield buf, members


def unpack(buf, members, attr, divisor=None, xp=numpy):
    """Copies the slices of ``buf`` back into the members' arrays, in place.

    With ``divisor``, each slice is divided by it on the way (one pass).
    """
    for param, start, size in members:
        target = getattr(param, attr)
        source = buf[start : start + size].reshape(target.shape)
        if divisor is not None:
            xp.divide(source, divisor, out=target, casting="unsafe")
        elif not xp.shares_memory(source, target):
            xp.copyto(target, source, casting="unsafe")
