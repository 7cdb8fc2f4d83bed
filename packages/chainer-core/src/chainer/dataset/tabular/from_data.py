"""Building a tabular dataset from lists, arrays and callables."""

from __future__ import annotations

import itertools

from chainer.dataset.tabular import _index
from chainer.dataset.tabular import tabular_dataset

# Unnamed columns get unique keys so that datasets built from them can be
# joined with each other.
_unnamed = itertools.count()


def _is_key_tuple(obj):
    return isinstance(obj, tuple) and obj and all(isinstance(k, str) for k in obj)


def _is_sequence(obj):
    return (
        hasattr(obj, "__len__")
        and hasattr(obj, "__getitem__")
        and not isinstance(obj, (str, bytes, dict, tuple))
    )


def _is_single_spec(data):
    return len(data) == 2 and (
        isinstance(data[0], str) or (_is_key_tuple(data[0]) and callable(data[1]))
    )


def _column(keys, source):
    """Returns (keys, source, is_callable) for one entry of ``data``."""
    if len(keys) == 1 and _is_sequence(source):
        return keys, source, False
    if callable(source):
        return keys, source, True
    if len(keys) > 1:
        raise TypeError(
            f"columns {keys} must be computed by a callable, got "
            f"{type(source).__name__}"
        )
    raise TypeError(
        f"column {keys[0]!r} must be a list, an array or a callable, got "
        f"{type(source).__name__}"
    )


def _parse(spec):
    if isinstance(spec, tuple):
        if not _is_single_spec(spec):
            raise TypeError(
                "a column is given as a list/array, (key, list/array/callable) or "
                f"((key, ...), callable), got a tuple of length {len(spec)}"
            )
        key, source = spec
        return _column((key,) if isinstance(key, str) else key, source)
    if _is_sequence(spec):
        return (f"_{next(_unnamed)}",), spec, False
    raise TypeError(
        f"a column must be a list, an array or a (key, data) pair, got "
        f"{type(spec).__name__}"
    )


def from_data(data, *, size=None):
    """Creates a TabularDataset from lists, arrays and callables.

    Args:
        data: The columns, in one of these forms:

            - ``list/array``: one unnamed column.
            - ``(str, list/array/callable)``: one named column.
            - ``((str, ...), callable)``: several columns computed together.
            - a tuple of the forms above: several columns.
            - ``{str: list/array/callable, (str, ...): callable, ...}``.

            A callable is called with a row index and returns the value, or a
            tuple/dict of values for several keys.
        size (int): The number of rows. It is required when ``data`` has no
            list or array to take the length from.

    Returns:
        A :class:`~chainer.dataset.TabularDataset`. Its :attr:`mode` is
        :class:`tuple` if ``data`` is a tuple of columns, :class:`dict` if it
        is a dict, and ``None`` for a single column.

    Example:
        >>> from chainer.dataset import tabular
        >>> tabular.from_data([0, 1, 2])[0]
        0
        >>> ds = tabular.from_data((('a', [0, 1, 2]), ('b', [3, 4, 5])))
        >>> ds.keys, ds[1]
        (('a', 'b'), (1, 4))
        >>> tabular.from_data({'a': [0, 1], 'b': [2, 3]})[0]
        {'a': 0, 'b': 2}
        >>> tabular.from_data(('a', lambda i: i * i), size=10)[5]
        25
    """
    if isinstance(data, dict):
        mode = dict
        columns = []
        for key, source in data.items():
            if isinstance(key, str):
                columns.append(_column((key,), source))
            elif _is_key_tuple(key):
                columns.append(_column(key, source))
            else:
                raise TypeError(
                    f"dict keys must be strings or tuples of strings, got {key!r}"
                )
    elif isinstance(data, tuple) and not _is_single_spec(data):
        mode = tuple
        columns = [_parse(spec) for spec in data]
    else:
        columns = [_parse(data)]
        mode = None if len(columns[0][0]) == 1 else tuple
    if not columns:
        raise ValueError("from_data needs at least one column")
    return _FromData(columns, mode, size)


class _FromData(tabular_dataset.TabularDataset):
    """Columns held as lists/arrays or computed by callables."""

    def __init__(self, columns, mode, size):
        keys = [key for column_keys, _, _ in columns for key in column_keys]
        if len(set(keys)) != len(keys):
            raise ValueError(f"keys must be unique, got {tuple(keys)}")
        for _, source, is_callable in columns:
            if is_callable:
                continue
            if size is None:
                size = len(source)
            elif len(source) != size:
                raise ValueError(
                    f"all columns must have the same length, got {len(source)} "
                    f"and {size}"
                )
        if size is None:
            raise ValueError("size is required when data has no list or array")
        if not isinstance(size, int) or size < 0:
            raise ValueError(f"size must be a non-negative int, got {size!r}")
        self._columns = columns
        self._keys = tuple(keys)
        self._mode = mode
        self._len = size
        # key position -> (column number, position within that column's keys)
        self._where = [
            (c, j)
            for c, (column_keys, _, _) in enumerate(columns)
            for j in range(len(column_keys))
        ]

    def __len__(self):
        return self._len

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            key_indices = range(len(self._keys))
        computed = {}
        result = []
        for k in key_indices:
            c, j = self._where[k]
            column_keys, source, is_callable = self._columns[c]
            if not is_callable:
                result.append(_index.take(source, indices))
                continue
            rows = computed.get(c)
            if rows is None:
                rows = computed[c] = [
                    source(i) for i in _index.iter_rows(indices, self._len)
                ]
            if len(column_keys) == 1:
                result.append(rows)
            else:
                result.append([_pick(row, column_keys, j) for row in rows])
        return tuple(result)


def _pick(row, keys, j):
    if isinstance(row, dict):
        return row[keys[j]]
    if isinstance(row, (tuple, list)) and len(row) == len(keys):
        return row[j]
    raise ValueError(
        f"the callable for {keys} must return a tuple of {len(keys)} values or a "
        f"dict, got {row!r}"
    )
