"""A dataset that chains several datasets one after another."""

import bisect
import itertools

from chainer.dataset import dataset_mixin


class ConcatenatedDataset(dataset_mixin.DatasetMixin):
    """Dataset that concatenates several datasets.

    The examples of the first dataset come first, then those of the second,
    and so on; the length is the sum of the lengths. The datasets are kept,
    not copied, and their lengths are read once, at construction.

    Example:
        >>> from chainer.datasets import ConcatenatedDataset
        >>> dataset = ConcatenatedDataset([1, 2, 3], [4, 5])
        >>> len(dataset), dataset[3], dataset[-1]
        (5, 4, 5)

    Args:
        datasets: Datasets to concatenate, in order.
    """

    def __init__(self, *datasets):
        self._datasets = datasets
        # _ends[k] is the index one past the last example of datasets[k].
        self._ends = list(itertools.accumulate(len(dataset) for dataset in datasets))

    def __len__(self):
        return self._ends[-1] if self._ends else 0

    def get_example(self, i):
        """Returns the i-th example of the concatenation.

        Args:
            i (int): Index of the example; negative values count from the end.

        Returns:
            The example, taken from the dataset that holds position ``i``.
        """
        length = len(self)
        if i < 0:
            i += length
        if i < 0 or i >= length:
            raise IndexError(
                f"index {i - length if i < 0 else i} is out of range for "
                f"ConcatenatedDataset of length {length}"
            )
        k = bisect.bisect_right(self._ends, i)
        start = self._ends[k - 1] if k else 0
        return self._datasets[k][i - start]
