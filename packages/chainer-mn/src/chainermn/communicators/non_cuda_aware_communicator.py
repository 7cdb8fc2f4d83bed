"""The communicator for MPIs that cannot read GPU memory."""

from __future__ import annotations

from chainermn.communicators import hierarchical_communicator


class NonCudaAwareCommunicator(hierarchical_communicator.HierarchicalCommunicator):
    """Hierarchical averaging for MPI builds without CUDA support.

    NCCL reduces inside each node; the node leaders copy the sum to host
    memory, allreduce it with MPI and copy it back; NCCL broadcasts it
    inside the node. In this implementation every GPU communicator already
    stages inter-node traffic through host memory, so this is the
    :class:`HierarchicalCommunicator` under ChainerMN's other name.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    name = "non_cuda_aware"
