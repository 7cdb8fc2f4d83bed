"""Row-wise concatenation of tabular datasets."""

from __future__ import annotations

import numpy

from chainer import backend
from chainer.dataset.tabular import _index
from chainer.dataset.tabular import tabular_dataset


def _check_datasets(datasets, what):
    for dataset in datasets:
        if not isinstance(dataset, tabular_dataset.TabularDataset):
            raise TypeError(
                f"{what} takes TabularDatasets, got {type(dataset).__name__}"
            )


class _Concat(tabular_dataset.TabularDataset):
    """The rows of several datasets with the same keys, one after another."""

    def __init__(self, *datasets):
        _check_datasets(datasets, "concat")
        keys = datasets[0].keys
        for dataset in datasets[1:]:
            if dataset.keys != keys:
                raise ValueError(
                    f"concat needs datasets with the same keys, got {keys} and "
                    f"{dataset.keys}"
                )
        self._datasets = datasets
        self._ends = numpy.cumsum([len(d) for d in datasets]).tolist()

    def __len__(self):
        return self._ends[-1]

    @property
    def keys(self):
        return self._datasets[0].keys

    @property
    def mode(self):
        return self._datasets[0].mode

    def convert(self, data):
        return self._datasets[0].convert(data)

    def get_examples(self, indices, key_indices):
        if indices is None:
            parts = [d.get_examples(None, key_indices) for d in self._datasets]
            return self._join_parts(parts)
        if isinstance(indices, slice):
            rows = range(len(self))[indices]
            if rows.step == 1:
                return self._get_range(rows, key_indices)
            indices = list(rows)
        return self._get_list(indices, key_indices)

    def _join_parts(self, parts):
        columns = zip(*parts, strict=True)
        return tuple(_index.concat_columns(list(cols)) for cols in columns)

    def _get_range(self, rows, key_indices):
        if len(rows) == 0:
            return self._datasets[0].get_examples(slice(0, 0, 1), key_indices)
        parts = []
        start = 0
        for dataset, end in zip(self._datasets, self._ends, strict=True):
            lo, hi = max(rows.start, start), min(rows.stop, end)
            if lo < hi:
                local = slice(lo - start, hi - start, 1)
                parts.append(dataset.get_examples(local, key_indices))
            start = end
        return self._join_parts(parts)

    def _get_list(self, indices, key_indices):
        if len(indices) == 0:
            return self._datasets[0].get_examples([], key_indices)
        rows = numpy.asarray(indices, dtype=numpy.intp)
        owner = numpy.searchsorted(self._ends, rows, side="right")
        parts = []
        positions = []
        for d in numpy.unique(owner).tolist():
            mine = numpy.flatnonzero(owner == d)
            offset = self._ends[d - 1] if d > 0 else 0
            local = (rows[mine] - offset).tolist()
            parts.append(self._datasets[d].get_examples(local, key_indices))
            positions.append(mine)
        if len(parts) == 1:
            return parts[0]
        # Undo the grouping by dataset so rows come back in the order asked.
        order = numpy.argsort(numpy.concatenate(positions), kind="stable")
        columns = []
        for column in self._join_parts(parts):
            if isinstance(column, list):
                columns.append([column[i] for i in order.tolist()])
            else:
                xp = backend.get_array_module(column)
                columns.append(column[xp.asarray(order)])
        return tuple(columns)
