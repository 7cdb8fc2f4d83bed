"""A dataset whose examples are dictionaries gathered from named datasets."""

from chainer.datasets import _indexing


class DictDataset:
    """Dataset of dictionaries made from named datasets of the same length.

    The ``i``-th example is the dictionary that maps each keyword to the
    ``i``-th example of the dataset given under that keyword. Indexing with a
    slice, a list of indices or an index array returns a list of such
    dictionaries. The datasets are kept, not copied.

    Example:
        >>> import numpy
        >>> from chainer.datasets import DictDataset
        >>> dataset = DictDataset(x=numpy.arange(3), t=["a", "b", "c"])
        >>> dataset[2]["t"]
        'c'
        >>> [example["t"] for example in dataset[:2]]
        ['a', 'b']

    Args:
        datasets: Underlying datasets, by keyword. The ``i``-th example of
            this dataset is ``{key: datasets[key][i] for key in datasets}``.
    """

    def __init__(self, **datasets):
        if not datasets:
            raise ValueError("DictDataset needs at least one dataset, got none")
        lengths = {key: len(dataset) for key, dataset in datasets.items()}
        first_key = next(iter(lengths))
        for key, length in lengths.items():
            if length != lengths[first_key]:
                raise ValueError(
                    "DictDataset needs datasets of the same length, but dataset "
                    f"{key!r} has length {length} while dataset {first_key!r} has "
                    f"length {lengths[first_key]}"
                )
        self._datasets = datasets
        self._length = lengths[first_key]

    def __getitem__(self, index):
        """Returns an example or a list of examples.

        Args:
            index (int, slice, list or numpy.ndarray): An integer (negative
                values count from the end), a slice, a list of integers, an
                integer array, or a boolean mask of the dataset's length.

        Returns:
            dict or list of dicts: The example for an integer index,
            otherwise the list of the selected examples.
        """
        if isinstance(index, slice):
            columns = [dataset[index] for dataset in self._datasets.values()]
        elif _indexing.selects_many(index):
            where = _indexing.positions(index, self._length, "DictDataset")
            columns = [
                _indexing.take(dataset, where) for dataset in self._datasets.values()
            ]
        else:
            i = _indexing.position(index, self._length, "DictDataset")
            return {key: dataset[i] for key, dataset in self._datasets.items()}
        keys = list(self._datasets)
        return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]

    def __len__(self):
        return self._length
