"""Views of a subset of rows and columns (``dataset.slice[rows, keys]``)."""

from __future__ import annotations

from chainer.dataset.tabular import _index
from chainer.dataset.tabular import tabular_dataset


class _SliceHelper:
    """The object behind :attr:`TabularDataset.slice`."""

    def __init__(self, dataset):
        self._dataset = dataset

    def __getitem__(self, args):
        if isinstance(args, tuple):
            if len(args) != 2:
                raise IndexError(
                    f"slice[...] takes rows or (rows, keys), got {len(args)} entries"
                )
            indices, keys = args
        else:
            indices, keys = args, None
        return _Slice(self._dataset, indices, keys)


class _Slice(tabular_dataset.TabularDataset):
    """A view of some rows and columns of a dataset."""

    def __init__(self, dataset, indices, keys):
        self._dataset = dataset
        self._base_len = len(dataset)
        self._rows = _index.normalize_rows(indices, self._base_len)
        if isinstance(self._rows, slice):
            self._len = len(range(self._base_len)[self._rows])
        else:
            self._len = len(self._rows)
        if keys is None:
            self._key_indices = None
            self._mode = dataset.mode
        else:
            unary = not isinstance(keys, tuple)
            if unary:
                keys = (keys,)
            key_indices = tuple(_index.key_index(dataset.keys, k) for k in keys)
            if len(set(key_indices)) != len(key_indices):
                raise ValueError(f"keys {keys} name the same column more than once")
            self._key_indices = key_indices
            self._mode = None if unary else (dataset.mode or tuple)

    def __len__(self):
        return self._len

    @property
    def keys(self):
        keys = self._dataset.keys
        if self._key_indices is None:
            return keys
        return tuple(keys[k] for k in self._key_indices)

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        rows = _index.compose_rows(self._rows, indices, self._base_len)
        if self._key_indices is None:
            keys = key_indices
        elif key_indices is None:
            keys = self._key_indices
        else:
            keys = tuple(self._key_indices[k] for k in key_indices)
        return self._dataset.get_examples(rows, keys)

    def convert(self, data):
        return self._dataset.convert(data)
