"""Views that change how examples are represented or converted."""

from __future__ import annotations

from chainer.dataset.tabular import tabular_dataset


class _View(tabular_dataset.TabularDataset):
    """A view with the same rows and columns as ``dataset``."""

    def __init__(self, dataset):
        self._dataset = dataset

    def __len__(self):
        return len(self._dataset)

    @property
    def keys(self):
        return self._dataset.keys

    @property
    def mode(self):
        return self._dataset.mode

    def get_examples(self, indices, key_indices):
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data):
        return self._dataset.convert(data)


class _AsTuple(_View):
    @property
    def mode(self):
        return tuple


class _AsDict(_View):
    @property
    def mode(self):
        return dict


class _WithConverter(_View):
    def __init__(self, dataset, converter):
        if not callable(converter):
            raise TypeError(f"converter must be callable, got {converter!r}")
        super().__init__(dataset)
        self._converter = converter

    def convert(self, data):
        if isinstance(data, tuple):
            return self._converter(*data)
        if isinstance(data, dict):
            return self._converter(**data)
        return self._converter(data)
