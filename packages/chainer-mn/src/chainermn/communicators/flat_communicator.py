"""The flat communicator: all gradients packed into one allreduce."""

from __future__ import annotations

from chainermn.communicators import _grads
from chainermn.communicators import mpi_communicator_base


class FlatCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """Communicator that averages all gradients with one packed allreduce.

    :meth:`multi_node_mean_grad` copies every gradient into one contiguous
    buffer (one per dtype, or one in ``allreduce_grad_dtype`` when that is
    set), sums it over the processes with a single MPI allreduce, divides by
    the number of processes and copies the slices back. Compared with
    :class:`NaiveCommunicator` it pays one extra copy to save the per-message
    latency of many small allreduces. NumPy (CPU) arrays only.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    def _mean_grads(self, params, channel, op):
        dtype = self._config["allreduce_grad_dtype"]
        # One set of buffers per channel: the background channel of double
        # buffering may run while this thread packs for another operation.
        buffers = self._buffers.setdefault(id(channel), {})
        for buf, members in _grads.pack_groups(params, "grad", dtype, buffers):
            channel.allreduce_inplace(buf, op)
            _grads.unpack(buf, members, "grad", channel.size)
