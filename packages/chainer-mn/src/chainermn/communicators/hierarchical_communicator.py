"""The hierarchical communicator: NCCL inside nodes, MPI between them."""

from __future__ import annotations

import numpy

from chainermn.communicators import gpu_communicator_base


class HierarchicalCommunicator(gpu_communicator_base.GpuCommunicatorBase):
    """Communicator that reduces inside each node, then across nodes.

    :meth:`multi_node_mean_grad` sums each packed gradient buffer onto the
    node's first process (``intra_rank == 0``) with an NCCL reduce, sums
    those across nodes with an MPI allreduce (through host memory), and
    broadcasts the result inside each node with NCCL. Only one process per
    node sends over the network, which suits many GPUs per node on a slow
    interconnect.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    name = "hierarchical"

    def _setup_channels(self):
        op = f"create_communicator({self.name!r})"
        # The processes of this node, and the processes with this intra
        # rank on every node (the node leaders, for intra_rank 0).
        self._intra = self._sub_channel(self.inter_rank, op)
        self._inter = self._sub_channel(self.intra_rank, op)

    def _across_nodes(self, buf, group, op, bcast=False):
        # The node leaders sum (or broadcast from rank 0) ``buf`` over MPI.
        if self.intra_rank == 0 and self._inter.size > 1:
            self._through_host(buf, group, op, bcast)

    def _through_host(self, buf, group, op, bcast=False):
        # Sums (or broadcasts from its rank 0) ``buf`` over the inter-node
        # channel, in host memory, once ``group``'s operations on it are done.
        group.wait(self._cupy.cuda.get_current_stream(), op)
        host = numpy.ascontiguousarray(self._cupy.asnumpy(buf))
        if bcast:
            self._inter.bcast_inplace(host, 0, op)
        else:
            self._inter.allreduce_inplace(host, op)
        buf.set(host)

    def _allreduce_gpu(self, buf, purpose, op):
        group = self._group(purpose, self._intra, op)
        group.reduce(buf, 0, op)
        self._across_nodes(buf, group, op)
        group.bcast(buf, 0, op)
        return group

    def _bcast_gpu(self, buf, op):
        group = self._group("main", self._intra, op)
        self._across_nodes(buf, group, op, bcast=True)
        group.bcast(buf, 0, op)
        return group
