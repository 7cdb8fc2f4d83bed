"""A dataset whose examples are tuples gathered from several datasets."""

from chainer.datasets import _indexing


class TupleDataset:
    """Dataset of tuples made from several datasets of the same length.

    The ``i``-th example is the tuple of the ``i``-th examples of the given
    datasets, in order. Indexing with a slice, a list of indices or an index
    array returns a list of such tuples. The datasets are kept, not copied, so
    NumPy arrays stay as light as they are.

    Example:
        >>> import numpy
        >>> from chainer.datasets import TupleDataset
        >>> x = numpy.arange(6).reshape(3, 2)
        >>> t = [10, 20, 30]
        >>> dataset = TupleDataset(x, t)
        >>> dataset[1]
        (array([2, 3]), 20)
        >>> [label for _, label in dataset[-2:]]
        [20, 30]

    Args:
        datasets: Underlying datasets (sequences, arrays or dataset objects).
            The ``i``-th example of this dataset is
            ``(datasets[0][i], datasets[1][i], ...)``.
    """

    def __init__(self, *datasets):
        if not datasets:
            raise ValueError("TupleDataset needs at least one dataset, got none")
        lengths = [len(dataset) for dataset in datasets]
        for i, length in enumerate(lengths):
            if length != lengths[0]:
                raise ValueError(
                    "TupleDataset needs datasets of the same length, but dataset "
                    f"{i} has length {length} while dataset 0 has length "
                    f"{lengths[0]}"
                )
        self._datasets = datasets
        self._length = lengths[0]

    def __getitem__(self, index):
        """Returns an example or a list of examples.

        Args:
            index (int, slice, list or numpy.ndarray): An integer (negative
                values count from the end), a slice, a list of integers, an
                integer array, or a boolean mask of the dataset's length.

        Returns:
            tuple or list of tuples: The example for an integer index,
            otherwise the list of the selected examples.
        """
        if isinstance(index, slice):
            columns = [dataset[index] for dataset in self._datasets]
            return list(zip(*columns, strict=True))
        if _indexing.selects_many(index):
            where = _indexing.positions(index, self._length, "TupleDataset")
            columns = [_indexing.take(dataset, where) for dataset in self._datasets]
            return list(zip(*columns, strict=True))
        i = _indexing.position(index, self._length, "TupleDataset")
        return tuple([dataset[i] for dataset in self._datasets])

    def __len__(self):
        return self._length
