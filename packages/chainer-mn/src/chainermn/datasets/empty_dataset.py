"""Datasets whose examples are empty tuples."""

from __future__ import annotations

from chainer.dataset import dataset_mixin


class _EmptyDataset(dataset_mixin.DatasetMixin):
    def __init__(self, length):
        self._length = length

    def __len__(self):
        return self._length

    def get_example(self, i):
        if not -self._length <= i < self._length:
            raise IndexError(
                f"index {i} is out of range for an empty dataset of length "
                f"{self._length}"
            )
        return ()


def create_empty_dataset(dataset):
    """Creates a dataset of the same length whose examples are empty tuples.

    It serves models that take no input from the dataset, such as the later
    stages of a model split over processes, whose ``forward`` starts with
    :func:`chainermn.functions.recv`: their iterator then yields batches of
    the right size and count without loading any data.

    Example:
        >>> import chainermn
        >>> empty = chainermn.create_empty_dataset([10, 20, 30])
        >>> len(empty), empty[0]
        (3, ())

    Args:
        dataset: The dataset whose length to copy (anything with
            ``__len__``).

    Returns:
        ~chainer.dataset.DatasetMixin: A dataset of ``len(dataset)`` empty
        tuples.
    """
    return _EmptyDataset(len(dataset))
