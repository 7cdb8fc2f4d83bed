"""Views that compute new columns from examples or from whole batches."""

from __future__ import annotations

from chainer.dataset.tabular import tabular_dataset

_UNKNOWN = object()


def _normalize_keys(keys):
    if isinstance(keys, str):
        return (keys,)
    if isinstance(keys, tuple) and keys and all(isinstance(k, str) for k in keys):
        if len(set(keys)) != len(keys):
            raise ValueError(f"output keys must be unique, got {keys}")
        return keys
    raise TypeError(f"keys must be a string or a tuple of strings, got {keys!r}")


def _call(func, mode, keys, values):
    if mode is tuple:
        return func(*values)
    if mode is dict:
        return func(**dict(zip(keys, values, strict=True)))
    return func(values[0])


class _TransformBase(tabular_dataset.TabularDataset):
    _what = "transform"

    def __init__(self, dataset, keys, func):
        if not isinstance(dataset, tabular_dataset.TabularDataset):
            raise TypeError(f"expected a TabularDataset, got {type(dataset).__name__}")
        if not callable(func):
            raise TypeError(f"{self._what} must be callable, got {func!r}")
        self._dataset = dataset
        self._unary_keys = isinstance(keys, str)
        self._keys = _normalize_keys(keys)
        self._func = func
        self._mode = _UNKNOWN

    def __len__(self):
        return len(self._dataset)

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        if self._mode is _UNKNOWN:
            if len(self._dataset) == 0:
                # Nothing to call the function on; go by the keys' form.
                return None if self._unary_keys else tuple
            self.get_examples([0], None)
        return self._mode

    def _split(self, out):
        """Returns the output's values in key order, checking its form."""
        keys = self._keys
        if isinstance(out, tuple):
            mode = tuple
            if len(out) != len(keys):
                raise ValueError(
                    f"{self._what} returned {len(out)} values for the keys {keys}"
                )
            values = out
        elif isinstance(out, dict):
            mode = dict
            missing = [k for k in keys if k not in out]
            if missing:
                raise ValueError(f"{self._what} returned no value for keys {missing}")
            values = tuple(out[k] for k in keys)
        else:
            mode = None
            if len(keys) != 1:
                raise ValueError(
                    f"{self._what} returned a single value for the keys {keys}; "
                    "return a tuple or a dict"
                )
            values = (out,)
        if self._mode is _UNKNOWN:
            self._mode = mode
        elif self._mode is not mode:
            raise ValueError(f"{self._what} must not change its return type")
        return values


class _Transform(_TransformBase):
    """Applies a function to each example."""

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            key_indices = range(len(self._keys))
        dataset = self._dataset
        in_columns = dataset.get_examples(indices, None)
        out_columns = tuple([] for _ in key_indices)
        mode, keys = dataset.mode, dataset.keys
        for row in zip(*in_columns, strict=True):
            values = self._split(_call(self._func, mode, keys, row))
            for column, k in zip(out_columns, key_indices, strict=True):
                column.append(values[k])
        return out_columns


class _TransformBatch(_TransformBase):
    """Applies a function to the columns of a batch of rows."""

    _what = "transform_batch"

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            key_indices = range(len(self._keys))
        dataset = self._dataset
        in_columns = dataset.get_examples(indices, None)
        n_rows = len(in_columns[0])
        out = _call(self._func, dataset.mode, dataset.keys, tuple(in_columns))
        values = self._split(out)
        for key, column in zip(self._keys, values, strict=True):
            if len(column) != n_rows:
                raise ValueError(
                    f"transform_batch returned {len(column)} rows for column "
                    f"{key!r} from a batch of {n_rows}"
                )
        return tuple(values[k] for k in key_indices)
