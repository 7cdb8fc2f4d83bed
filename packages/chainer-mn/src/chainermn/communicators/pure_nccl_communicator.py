"""The pure NCCL communicator: every GPU in one NCCL group."""

from __future__ import annotations

from chainermn.communicators import gpu_communicator_base


class PureNcclCommunicator(gpu_communicator_base.GpuCommunicatorBase):
    """Communicator that averages gradients with one NCCL allreduce.

    All processes (one per GPU, on any number of nodes) form one NCCL
    communicator: :meth:`multi_node_mean_grad` packs the gradients into one
    buffer per dtype, sums it with NCCL's allreduce and divides by the number
    of processes while unpacking. With ``allreduce_grad_dtype`` (e.g.
    ``numpy.float16``) the buffer is of that dtype, halving the traffic of
    float32 gradients. It supports double buffering
    (``create_multi_node_optimizer(..., double_buffering=True)``), on a
    stream and NCCL communicator of its own. The default of
    :func:`~chainermn.create_communicator`.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    name = "pure_nccl"
    _double_buffering_error = None

    def _allreduce_gpu(self, buf, purpose, op):
        group = self._group(purpose, self._channel, op)
        group.allreduce(buf, op)
        return group

    def _bcast_gpu(self, buf, op):
        group = self._group("main", self._channel, op)
        group.bcast(buf, 0, op)
        return group

    def _nccl_allreduce(self, data, op="allreduce"):
        # Sum of a CuPy array over all processes through NCCL (used by
        # multi-node batch normalization with communication_backend='nccl').
        cupy = self._cupy
        out = cupy.array(data, copy=True, order="C")
        if out.size:
            if self._device_id is None:
                self._device_id = out.device.id
            with cupy.cuda.Device(self._device_id):
                group = self._allreduce_gpu(out.reshape(-1), "main", op)
                self._wait(group, op)
        return out
