"""Scattering a dataset, or its index ranges, from the root process."""

from __future__ import annotations

import numpy

from chainer.datasets import sub_dataset
from chainermn.communicators import communicator_base
from chainermn.communicators import flat_communicator

_DEFAULT_MAX_BUF_LEN = 256 * 1024 * 1024


def _as_communicator(comm):
    # ChainerMN accepts a communicator or a bare mpi4py communicator.
    if isinstance(comm, communicator_base.CommunicatorBase):
        return comm
    if hasattr(comm, "Get_rank") and hasattr(comm, "Split_type"):
        return flat_communicator.FlatCommunicator(mpi_comm=comm)
    raise TypeError(
        "comm must be a ChainerMN communicator (chainermn.create_communicator) "
        f"or an mpi4py communicator, not {type(comm).__name__}"
    )


def _check_root(root, size):
    if not 0 <= root < size:
        raise ValueError(f"root must be a rank in [0, {size}), got {root}")


def _ranges(n_total, size, force_equal_length):
    # [b, e) of every rank. With equal lengths every part has ceil(n / size)
    # examples, so neighbouring parts overlap by the few that make up the
    # difference; otherwise the parts are disjoint and differ by at most one.
    ranges = []
    n_sub = -(-n_total // size)
    for rank in range(size):
        begin = n_total * rank // size
        end = begin + n_sub if force_equal_length else n_total * (rank + 1) // size
        ranges.append((begin, end))
    return ranges


def scatter_dataset(
    dataset,
    comm,
    root=0,
    shuffle=False,
    seed=None,
    max_buf_len=_DEFAULT_MAX_BUF_LEN,
    *,
    force_equal_length=True,
):
    """Scatters a dataset from the root process to every process (collective).

    The root broadcasts the dataset (in pieces of at most ``max_buf_len``
    bytes) together with the order of its examples, and every process keeps
    its own contiguous part of that order as a
    :class:`~chainer.datasets.SubDataset`. The dataset object itself travels,
    not its examples, so lazily loaded datasets (images read from paths,
    random transforms) stay lazy and keep their randomness.

    With ``force_equal_length`` (the default) every process gets
    ``ceil(len(dataset) / size)`` examples, so neighbouring parts may share
    a few examples; data-parallel training needs this, since every process
    must run the same number of iterations. Without it the parts are
    disjoint and their lengths differ by at most one (for evaluating a test
    set exactly once).

    Example:
        >>> import chainermn
        >>> comm = chainermn.create_communicator('flat')
        >>> part = chainermn.scatter_dataset(list(range(5)), comm)
        >>> len(part)
        5

    Args:
        dataset: The dataset, on the root (other processes may pass
            ``None``).
        comm: Communicator (or ``mpi4py`` communicator).
        root (int): Rank of the process holding the dataset.
        shuffle (bool): Permute the examples (with ``seed``) before splitting.
        seed (int): Seed of the permutation; ``None`` draws one.
        max_buf_len (int): Largest message in bytes of the broadcast.
        force_equal_length (bool): Give every process the same number of
            examples (see above).

    Returns:
        ~chainer.datasets.SubDataset: This process's part.
    """
    comm = _as_communicator(comm)
    _check_root(root, comm.size)
    payload = None
    if comm.rank == root:
        if dataset is None:
            raise ValueError(f"scatter_dataset: the root (rank {root}) has no dataset")
        order = None
        if shuffle:
            order = numpy.random.RandomState(seed).permutation(len(dataset))
        payload = (dataset, order)
    dataset, order = comm.bcast_obj(payload, max_buf_len=max_buf_len, root=root)
    ranges = _ranges(len(dataset), comm.size, force_equal_length)
    begin, end = ranges[comm.rank]
    return sub_dataset.SubDataset(dataset, begin, end, order)


def scatter_index(n_total_samples, comm, root=0, *, force_equal_length=True):
    """Scatters index ranges instead of a dataset (collective).

    Every process gets the range ``[begin, end)`` of ``range(n_total_samples)``
    it should work on, as :func:`scatter_dataset` splits a dataset; use it
    when every process can load the dataset itself::

        begin, end = chainermn.scatter_index(len(dataset), comm)
        dataset = chainer.datasets.SubDataset(dataset, begin, end)

    Example:
        >>> import chainermn
        >>> comm = chainermn.create_communicator('flat')
        >>> chainermn.scatter_index(10, comm)
        (0, 10)

    Args:
        n_total_samples (int): Number of examples, on the root (other
            processes may pass ``None``).
        comm: Communicator (or ``mpi4py`` communicator).
        root (int): Rank of the process whose ``n_total_samples`` is used.
        force_equal_length (bool): Give every process the same number of
            examples (see :func:`scatter_dataset`).

    Returns:
        tuple: ``(begin, end)`` of this process.
    """
    comm = _as_communicator(comm)
    _check_root(root, comm.size)
    ranges = None
    if comm.rank == root:
        n = int(n_total_samples)
        if n < 0:
            raise ValueError(f"n_total_samples must be non-negative, got {n}")
        ranges = _ranges(n, comm.size, force_equal_length)
    return comm.scatter_obj(ranges, root=root)
