"""The two-dimensional communicator: reduce-scatter, allreduce, allgather."""

from __future__ import annotations

from chainermn.communicators import hierarchical_communicator


class TwoDimensionalCommunicator(hierarchical_communicator.HierarchicalCommunicator):
    """Communicator that spreads the inter-node traffic over all GPUs.

    :meth:`multi_node_mean_grad` reduce-scatters each packed gradient buffer
    inside the node with NCCL (process ``intra_rank = r`` gets the sum of
    chunk ``r``), sums chunk ``r`` across nodes with an MPI allreduce among
    the processes of intra rank ``r`` (through host memory), and gathers the
    chunks back inside the node with NCCL. Every process then sends
    ``1 / intra_size`` of the data over the network. All nodes must run the
    same number of processes.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    name = "two_dimensional"

    def _setup_channels(self):
        sizes = self.allgather_obj(self.intra_size)
        if len(set(sizes)) != 1:
            raise ValueError(
                "the 'two_dimensional' communicator needs the same number of "
                f"processes on every node, got {sorted(set(sizes))}; use "
                "'hierarchical' or 'pure_nccl'"
            )
        super()._setup_channels()

    def _allreduce_gpu(self, buf, purpose, op):
        cupy = self._cupy
        group = self._group(purpose, self._intra, op)
        parts = self._intra.size
        chunk = -(-buf.size // parts)
        buffers = self._buffers.setdefault(purpose, {})
        padded = buf
        if chunk * parts != buf.size:
            padded = buffers.get(("padded", buf.dtype.str))
            if padded is None or padded.size != chunk * parts:
                padded = cupy.zeros(chunk * parts, buf.dtype)
                buffers[("padded", buf.dtype.str)] = padded
            padded[: buf.size] = buf
        mine = buffers.get(("chunk", buf.dtype.str))
        if mine is None or mine.size != chunk:
            mine = cupy.empty(chunk, buf.dtype)
            buffers[("chunk", buf.dtype.str)] = mine
        group.reduce_scatter(padded, mine, op)
        if self._inter.size > 1:
            self._through_host(mine, group, op)
        group.allgather(mine, padded, op)
        if padded is not buf:
            buf[...] = padded[: buf.size]
        return group
