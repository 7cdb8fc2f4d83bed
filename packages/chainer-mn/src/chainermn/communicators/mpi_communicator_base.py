"""Communicators over an MPI communicator (mpi4py), on NumPy arrays."""

from __future__ import annotations

import abc
import atexit
import operator
import os
import sys
import threading
import weakref

import numpy

from chainermn import _errors
from chainermn.communicators import _channel
from chainermn.communicators import _grads
from chainermn.communicators import communicator_base

_CONFIG_NAMES = ("allreduce_grad_dtype", "batched_copy", "max_buf_len", "timeout")
_pending_ops = weakref.WeakSet()
_exit_hook_lock = threading.Lock()
_exit_hook_registered = False


class MpiCommunicatorBase(communicator_base.CommunicatorBase):
    """Base class of the communicators built on an ``mpi4py`` communicator.

    Arrays travel through mpi4py's buffer interface (no pickling); objects
    are pickled. Every transfer waits at most the communicator's ``timeout``
    (``CHAINERMN_TIMEOUT`` seconds, 600 by default): it is a non-blocking MPI
    operation polled until the deadline (or, for large allreduces and
    broadcasts, a blocking call in a worker thread waited for until then).
    After that :class:`chainermn.CommunicationTimeoutError` is raised and the
    MPI job is aborted when the process exits: a dead or hung peer never
    leaves the others blocked forever.

    These communicators work on NumPy (CPU) arrays. Subclasses choose how
    the gradients are averaged (:meth:`multi_node_mean_grad`).

    Configurations (:meth:`set_config`):

    - ``'timeout'`` (float): seconds an operation may wait for its peers.
    - ``'allreduce_grad_dtype'`` (dtype or None): dtype in which gradients
      are summed (cast there and back); ``None`` keeps each gradient's own.
    - ``'batched_copy'`` (bool): accepted for ChainerMN compatibility; NumPy
      gradients are always packed with one copy per parameter.
    - ``'max_buf_len'`` (int): largest single MPI message in bytes; bigger
      transfers are split (default ``2**31 - 1``, MPI's count limit).

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    def __init__(self, mpi_comm):
        self._mpi_comm = mpi_comm
        self._owns_mpi_comm = False
        self._config = {
            "allreduce_grad_dtype": None,
            "batched_copy": False,
            "max_buf_len": _channel.MAX_MESSAGE_BYTES,
            "timeout": _channel.default_timeout(),
        }
        self._channel = _channel.Channel(
            mpi_comm, self._get_timeout, self._get_max_buf_len
        )
        self._async_channel = None
        self._pending = None
        # Packing buffers reused from one call to the next, by channel.
        self._buffers = {}
        self._init_ranks()
        _register_exit_hook()

    def _get_timeout(self):
        return self._config["timeout"]

    def _get_max_buf_len(self):
        return self._config["max_buf_len"]

    def _init_ranks(self):
        # Processes are grouped into nodes by host name, as ChainerMN does,
        # or by CHAINERMN_NODE_NAME where set (containers that share a host
        # name); the exchange goes through the channel, so it has the
        # deadline too.
        from mpi4py import MPI

        node = os.environ.get("CHAINERMN_NODE_NAME") or MPI.Get_processor_name()
        hosts = self.allgather_obj(node)
        mine = hosts[self.rank]
        self._intra_rank = hosts[: self.rank].count(mine)
        self._intra_size = hosts.count(mine)
        nodes = sorted(set(hosts))
        self._inter_rank = nodes.index(mine)
        self._inter_size = len(nodes)

    # -- topology ----------------------------------------------------------
    @property
    def rank(self):
        return self._channel.rank

    @property
    def size(self):
        return self._channel.size

    @property
    def intra_rank(self):
        return self._intra_rank

    @property
    def intra_size(self):
        return self._intra_size

    @property
    def inter_rank(self):
        return self._inter_rank

    @property
    def inter_size(self):
        return self._inter_size

    @property
    def mpi_comm(self):
        """mpi4py.MPI.Comm: The underlying MPI communicator."""
        return self._mpi_comm

    def __repr__(self):
        return (
            f"<{type(self).__name__} rank={self.rank} size={self.size} "
            f"intra_rank={self.intra_rank} inter_rank={self.inter_rank}>"
        )

    def split(self, color, key):
        """Splits the communicator into disjoint sub-communicators (collective).

        Processes passing the same ``color`` end up in the same new
        communicator, ordered by ``key`` (ties by their old rank). The new
        communicator is of the same class and has the same configuration.

        Args:
            color (int): Group selector.
            key (int): Ordering of the ranks within the new communicator.

        Returns:
            MpiCommunicatorBase: The communicator of this process's group.
        """
        # MPI_Comm_split has no non-blocking form: a barrier with the
        # deadline first makes sure every process is there to take part.
        self._channel.barrier("split")
        with self._channel.errors("split"):
            sub = self._mpi_comm.Split(int(color), int(key))
        new = type(self)(mpi_comm=sub)
        new._owns_mpi_comm = True
        new._config.update(self._config)
        return new

    # -- configuration -----------------------------------------------------
    def set_config(self, name, value=True, **kwargs):
        """Sets a configuration of the communicator.

        Args:
            name (str): ``'timeout'``, ``'allreduce_grad_dtype'``,
                ``'batched_copy'`` or ``'max_buf_len'`` (see the class).
            value: Its new value.
            **kwargs: Unused; no configuration here takes options.
        """
        if kwargs:
            raise TypeError(
                f"set_config({name!r}) takes no options, got "
                + ", ".join(sorted(kwargs))
            )
        if name == "timeout":
            value = _channel.check_timeout(value)
        elif name == "allreduce_grad_dtype":
            value = _grads.check_grad_dtype(value)
        elif name == "batched_copy":
            value = bool(value)
        elif name == "max_buf_len":
            value = operator.index(value)
            if not 0 < value <= _channel.MAX_MESSAGE_BYTES:
                raise ValueError(
                    f"max_buf_len must be in [1, {_channel.MAX_MESSAGE_BYTES}], "
                    f"got {value}"
                )
        else:
            raise ValueError(
                f"unknown configuration {name!r} of {type(self).__name__}; "
                f"known: {', '.join(_CONFIG_NAMES)}"
            )
        self._config[name] = value

    def get_config(self, name=None):
        """Returns a configuration value, or a dict of all of them.

        Args:
            name (str): Name of the configuration; ``None`` for all.

        Returns:
            The value, or a dict of names to values.
        """
        if name is None:
            return dict(self._config)
        if name not in self._config:
            raise ValueError(
                f"unknown configuration {name!r} of {type(self).__name__}; "
                f"known: {', '.join(_CONFIG_NAMES)}"
            )
        return self._config[name]

    # -- arrays --------------------------------------------------------------
    # Arrays travel through MPI from host memory. ``_to_host`` returns the
    # NumPy array to send and whether the caller's array was on a GPU (the
    # GPU communicators accept CuPy arrays); ``_from_host`` gives a received
    # array back in that form.
    def _to_host(self, x, op):
        return _host_array(x, op), False

    def _from_host(self, array, on_gpu):
        return array

    def send(self, data, dest, tag):
        is_tuple = isinstance(data, (list, tuple))
        pairs = [self._to_host(x, "send") for x in (data if is_tuple else (data,))]
        arrays = [a for a, _ in pairs]
        meta = (
            is_tuple,
            [(a.shape, a.dtype.str) for a in arrays],
            [on_gpu for _, on_gpu in pairs],
        )
        channel = self._channel
        channel.send_bytes(_channel.dumps(meta), dest, tag, "send")
        for a in arrays:
            channel.send_bytes(_channel.byte_view(a), dest, tag, "send")

    def recv(self, source, tag):
        channel = self._channel
        status = channel.MPI.Status()
        raw = channel.recv_bytes(source, tag, "recv", status)
        is_tuple, metas, on_gpu = _channel.loads(raw)
        # The arrays follow from the sender and with the tag of the header,
        # even when ``source`` or ``tag`` were wildcards.
        source, tag = status.Get_source(), status.Get_tag()
        arrays = tuple(
            self._from_host(
                _from_bytes(channel.recv_bytes(source, tag, "recv"), meta), gpu
            )
            for meta, gpu in zip(metas, on_gpu, strict=True)
        )
        return arrays if is_tuple else arrays[0]

    def bcast(self, data, max_buf_len=None, root=0):
        """Broadcasts an array from the root process (collective).

        Args:
            data (:ref:`ndarray`): Array to broadcast; only the root's value
                is used (others may pass ``None``). The GPU communicators
                also take CuPy arrays; the others then get CuPy arrays too.
            max_buf_len (int): Largest message in bytes; bigger arrays go in
                pieces. ``None`` uses the ``max_buf_len`` configuration.
            root (int): Rank of the process holding the array.

        Returns:
            numpy.ndarray: The root's array on every process.
        """
        meta = None
        given = data
        if self.rank == root:
            data, on_gpu = self._to_host(data, "bcast")
            meta = (data.shape, data.dtype.str, on_gpu)
        meta = self.bcast_obj(meta, root=root)
        if self.rank != root:
            data = numpy.empty(meta[0], numpy.dtype(meta[1]))
        if data.size:
            self._channel.bcast_inplace(
                _channel.byte_view(data), root, "bcast", max_buf_len
            )
        if self.rank == root:
            return given if meta[2] else data
        return self._from_host(data, meta[2])

    def gather(self, data, root=0):
        data, on_gpu = self._to_host(data, "gather")
        metas = self.gather_obj((data.shape, data.dtype.str), root=root)
        raws = self._channel.gatherv_bytes(_channel.byte_view(data), root, "gather")
        if raws is None:
            return None
        return tuple(
            self._from_host(_from_bytes(r, m), on_gpu)
            for r, m in zip(raws, metas, strict=True)
        )

    def allgather(self, x):
        """Gathers one array from every process to every process (collective).

        Args:
            x (:ref:`ndarray`): This process's array; shapes and dtypes may
                differ between processes.

        Returns:
            tuple of :ref:`ndarray`: The arrays of all processes in rank
            order (on the GPU where ``x`` is a CuPy array).
        """
        x, on_gpu = self._to_host(x, "allgather")
        metas = self.allgather_obj((x.shape, x.dtype.str))
        raws = self._channel.allgatherv_bytes(_channel.byte_view(x), "allgather")
        return tuple(
            self._from_host(_from_bytes(r, m), on_gpu)
            for r, m in zip(raws, metas, strict=True)
        )

    def alltoall(self, xs):
        if len(xs) != self.size:
            raise ValueError(
                f"alltoall needs one array per process ({self.size}), got {len(xs)}"
            )
        pairs = [self._to_host(x, "alltoall") for x in xs]
        arrays = [a for a, _ in pairs]
        on_gpu = bool(pairs) and pairs[0][1]
        channel = self._channel
        metas = channel.alltoallv_bytes(
            [_channel.dumps((a.shape, a.dtype.str)) for a in arrays], "alltoall"
        )
        raws = channel.alltoallv_bytes(
            [_channel.byte_view(a) for a in arrays], "alltoall"
        )
        return tuple(
            self._from_host(_from_bytes(r, _channel.loads(m)), on_gpu)
            for r, m in zip(raws, metas, strict=True)
        )

    def scatter(self, xs, root=0):
        arrays = metas = None
        if self.rank == root:
            if len(xs) != self.size:
                raise ValueError(
                    f"scatter needs one array per process ({self.size}), got {len(xs)}"
                )
            pairs = [self._to_host(x, "scatter") for x in xs]
            metas = [(a.shape, a.dtype.str, on_gpu) for a, on_gpu in pairs]
            arrays = [_channel.byte_view(a) for a, _ in pairs]
        meta = self.scatter_obj(metas, root=root)
        raw = self._channel.scatterv_bytes(arrays, root, "scatter")
        return self._from_host(_from_bytes(raw, meta[:2]), meta[2])

    def allreduce(self, data):
        """Sums an array elementwise over all processes (collective).

        Args:
            data (:ref:`ndarray`): Array of the same shape and dtype on every
                process (a numeric dtype).

        Returns:
            :ref:`ndarray`: The elementwise sum, on every process (on the
            GPU where ``data`` is a CuPy array).
        """
        data, on_gpu = self._to_host(data, "allreduce")
        if data.dtype.kind not in "biufc" or data.dtype.kind == "b":
            raise TypeError(f"allreduce sums numeric arrays; got dtype {data.dtype}")
        out = numpy.array(data, copy=True, order="C")
        if out.size:
            self._channel.allreduce_inplace(out.reshape(-1), "allreduce")
        return self._from_host(out, on_gpu)

    # -- objects ---------------------------------------------------------------
    def send_obj(self, obj, dest, tag=0):
        self._channel.send_bytes(_channel.dumps(obj), dest, tag, "send_obj")

    def recv_obj(self, source, status=None, tag=None):
        if tag is None:
            tag = self._channel.MPI.ANY_TAG
        raw = self._channel.recv_bytes(source, tag, "recv_obj", status)
        return _channel.loads(raw)

    def bcast_obj(self, obj, max_buf_len=None, root=0):
        """Broadcasts a picklable object from the root (collective).

        Args:
            obj: The object, on the root.
            max_buf_len (int): Largest message in bytes; bigger pickles go in
                pieces. ``None`` uses the ``max_buf_len`` configuration.
            root (int): Rank of the sending process.

        Returns:
            The root's object on every process (the root gets ``obj`` itself).
        """
        payload = _channel.dumps(obj) if self.rank == root else None
        raw = self._channel.bcast_bytes(payload, root, "bcast_obj", max_buf_len)
        return obj if self.rank == root else _channel.loads(raw)

    def gather_obj(self, obj, root=0):
        raws = self._channel.gatherv_bytes(_channel.dumps(obj), root, "gather_obj")
        return None if raws is None else [_channel.loads(r) for r in raws]

    def allgather_obj(self, obj):
        raws = self._channel.allgatherv_bytes(_channel.dumps(obj), "allgather_obj")
        return [_channel.loads(r) for r in raws]

    def scatter_obj(self, obj, root=0):
        """Sends ``obj[i]`` from the root to process ``i`` (collective).

        Args:
            obj (sequence): One picklable object per process, on the root;
                ignored elsewhere.
            root (int): Rank of the sending process.

        Returns:
            This process's object.
        """
        payloads = None
        if self.rank == root:
            if len(obj) != self.size:
                raise ValueError(
                    f"scatter_obj needs one object per process ({self.size}), "
                    f"got {len(obj)}"
                )
            payloads = [_channel.dumps(o) for o in obj]
        raw = self._channel.scatterv_bytes(payloads, root, "scatter_obj")
        return _channel.loads(raw)

    def allreduce_obj(self, obj):
        objs = self.allgather_obj(obj)
        total = objs[0]
        for o in objs[1:]:
            total = total + o
        return total

    # -- models ------------------------------------------------------------
    def bcast_data(self, model):
        """Copies rank 0's parameters into every process's model (collective).

        The initialized parameters of ``model``, in the order of their names,
        are overwritten in place with rank 0's values.

        Args:
            model (~chainer.Link): The model, built the same way everywhere.

        Raises:
            ValueError: On every process, before any data moves, when the
                processes' models differ in their parameters' names, shapes
                or dtypes.
        """
        params = _grads.initialized_params(model, type(self).__name__)
        self._check_same_params(model, "bcast_data")
        buffers = self._buffers.setdefault(id(self._channel), {})
        for buf, members in _grads.pack_groups(params, "array", None, buffers):
            self._channel.bcast_inplace(buf, 0, "bcast_data")
            _grads.unpack(buf, members, "array")

    def _check_same_params(self, model, op):
        # Every process sees every process's (name, shape, dtype) list, so a
        # mismatch raises the same error everywhere and no process is left
        # waiting in a collective the others never enter.
        described = self.allgather_obj(_grads.describe_params(model))
        _grads.check_same_params(described, op)

    def multi_node_mean_grad(self, model, zero_fill=False):
        self._wait_pending()
        params = self._grad_params(model, zero_fill)
        self._mean_grads(params, self._channel, "multi_node_mean_grad")

    def _grad_params(self, model, zero_fill):
        # The parameters whose gradients are averaged (NumPy arrays here;
        # the GPU communicators take CuPy arrays).
        return _grads.grad_params(model, zero_fill, type(self).__name__)

    @abc.abstractmethod
    def _mean_grads(self, params, channel, op):
        # Sums the gradients of ``params`` over ``channel`` and divides them
        # by the size; subclasses choose how (per parameter, packed...).
        pass

    # -- double buffering ------------------------------------------------------
    def multi_node_mean_grad_async(self, model, zero_fill=False):
        """Starts averaging the gradients of ``model`` in the background.

        Collective. The averaging runs in a thread on a duplicate of the MPI
        communicator (so it never interleaves with this thread's
        operations), while the caller goes on computing; the gradient arrays
        of ``model`` must not be touched until the returned operation's
        ``wait()`` returns. ``wait()`` re-raises an error of the background
        operation, or raises :class:`chainermn.CommunicationTimeoutError`
        once the communicator's timeout has passed. The double-buffering
        multi-node optimizer uses it.

        Args:
            model (~chainer.Link): The model (anything with ``namedparams()``
                whose parameters have ``array`` and ``grad``).
            zero_fill (bool): See :meth:`multi_node_mean_grad`.

        Returns:
            An operation object with ``wait()`` and ``done()``.
        """
        self._wait_pending()
        params = self._grad_params(model, zero_fill)
        channel = self._get_async_channel()
        pending = _PendingOperation(
            lambda: self._mean_grads(params, channel, "multi_node_mean_grad"),
            self._channel,
            self._get_timeout,
            "multi_node_mean_grad (double buffering)",
        )
        self._pending = pending
        _pending_ops.add(pending)
        return pending

    def _get_async_channel(self):
        if self._async_channel is None:
            MPI = self._channel.MPI
            if MPI.Query_thread() < MPI.THREAD_MULTIPLE:
                raise RuntimeError(
                    "averaging gradients in the background (double buffering) "
                    "needs MPI_THREAD_MULTIPLE, but MPI was initialized with a "
                    "lower thread level; let mpi4py initialize MPI (its default "
                    "asks for MPI_THREAD_MULTIPLE) with an MPI that supports it"
                )
            with self._channel.errors("double buffering setup"):
                dup, request = self._mpi_comm.Idup()
            self._channel.wait(request, "double buffering setup")
            self._async_channel = _channel.Channel(
                dup, self._get_timeout, self._get_max_buf_len, blocking=True
            )
        return self._async_channel

    def _wait_pending(self):
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.wait()

    def finalize(self):
        """Waits for pending operations and frees the communicator's resources.

        The MPI communicators this object created (for double buffering, or
        by :meth:`split`) are freed. Collective.
        """
        self._wait_pending()
        if self._async_channel is not None:
            self._async_channel.comm.Free()
            self._async_channel = None
        if self._owns_mpi_comm:
            self._owns_mpi_comm = False
            self._mpi_comm.Free()


class _PendingOperation:
    # A function running in a daemon thread (so that a thread stuck in MPI
    # never blocks interpreter exit), waited for with the deadline.

    def __init__(self, fn, channel, get_timeout, op):
        self._fn = fn
        self._channel = channel
        self._get_timeout = get_timeout
        self._op = op
        self._done = threading.Event()
        self._error = None
        self._thread = threading.Thread(
            target=self._run, name="chainermn-async", daemon=True
        )
        self._thread.start()

    def _run(self):
        try:
            self._fn()
        except BaseException as e:
            self._error = e
        finally:
            self._done.set()

    def done(self):
        return self._done.is_set()

    def wait(self):
        timeout = self._get_timeout()
        if not self._done.wait(timeout):
            raise self._channel.timeout_error(self._op, timeout)
        _pending_ops.discard(self)
        if self._error is not None:
            error, self._error = self._error, None
            raise error


def _register_exit_hook():
    # Registered after mpi4py initialized MPI, so it runs before MPI is
    # finalized: background operations finish (both sides run them) before
    # the process leaves.
    global _exit_hook_registered
    with _exit_hook_lock:
        if _exit_hook_registered:
            return
        _exit_hook_registered = True
    atexit.register(_finish_pending_ops)


def _finish_pending_ops():
    for pending in list(_pending_ops):
        try:
            pending.wait()
        except Exception as e:
            _errors.abort_job_at_exit()
            sys.stderr.write(f"chainermn: a pending operation failed at exit: {e}\n")


def _host_array(x, op):
    if isinstance(x, numpy.ndarray):
        # Not ascontiguousarray, which makes 0-d arrays 1-d.
        return numpy.asarray(x, order="C")
    if isinstance(x, (numpy.generic, int, float, complex, bool)):
        return numpy.asarray(x)
    raise TypeError(
        f"{op} takes NumPy arrays (this communicator works on the CPU); got "
        f"{type(x).__module__}.{type(x).__name__}. Move device arrays to the host "
        "first, e.g. chainer.backend.CpuDevice().send(x)."
    )


def _from_bytes(raw, meta):
    shape, dtype = meta
    dtype = numpy.dtype(dtype)
    if dtype.itemsize == 0 or raw.size == 0:
        return numpy.empty(shape, dtype)
    array = raw.view(dtype).reshape(shape)
    # Parts of a gathered buffer start at any byte offset.
    return array if array.flags.aligned else array.copy()
