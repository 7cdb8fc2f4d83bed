"""Subsets of a dataset, splits and cross-validation folds."""

import operator
import warnings

import numpy

from chainer.dataset import dataset_mixin


def _integer(value, name):
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{name} must be an integer, got {type(value).__name__} ({value!r})"
        ) from None


def _check_order(order, length):
    array = numpy.asarray(order)
    if array.ndim != 1:
        raise ValueError(
            f"order must be a 1-d sequence of indices, got shape {array.shape}"
        )
    if len(array) != length:
        raise ValueError(
            "order must have the same length as the base dataset: "
            f"len(order) = {len(array)} while len(dataset) = {length}"
        )
    if length == 0:
        return array.astype(numpy.intp)
    if array.dtype.kind not in "iu":
        raise TypeError(f"order must hold integer indices, got dtype {array.dtype}")
    low, high = array.min(), array.max()
    if low < 0 or high >= length:
        bad = low if low < 0 else high
        raise ValueError(
            f"order holds index {bad}, outside the base dataset's range [0, {length})"
        )
    return array.astype(numpy.intp, copy=False)


class SubDataset(dataset_mixin.DatasetMixin):
    """Subset of a base dataset, a view through an optional index order.

    The subset holds the examples at positions ``start`` to ``finish - 1`` of
    the base dataset, or, when ``order`` is given, at positions
    ``order[start]`` to ``order[finish - 1]``. Nothing is copied: each access
    reads the base dataset.

    Example:
        >>> from chainer.datasets import SubDataset
        >>> base = ["a", "b", "c", "d"]
        >>> list(SubDataset(base, 1, 3))
        ['b', 'c']
        >>> list(SubDataset(base, 0, 2, order=[3, 2, 1, 0]))
        ['d', 'c']

    Args:
        dataset: The base dataset.
        start (int): First position (inclusive) of the subset in the
            (reordered) base dataset.
        finish (int): Last position (exclusive) of the subset in the
            (reordered) base dataset.
        order (sequence of ints): Permutation of the base dataset's indices
            that is applied before taking the range; ``None`` keeps the base
            dataset's order. Its length must be the base dataset's length.
    """

    def __init__(self, dataset, start, finish, order=None):
        start = _integer(start, "start")
        finish = _integer(finish, "finish")
        length = len(dataset)
        if start < 0 or finish > length or start > finish:
            raise ValueError(
                f"subset [{start}, {finish}) overruns the base dataset, whose "
                f"length is {length} (need 0 <= start <= finish <= {length})"
            )
        self._dataset = dataset
        self._start = start
        self._finish = finish
        self._size = finish - start
        self._order = None if order is None else _check_order(order, length)

    def __len__(self):
        return self._size

    def get_example(self, i):
        """Returns the i-th example of the subset.

        Args:
            i (int): Index in the subset; negative values count from the end.

        Returns:
            The corresponding example of the base dataset.
        """
        if i >= 0:
            if i >= self._size:
                raise IndexError(
                    f"index {i} is out of range for SubDataset of length {self._size}"
                )
            index = self._start + i
        else:
            if i < -self._size:
                raise IndexError(
                    f"index {i} is out of range for SubDataset of length {self._size}"
                )
            index = self._finish + i
        if self._order is not None:
            index = int(self._order[index])
        return self._dataset[index]


def split_dataset(dataset, split_at, order=None):
    """Splits a dataset into two subsets.

    The first subset holds the examples at positions ``[0, split_at)`` and the
    second those at ``[split_at, len(dataset))``, positions being taken in
    ``order`` when it is given. Both are :class:`SubDataset` views.

    Args:
        dataset: Dataset to split.
        split_at (int): Position at which the dataset is split; the length
            of the first subset.
        order (sequence of ints): Permutation of the dataset's indices used
            before splitting; ``None`` keeps the dataset's order.

    Returns:
        tuple: Two :class:`SubDataset` objects, the first and second parts.
    """
    if isinstance(split_at, bool) or not isinstance(split_at, (int, numpy.integer)):
        raise TypeError(f"split_at must be int, got {type(split_at).__name__} instead")
    n_examples = len(dataset)
    if split_at < 0:
        raise ValueError(f"split_at must be non-negative, got {split_at}")
    if split_at > n_examples:
        raise ValueError(
            f"split_at ({split_at}) exceeds the dataset size ({n_examples})"
        )
    first = SubDataset(dataset, 0, split_at, order)
    second = SubDataset(dataset, split_at, n_examples, first._order)
    return first, second


def split_dataset_random(dataset, first_size, seed=None):
    """Splits a dataset into two subsets at random.

    The dataset is shuffled by a permutation drawn from
    ``numpy.random.RandomState(seed)`` (so a given seed gives the same split
    as Chainer) and split so that the first subset has ``first_size``
    examples.

    Args:
        dataset: Dataset to split.
        first_size (int): Length of the first subset.
        seed (int): Seed of the permutation; ``None`` draws a fresh seed.

    Returns:
        tuple: Two :class:`SubDataset` objects, the first and second parts.
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset(dataset, first_size, order)


def _check_parts(n, name):
    n = _integer(n, name)
    if n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n}")
    return n


def split_dataset_n(dataset, n, order=None):
    """Splits a dataset into ``n`` subsets.

    Each subset has ``len(dataset) // n`` examples, in order; the remaining
    ``len(dataset) % n`` examples (the last ones) belong to no subset.

    Args:
        dataset: Dataset to split.
        n (int): Number of subsets.
        order (sequence of ints): Permutation of the dataset's indices used
            before splitting; ``None`` keeps the dataset's order.

    Returns:
        list: ``n`` :class:`SubDataset` objects.
    """
    n = _check_parts(n, "n")
    n_examples = len(dataset)
    if order is not None:
        order = _check_order(order, n_examples)
    size = n_examples // n
    return [SubDataset(dataset, size * k, size * (k + 1), order) for k in range(n)]


def split_dataset_n_random(dataset, n, seed=None):
    """Splits a dataset into ``n`` subsets at random.

    The dataset is shuffled by a permutation drawn from
    ``numpy.random.RandomState(seed)`` and then split as by
    :func:`split_dataset_n`: each subset has ``len(dataset) // n`` examples
    and the remaining ones are left out.

    Args:
        dataset: Dataset to split.
        n (int): Number of subsets.
        seed (int): Seed of the permutation; ``None`` draws a fresh seed.

    Returns:
        list: ``n`` :class:`SubDataset` objects.
    """
    n = _check_parts(n, "n")
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)


def _n_folds_argument(n_folds, kwargs):
    if "n_fold" in kwargs:
        n_fold = kwargs.pop("n_fold")
        warnings.warn(
            "the n_fold argument is deprecated; use n_folds instead",
            DeprecationWarning,
        )
        if n_folds is not None and n_folds != n_fold:
            raise TypeError(
                f"n_folds ({n_folds}) and its deprecated alias n_fold ({n_fold}) "
                "disagree; pass n_folds only"
            )
        n_folds = n_fold
    if kwargs:
        raise TypeError(f"unexpected keyword arguments: {', '.join(sorted(kwargs))}")
    if n_folds is None:
        raise TypeError("the number of folds, n_folds, is required")
    return _check_parts(n_folds, "n_folds")


def get_cross_validation_datasets(dataset, n_folds=None, order=None, **kwargs):
    """Creates the training/test splits of ``n_folds``-fold cross validation.

    The test subsets of the splits do not overlap and together cover the
    whole dataset; their sizes differ by at most one. The training subset of
    each split holds every example that is not in its test subset. The
    ``k``-th split tests on the ``k``-th fold counted from the end of
    ``order``, as in Chainer.

    Args:
        dataset: Dataset to split.
        n_folds (int): Number of folds (and of splits).
        order (sequence of ints): Permutation of the dataset's indices used
            to form the folds; ``None`` keeps the dataset's order.
        n_fold (int): Deprecated alias of ``n_folds`` (a keyword argument;
            it gives a :class:`DeprecationWarning`).

    Returns:
        list of tuples: ``n_folds`` pairs ``(train, test)`` of
        :class:`SubDataset` objects.
    """
    n_folds = _n_folds_argument(n_folds, dict(kwargs))
    whole_size = len(dataset)
    if order is None:
        order = numpy.arange(whole_size)
    else:
        # A copy: the splits must not change if the caller's array does.
        order = _check_order(order, whole_size).copy()
    borders = [whole_size * k // n_folds for k in range(n_folds + 1)]
    test_sizes = [borders[k + 1] - borders[k] for k in range(n_folds)]
    splits = []
    for test_size in reversed(test_sizes):
        splits.append(split_dataset(dataset, whole_size - test_size, order))
        # Rotating the order moves the fold just used to the front, so the
        # next test fold sits at the end again.
        order = numpy.roll(order, test_size)
    return splits


def get_cross_validation_datasets_random(dataset, n_folds, seed=None, **kwargs):
    """Creates the splits of ``n_folds``-fold cross validation at random.

    The dataset is shuffled by a permutation drawn from
    ``numpy.random.RandomState(seed)`` before the folds are formed as by
    :func:`get_cross_validation_datasets`.

    Args:
        dataset: Dataset to split.
        n_folds (int): Number of folds (and of splits).
        seed (int): Seed of the permutation; ``None`` draws a fresh seed.
        n_fold (int): Deprecated alias of ``n_folds`` (a keyword argument;
            it gives a :class:`DeprecationWarning`).

    Returns:
        list of tuples: ``n_folds`` pairs ``(train, test)`` of
        :class:`SubDataset` objects.
    """
    n_folds = _n_folds_argument(n_folds, dict(kwargs))
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return get_cross_validation_datasets(dataset, n_folds, order)
