"""A tabular dataset that forwards everything to another one."""

from __future__ import annotations

from chainer.dataset.tabular import tabular_dataset


class DelegateDataset(tabular_dataset.TabularDataset):
    """A helper to implement a TabularDataset by wrapping another one.

    Subclasses typically build a dataset with
    :func:`~chainer.dataset.tabular.from_data` in ``__init__`` and hand it to
    this class, which provides every method by delegation.

    Args:
        dataset (chainer.dataset.TabularDataset): The underlying dataset.

    Example:
        >>> import numpy as np
        >>> from chainer.dataset import tabular
        >>> class MyDataset(tabular.DelegateDataset):
        ...     def __init__(self):
        ...         super().__init__(tabular.from_data((
        ...             ('a', [0, 1, 2]),
        ...             ('b', self.get_b),
        ...             (('c', 'd'), self.get_cd),
        ...         )))
        ...     def get_b(self, i):
        ...         return 'b[{}]'.format(i)
        ...     def get_cd(self, i):
        ...         return {'c': i * 10, 'd': -i}
        >>> ds = MyDataset()
        >>> len(ds), ds.keys
        (3, ('a', 'b', 'c', 'd'))
        >>> ds[1]
        (1, 'b[1]', 10, -1)
    """

    def __init__(self, dataset):
        if not isinstance(dataset, tabular_dataset.TabularDataset):
            raise TypeError(
                f"DelegateDataset wraps a TabularDataset, got {type(dataset).__name__}"
            )
        self.dataset = dataset

    def __len__(self):
        return len(self.dataset)

    @property
    def keys(self):
        return self.dataset.keys

    @property
    def mode(self):
        return self.dataset.mode

    def get_examples(self, indices, key_indices):
        return self.dataset.get_examples(indices, key_indices)
