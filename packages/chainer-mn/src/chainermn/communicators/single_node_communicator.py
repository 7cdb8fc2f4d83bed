"""The single-node communicator: NCCL among the GPUs of one machine."""

from __future__ import annotations

from chainermn.communicators import pure_nccl_communicator


class SingleNodeCommunicator(pure_nccl_communicator.PureNcclCommunicator):
    """Communicator for the GPUs of one node, all in one NCCL group.

    It averages as :class:`PureNcclCommunicator` does, and refuses to be
    created across several nodes (``inter_size > 1``), where
    ``'pure_nccl'`` or ``'hierarchical'`` are the choices.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    name = "single_node"

    def _setup_channels(self):
        if self.inter_size != 1:
            raise ValueError(
                f"the 'single_node' communicator works within one node, but the "
                f"processes run on {self.inter_size} nodes; use 'pure_nccl' or "
                "'hierarchical'"
            )
