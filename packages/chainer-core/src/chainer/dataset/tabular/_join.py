"""Column-wise joining of tabular datasets."""

from __future__ import annotations

from chainer.dataset.tabular import _concat
from chainer.dataset.tabular import tabular_dataset


class _Join(tabular_dataset.TabularDataset):
    """The columns of several datasets with the same length, side by side."""

    def __init__(self, *datasets):
        _concat._check_datasets(datasets, "join")
        length = len(datasets[0])
        keys = []
        owners = []
        for d, dataset in enumerate(datasets):
            if len(dataset) != length:
                raise ValueError(
                    f"join needs datasets of the same length, got {length} and "
                    f"{len(dataset)}"
                )
            for k, key in enumerate(dataset.keys):
                if key in keys:
                    raise ValueError(f"join needs unique keys; {key!r} appears twice")
                keys.append(key)
                owners.append((d, k))
        self._datasets = datasets
        self._keys = tuple(keys)
        self._owners = owners
        self._len = length

    def __len__(self):
        return self._len

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        for dataset in self._datasets:
            if dataset.mode is not None:
                return dataset.mode
        return tuple

    def convert(self, data):
        return self._datasets[0].convert(data)

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            columns = []
            for dataset in self._datasets:
                columns.extend(dataset.get_examples(indices, None))
            return tuple(columns)
        wanted = {}
        for k in key_indices:
            d, local = self._owners[k]
            wanted.setdefault(d, {}).setdefault(local, None)
        fetched = {}
        for d, locals_ in wanted.items():
            local_keys = tuple(locals_)
            columns = self._datasets[d].get_examples(indices, local_keys)
            for local, column in zip(local_keys, columns, strict=True):
                fetched[d, local] = column
        return tuple(fetched[self._owners[k]] for k in key_indices)
