"""Pieces of an update step that the updaters share.

Reading the main iterator's next batch, converting it for a device and
calling the loss function with it.
"""

from __future__ import annotations

from chainer import backend
from chainer.dataset import convert


def next_batch(iterator):
    """Returns the next batch of a training iterator, with clear errors.

    Args:
        iterator: The main iterator.

    Returns:
        The batch (a non-empty one).
    """
    try:
        batch = iterator.next()
    except StopIteration:
        raise RuntimeError(
            "the main iterator is exhausted (StopIteration): a training "
            "iterator must repeat (repeat=True), or the stop trigger must end "
            "training within one sweep"
        ) from None
    if hasattr(batch, "__len__") and len(batch) == 0:
        raise ValueError(
            f"the main iterator ({type(iterator).__name__}) returned an empty "
            "batch; is the dataset empty?"
        )
    return batch


def convert_batch(converter, batch, device):
    """Calls ``converter`` with the device form it takes.

    A :class:`~chainer.dataset.Converter` gets the Device (or ``None``); an
    old-style converter (a plain function) gets Chainer's legacy form:
    ``None``, ``-1`` for the CPU, the CUDA device id for CuPy, the Device
    otherwise.

    Args:
        converter (callable): The updater's converter.
        batch: The batch.
        device (~chainer.backend.Device): Destination device, or ``None``.

    Returns:
        The converted batch.
    """
    if isinstance(converter, convert.Converter):
        return converter(batch, device)
    return converter(batch, _legacy_device_spec(device))


def _legacy_device_spec(device):
    if device is None:
        return None
    if device.xp is backend.CpuDevice.xp:
        return -1
    name = getattr(device, "name", "")
    if name.startswith("@cupy:"):
        return int(name.split(":", 1)[1])
    return device


def call_loss(loss_func, in_arrays):
    """Calls ``loss_func`` with a converted batch.

    Args:
        loss_func (callable): The loss function (or model).
        in_arrays: A tuple (positional arguments), a dict (keyword
            arguments) or a single argument.

    Returns:
        What ``loss_func`` returns: the loss.
    """
    if isinstance(in_arrays, tuple):
        return loss_func(*in_arrays)
    if isinstance(in_arrays, dict):
        return loss_func(**in_arrays)
    return loss_func(in_arrays)
