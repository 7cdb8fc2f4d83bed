"""The abstract tabular dataset and its row/column access."""

from __future__ import annotations

import abc

import numpy

from chainer.dataset import dataset_mixin
from chainer.dataset.tabular import _index


def _rows_from_columns(columns, keys, mode):
    if mode is tuple:
        return list(zip(*columns, strict=True))
    if mode is dict:
        return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]
    return list(columns[0])


def _example_from_columns(columns, keys, mode):
    if mode is tuple:
        return tuple(col[0] for col in columns)
    if mode is dict:
        return {key: col[0] for key, col in zip(keys, columns, strict=True)}
    return columns[0][0]


class TabularDataset(dataset_mixin.DatasetMixin, metaclass=abc.ABCMeta):
    """An abstract class that represents a tabular dataset.

    In a tabular dataset all examples have the same elements, the columns,
    each with a name (:attr:`keys`). An example is represented as a tuple
    (``(a[i], b[i])``) or a dict (``{'a': a[i], 'b': b[i]}``), as :attr:`mode`
    says; a dataset with one column may also represent an example by the
    value alone (``a[i]``), in which case :attr:`mode` is ``None``.

    Subclasses implement ``__len__``, :attr:`keys`, :attr:`mode` and
    :meth:`get_examples`. Everything else, indexing, :attr:`slice` views,
    :meth:`fetch`, and the combinators, is built on those.

    Example:
        >>> import numpy as np
        >>> from chainer import dataset
        >>> class MyDataset(dataset.TabularDataset):
        ...     def __len__(self):
        ...         return 4
        ...     @property
        ...     def keys(self):
        ...         return ('a', 'b', 'c')
        ...     @property
        ...     def mode(self):
        ...         return tuple
        ...     def get_examples(self, indices, key_indices):
        ...         data = np.arange(12).reshape((4, 3))
        ...         if indices is not None:
        ...             data = data[indices]
        ...         if key_indices is not None:
        ...             data = data[:, list(key_indices)]
        ...         return tuple(data.T.tolist())
        >>> ds = MyDataset()
        >>> ds[0], sorted(ds.asdict()[0].items())
        ((0, 1, 2), [('a', 0), ('b', 1), ('c', 2)])
        >>> view = ds.slice[[3, 2], ('c', 0)]
        >>> view.keys, view[1]
        (('c', 'a'), (8, 6))
    """

    @abc.abstractmethod
    def __len__(self):
        """Returns the number of rows."""

    @property
    @abc.abstractmethod
    def keys(self):
        """Names of the columns, a tuple of strings."""

    @property
    @abc.abstractmethod
    def mode(self):
        """How an example is represented: :class:`tuple`, :class:`dict` or None.

        It sets the type of what :meth:`__getitem__` and :meth:`fetch` return;
        ``None`` is allowed only for a single column.
        """

    @abc.abstractmethod
    def get_examples(self, indices, key_indices):
        """Returns a part of the data, column by column.

        Args:
            indices (slice, list of ints or None): Requested rows; ``None``
                means all rows.
            key_indices (tuple of ints or None): Positions of the requested
                columns in :attr:`keys`; ``None`` means all columns.

        Returns:
            tuple: One list or array per requested column, in the order of
            ``key_indices``.
        """

    def __getitem__(self, index):
        """Returns an example, or a list of examples, in :attr:`mode`.

        Args:
            index (int, slice, list or numpy.ndarray): An integer (negative
                counts from the end), a slice, a list of integers, or an
                integer or boolean array.

        Returns:
            An example for an integer index, otherwise a list of examples.
        """
        if isinstance(index, (slice, list, numpy.ndarray)):
            rows = _index.normalize_rows(index, len(self))
            columns = self.get_examples(rows, None)
            return _rows_from_columns(columns, self.keys, self.mode)
        try:
            i = _index.normalize_int(index, len(self))
        except TypeError:
            raise TypeError(
                "a tabular dataset is indexed by an int, a slice, a list or an "
                f"array, got {type(index).__name__}"
            ) from None
        return self.get_example(i)

    def get_example(self, i):
        """Returns the i-th example in :attr:`mode`.

        Args:
            i (int): Row index.

        Returns:
            The example: a tuple, a dict or a value.
        """
        columns = self.get_examples([i], None)
        return _example_from_columns(columns, self.keys, self.mode)

    def __iter__(self):
        return (self.get_example(i) for i in range(len(self)))

    @property
    def slice(self):
        """A helper to take a view of rows and columns: ``slice[rows, keys]``.

        ``rows`` is a slice, or a list/array of ints or bools. ``keys`` is
        optional: a tuple of names or positions keeps :attr:`mode`, while a
        single name or position gives a one-column view with mode ``None``.
        No data is copied.

        Returns:
            An object whose ``[...]`` returns the view, a TabularDataset.
        """
        from chainer.dataset.tabular import _slice

        return _slice._SliceHelper(self)

    def fetch(self):
        """Fetches all data, column by column.

        Returns:
            For mode :class:`tuple`, a tuple of lists/arrays; for :class:`dict`,
            a dict of lists/arrays keyed by column name; for ``None``, the
            single column.
        """
        columns = self.get_examples(None, None)
        if self.mode is tuple:
            return tuple(columns)
        if self.mode is dict:
            return dict(zip(self.keys, columns, strict=True))
        return columns[0]

    def convert(self, data):
        """Converts fetched data for the model.

        By default each column becomes an array. :meth:`with_converter`
        replaces this; views made by :meth:`concat` and :meth:`join` use the
        converter of their first dataset.

        Args:
            data (tuple, dict or column): Data from :meth:`fetch`.

        Returns:
            The same structure with every column as an array.
        """
        if isinstance(data, tuple):
            return tuple(_index.as_array(d) for d in data)
        if isinstance(data, dict):
            return {k: _index.as_array(v) for k, v in data.items()}
        return _index.as_array(data)

    def astuple(self):
        """Returns a view whose examples are tuples.

        Returns:
            A TabularDataset with mode :class:`tuple`.
        """
        from chainer.dataset.tabular import _asmode

        return _asmode._AsTuple(self)

    def asdict(self):
        """Returns a view whose examples are dicts keyed by column name.

        Returns:
            A TabularDataset with mode :class:`dict`.
        """
        from chainer.dataset.tabular import _asmode

        return _asmode._AsDict(self)

    def concat(self, *datasets):
        """Stacks the rows of datasets with the same keys after this one.

        Args:
            *datasets (TabularDataset): Datasets to append.

        Returns:
            A TabularDataset with ``len(self) + sum(map(len, datasets))`` rows.
        """
        from chainer.dataset.tabular import _concat

        return _concat._Concat(self, *datasets)

    def join(self, *datasets):
        """Puts the columns of datasets with the same length beside this one.

        Args:
            *datasets (TabularDataset): Datasets whose keys differ from all
                others.

        Returns:
            A TabularDataset whose keys are the keys of all datasets in order.
        """
        from chainer.dataset.tabular import _join

        return _join._Join(self, *datasets)

    def transform(self, keys, transform):
        """Applies a function to each example.

        ``transform`` receives an example as ``*example`` for mode
        :class:`tuple`, ``**example`` for :class:`dict`, or the value for
        ``None``. It returns a tuple, a dict or a single value, which fixes
        the mode of the result.

        Args:
            keys (str or tuple of str): Names of the output columns.
            transform (callable): The function.

        Returns:
            A TabularDataset of the transformed examples.
        """
        from chainer.dataset.tabular import _transform

        return _transform._Transform(self, keys, transform)

    def transform_batch(self, keys, transform_batch):
        """Applies a function to whole columns of a batch of rows.

        ``transform_batch`` receives the columns the way :meth:`transform`
        receives an example and returns a tuple, a dict or one column with an
        entry per row.

        Args:
            keys (str or tuple of str): Names of the output columns.
            transform_batch (callable): The function.

        Returns:
            A TabularDataset of the transformed columns.
        """
        from chainer.dataset.tabular import _transform

        return _transform._TransformBatch(self, keys, transform_batch)

    def with_converter(self, converter):
        """Returns a view whose :meth:`convert` calls ``converter``.

        The converter receives fetched data as ``*data`` for a tuple,
        ``**data`` for a dict, or the column itself.

        Args:
            converter (callable): The new converter.

        Returns:
            A TabularDataset with the same data.
        """
        from chainer.dataset.tabular import _asmode

        return _asmode._WithConverter(self, converter)
