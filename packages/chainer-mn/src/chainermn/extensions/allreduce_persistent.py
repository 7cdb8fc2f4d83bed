"""Averaging the persistent values of a model over processes."""

from __future__ import annotations

import numpy

from chainer import serializer as serializer_module
from chainer.training import extension


class _Collector(serializer_module.Serializer):
    # Walks a link's serialize() and records its persistent values (the
    # entries that are not parameters), by path; returns ``replace[path]``
    # where given, so that a second walk can set new values.

    def __init__(self, param_paths, found, replace=None, prefix="/"):
        self._param_paths = param_paths
        self._found = found
        self._replace = replace
        self._prefix = prefix

    def __getitem__(self, key):
        return _Collector(
            self._param_paths, self._found, self._replace, f"{self._prefix}{key}/"
        )

    def __call__(self, key, value):
        path = self._prefix + key
        if path in self._param_paths:
            return value
        if self._replace is not None:
            return self._replace.get(path, value)
        self._found.append((path, value))
        return value


def _is_float(value):
    if isinstance(value, numpy.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, numpy.floating)) and not isinstance(value, bool)


class AllreducePersistent(extension.Extension):
    """Trainer extension averaging the persistent values of a model.

    Data-parallel training keeps parameters equal on every process, but
    persistent values, such as the running mean and variance of
    :class:`~chainer.links.BatchNormalization`, follow each process's own
    data. This extension replaces every floating-point persistent value (an
    array or a scalar) by its mean over the processes; integer ones (counts)
    are left alone. It runs before the evaluators (priority
    ``PRIORITY_WRITER + 1``), once per epoch by default, and may be called
    by hand as ``AllreducePersistent(model, comm)()``.

    Args:
        model (~chainer.Link): The model.
        comm (~chainermn.communicators.CommunicatorBase): Communicator.
    """

    trigger = 1, "epoch"
    priority = extension.PRIORITY_WRITER + 1

    def __init__(self, model, comm):
        self.model = model
        self.comm = comm

    def __call__(self, trainer=None):
        """Averages the persistent values over processes (collective).

        Args:
            trainer (~chainer.training.Trainer): The trainer, if any.
        """
        param_paths = {name for name, _ in self.model.namedparams()}
        found = []
        self.model.serialize(_Collector(param_paths, found))
        floats = sorted(
            ((path, value) for path, value in found if _is_float(value)),
            key=lambda item: item[0],
        )
        if not floats:
            return
        dtypes = {}
        for path, value in floats:
            dtype = value.dtype if isinstance(value, numpy.ndarray) else numpy.float64
            dtypes.setdefault(numpy.dtype(dtype), []).append((path, value))
        replace = {}
        for dtype in sorted(dtypes, key=lambda d: d.str):
            members = dtypes[dtype]
            flat = numpy.concatenate(
                [numpy.asarray(v, dtype).reshape(-1) for _, v in members]
            )
            mean = self.comm.allreduce(flat) / self.comm.size
            offset = 0
            for path, value in members:
                n = numpy.size(value)
                part = mean[offset : offset + n]
                offset += n
                if isinstance(value, numpy.ndarray):
                    value[...] = part.reshape(value.shape)
                    replace[path] = value
                else:
                    replace[path] = type(value)(part[0])
        self.model.serialize(_Collector(param_paths, [], replace))
