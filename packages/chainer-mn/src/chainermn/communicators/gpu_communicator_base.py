"""Base of the GPU communicators: gradients averaged on the GPU through NCCL."""

from __future__ import annotations

import abc

import numpy

from chainermn.communicators import _channel
from chainermn.communicators import _grads
from chainermn.communicators import _nccl
from chainermn.communicators import mpi_communicator_base


class GpuCommunicatorBase(mpi_communicator_base.MpiCommunicatorBase):
    """Base class of the communicators that average CuPy gradients with NCCL.

    One process per GPU: the model of each process lives on its own CUDA
    device (usually ``comm.intra_rank``, e.g.
    ``model.to_device(f'@cupy:{comm.intra_rank}')``). :meth:`bcast_data` and
    :meth:`multi_node_mean_grad` pack the parameters or gradients into one
    GPU buffer per dtype (one buffer in ``allreduce_grad_dtype`` when that is
    set) and reduce or broadcast it with NCCL inside a node; what crosses
    nodes goes through MPI, staged in host memory, so any MPI works (no
    CUDA-aware build is needed). Subclasses choose the scheme.

    The NCCL communicators are created at the first GPU operation, on the
    device of the model's parameters. Every operation is waited for with the
    communicator's ``timeout``: a dead peer gives
    :class:`chainermn.CommunicationTimeoutError`, not a hang.

    The other array methods (``send``, ``recv``, ``bcast``, ``gather``,
    ``allgather``, ``alltoall``, ``scatter``, ``allreduce``) take NumPy or
    CuPy arrays; CuPy arrays travel through host memory and arrive as CuPy
    arrays on the receiver's current device.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    #: Name of the communicator, as ``create_communicator`` takes it.
    name = ""

    def __init__(self, mpi_comm):
        self._cupy, self._nccl = _nccl.load_cupy(self.name)
        super().__init__(mpi_comm)
        self._groups = {}
        self._async_stream = None
        self._device_id = None
        self._sub_channels = []
        self._setup_channels()

    def _setup_channels(self):
        # Collective: subclasses split the MPI communicator here.
        pass

    def _sub_channel(self, color, op):
        # A channel over the processes with the same color, ordered by rank.
        self._channel.barrier(op)
        with self._channel.errors(op):
            sub = self._mpi_comm.Split(int(color), self.rank)
        channel = _channel.Channel(sub, self._get_timeout, self._get_max_buf_len)
        self._sub_channels.append(channel)
        return channel

    # -- arrays through host memory -------------------------------------------
    def _to_host(self, x, op):
        if isinstance(x, self._cupy.ndarray):
            return numpy.asarray(self._cupy.asnumpy(x), order="C"), True
        return super()._to_host(x, op)

    def _from_host(self, array, on_gpu):
        return self._cupy.asarray(array) if on_gpu else array

    # -- parameters on the GPU --------------------------------------------------
    def _check_gpu(self, param, name, what, array, comm_name):
        if not isinstance(array, self._cupy.ndarray):
            raise TypeError(
                f"the {what} of parameter {name!r} is a {type(array).__module__}."
                f"{type(array).__name__}, but the {self.name!r} communicator "
                "averages CuPy (GPU) arrays: move the model to this process's "
                "GPU first, e.g. model.to_device(f'@cupy:{comm.intra_rank}')"
            )
        device_id = array.device.id
        if self._device_id is None:
            self._device_id = device_id
        elif device_id != self._device_id:
            raise ValueError(
                f"the {what} of parameter {name!r} is on GPU {device_id}, but "
                f"this process's model is on GPU {self._device_id}; the "
                f"{self.name!r} communicator takes one GPU per process"
            )

    def _grad_params(self, model, zero_fill):
        return _grads.grad_params(
            model, zero_fill, self.name, self._check_gpu, self._cupy
        )

    def _group(self, key, channel, op):
        # The NCCL group over ``channel`` for ``key`` (made at first use).
        group = self._groups.get(key)
        if group is None:
            group = _nccl.NcclGroup(
                self._cupy, self._nccl, channel, self._device_id, op
            )
            self._groups[key] = group
        return group

    def bcast_data(self, model):
        """Copies rank 0's parameters into every process's model (collective).

        The initialized parameters (CuPy arrays, on this process's GPU) are
        packed per dtype, broadcast and unpacked in place.

        Args:
            model (~chainer.Link): The model, built the same way everywhere.

        Raises:
            ValueError: On every process, before any data moves, when the
                processes' models differ in their parameters' names, shapes
                or dtypes.
        """
        params = _grads.initialized_params(model, self.name, self._check_gpu)
        self._check_same_params(model, "bcast_data")
        if not params:
            return
        cupy = self._cupy
        with cupy.cuda.Device(self._device_id):
            buffers = self._buffers.setdefault("bcast_data", {})
            group = None
            for buf, members in _grads.pack_groups(
                params, "array", None, buffers, cupy
            ):
                group = self._bcast_gpu(buf, "bcast_data")
                _grads.unpack(buf, members, "array", xp=cupy)
            self._wait(group, "bcast_data")

    def _mean_grads(self, params, channel, op):
        # Averages on this process's GPU (``channel`` is unused: NCCL groups
        # and the subclasses' channels carry the data).
        with self._cupy.cuda.Device(self._device_id):
            group = self._mean_grads_gpu(params, "main", op)
            self._wait(group, op)

    def _mean_grads_gpu(self, params, purpose, op):
        # Enqueues the averaging of the gradients of ``params`` on the
        # current stream; returns the NCCL group used last (None if none).
        cupy = self._cupy
        dtype = self._config["allreduce_grad_dtype"]
        buffers = self._buffers.setdefault(purpose, {})
        group = None
        for buf, members in _grads.pack_groups(params, "grad", dtype, buffers, cupy):
            group = self._allreduce_gpu(buf, purpose, op)
            _grads.unpack(buf, members, "grad", self.size, cupy)
        return group

    def _wait(self, group, op):
        # Waits for the current stream with the deadline (aborting ``group``
        # on timeout).
        if group is not None:
            group.wait(self._cupy.cuda.get_current_stream(), op)

    @abc.abstractmethod
    def _allreduce_gpu(self, buf, purpose, op):
        # Sums a contiguous 1-d CuPy buffer over all processes, in place,
        # enqueued on the current stream; returns the NCCL group to wait on.
        pass

    @abc.abstractmethod
    def _bcast_gpu(self, buf, op):
        # Broadcasts a contiguous 1-d CuPy buffer from rank 0, in place;
        # returns the NCCL group to wait on.
        pass

    # -- double buffering ---------------------------------------------------------
    #: Why this communicator cannot average in the background, or None.
    _double_buffering_error = (
        "double buffering (averaging in the background) is supported by the "
        "'pure_nccl' and 'single_node' GPU communicators and the CPU ones"
    )

    def multi_node_mean_grad_async(self, model, zero_fill=False):
        """Starts averaging the gradients of ``model`` in the background.

        Supported by ``'pure_nccl'`` and ``'single_node'``: the gradients are
        packed, reduced with NCCL and unpacked on a stream of their own (with
        an NCCL communicator of its own), after what the current stream has
        enqueued; ``wait()`` on the returned operation waits for it with the
        timeout. The gradient arrays must not be touched until then.

        Args:
            model (~chainer.Link): The model (anything with ``namedparams()``).
            zero_fill (bool): See :meth:`multi_node_mean_grad`.

        Returns:
            An operation object with ``wait()`` and ``done()``.
        """
        if self._double_buffering_error is not None:
            raise ValueError(
                f"{self._double_buffering_error}, not {self.name!r}; use "
                "double_buffering=False or create_communicator('pure_nccl')"
            )
        self._wait_pending()
        params = self._grad_params(model, zero_fill)
        cupy = self._cupy
        op = "multi_node_mean_grad (double buffering)"
        with cupy.cuda.Device(self._device_id):
            ready = cupy.cuda.get_current_stream().record()
            if self._async_stream is None:
                self._async_stream = cupy.cuda.Stream(non_blocking=True)
            stream = self._async_stream
            stream.wait_event(ready)
            with stream:
                group = self._mean_grads_gpu(params, "async", op)
            pending = _StreamOperation(group, stream, op)
        self._pending = pending
        return pending

    def finalize(self):
        """Waits for pending operations and frees NCCL and MPI resources."""
        super().finalize()
        for key in list(self._groups):
            group = self._groups.pop(key)
            if isinstance(group, _nccl.NcclGroup):
                group.destroy()
        for channel in self._sub_channels:
            channel.comm.Free()
        self._sub_channels = []


class _StreamOperation:
    # Background averaging: done when its stream has run what was enqueued.

    def __init__(self, group, stream, op):
        self._group = group
        self._stream = stream if group is not None else None
        self._op = op

    def done(self):
        return self._stream is None or self._stream.done

    def wait(self):
        stream, self._stream = self._stream, None
        if stream is not None:
            self._group.wait(stream, self._op)
