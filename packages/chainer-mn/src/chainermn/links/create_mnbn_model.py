"""Replacing the batch normalizations of a model: :func:`create_mnbn_model`."""

from __future__ import annotations

import copy

from chainer import link as link_module
from chainer import links
from chainermn.links import batch_normalization


def create_mnbn_model(link, comm, communication_backend="auto"):
    """Returns a copy of a model with multi-node batch normalizations.

    Every :class:`chainer.links.BatchNormalization` in ``link`` (at any depth
    of its chains and chain lists, or ``link`` itself) is replaced in the
    copy by a :class:`~chainermn.links.MultiNodeBatchNormalization` with the
    same size, decay, epsilon, dtype, parameters, running statistics and
    fine-tuning count. Everything else is deep-copied; ``link`` is left as
    it is.

    Args:
        link (~chainer.Link): The model.
        comm (~chainermn.communicators.CommunicatorBase): Communicator of
            the new batch normalizations.
        communication_backend (str): Their communication backend
            (``'mpi'`` or ``'auto'``).

    Returns:
        ~chainer.Link: The copy.

    Raises:
        ValueError: A batch normalization has no size yet (created with
            ``size=None``: run one forward pass first), or normalizes over
            axes other than the default ones.
    """
    if not isinstance(link, link_module.Link):
        raise TypeError(
            f"create_mnbn_model takes a chainer.Link, got {type(link).__name__}"
        )
    # A deep copy whose memo maps each batch normalization to its
    # replacement puts the replacements wherever the originals were.
    memo = {}
    for path, sub in link.namedlinks():
        if isinstance(sub, links.BatchNormalization):
            memo[id(sub)] = _replacement(path, sub, comm, communication_backend)
    return copy.deepcopy(link, memo)


def _replacement(path, bn, comm, communication_backend):
    if bn.avg_mean is None:
        raise ValueError(
            f"create_mnbn_model: the BatchNormalization at {path!r} has no size "
            "yet (it was created with size=None); run one forward pass first"
        )
    axis = getattr(bn, "axis", None)
    if axis is not None:
        first = 1 + bn.avg_mean.ndim
        default = (0, *range(first, first + len(axis) - 1))
        if tuple(sorted(axis)) != default:
            raise ValueError(
                f"create_mnbn_model: the BatchNormalization at {path!r} "
                f"normalizes over axis={tuple(axis)}; MultiNodeBatchNormalization "
                "supports only the default axes (all but the channel axes "
                "1 .. len(size))"
            )
    mnbn = batch_normalization.MultiNodeBatchNormalization(
        bn.avg_mean.shape,
        comm,
        decay=bn.decay,
        eps=bn.eps,
        dtype=bn.avg_mean.dtype,
        use_gamma=bn.gamma is not None,
        use_beta=bn.beta is not None,
        communication_backend=communication_backend,
    )
    mnbn.to_device(bn.device)
    mnbn.copyparams(bn)
    if not bn.update_enabled:
        mnbn.disable_update()
    mnbn.name = bn.name
    return mnbn
