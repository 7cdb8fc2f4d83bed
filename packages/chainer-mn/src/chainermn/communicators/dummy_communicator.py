"""The dummy communicator: packs gradients but sends nothing (benchmarking)."""

from __future__ import annotations

from chainermn.communicators import _grads
from chainermn.communicators import mpi_communicator_base


class DummyCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """Communicator whose gradient averaging does not communicate.

    :meth:`multi_node_mean_grad` packs the gradients into one buffer and
    unpacks them, exactly as :class:`FlatCommunicator` does, but skips the
    allreduce: each process keeps its own gradients. It measures the cost of
    everything but the communication, and training with it is *not*
    data-parallel. The other methods communicate normally.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    def _mean_grads(self, params, channel, op):
        dtype = self._config["allreduce_grad_dtype"]
        buffers = self._buffers.setdefault(id(channel), {})
        for buf, members in _grads.pack_groups(params, "grad", dtype, buffers):
            _grads.unpack(buf, members, "grad")
