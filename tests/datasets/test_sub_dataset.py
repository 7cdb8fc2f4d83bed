import numpy
import pytest

from chainer import datasets


def test_range_view():
    base = list(range(10))
    ds = datasets.SubDataset(base, 3, 7)
    assert len(ds) == 4
    assert list(ds) == [3, 4, 5, 6]
    assert ds[-1] == 6
    assert ds.get_example(-4) == 3
    assert ds[1:3] == [4, 5]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        ds.get_example(4)
    with pytest.raises(IndexError, match="index -5 is out of range"):
        ds.get_example(-5)
    with pytest.raises(IndexError):
        ds[4]


def test_order():
    base = ["a", "b", "c", "d"]
    ds = datasets.SubDataset(base, 1, 4, order=numpy.array([3, 1, 0, 2]))
    assert list(ds) == ["b", "a", "c"]
    assert datasets.SubDataset(base, 0, 2, order=[2, 3, 0, 1])[:] == ["c", "d"]


def test_order_gives_plain_int_indices():
    class Recorder:
        def __init__(self):
            self.seen = []

        def __len__(self):
            return 3

        def __getitem__(self, i):
            self.seen.append(i)
            return i

    base = Recorder()
    datasets.SubDataset(base, 0, 3, order=numpy.array([2, 0, 1]))[0]
    assert type(base.seen[0]) is int


@pytest.mark.parametrize(("start", "finish"), [(-1, 3), (0, 11), (5, 4)])
def test_overrun(start, finish):
    with pytest.raises(ValueError, match="overruns the base dataset"):
        datasets.SubDataset(list(range(10)), start, finish)


def test_bad_bounds_type():
    with pytest.raises(TypeError, match="start must be an integer, got float"):
        datasets.SubDataset([1, 2], 0.5, 2)


def test_bad_order():
    base = list(range(4))
    with pytest.raises(ValueError, match=r"len\(order\) = 3 while len\(dataset\) = 4"):
        datasets.SubDataset(base, 0, 2, order=[0, 1, 2])
    with pytest.raises(ValueError, match=r"order holds index 4, outside .*\[0, 4\)"):
        datasets.SubDataset(base, 0, 2, order=[0, 1, 2, 4])
    with pytest.raises(ValueError, match="order holds index -1"):
        datasets.SubDataset(base, 0, 2, order=[0, 1, 2, -1])
    with pytest.raises(TypeError, match="integer indices, got dtype float64"):
        datasets.SubDataset(base, 0, 2, order=[0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="1-d sequence"):
        datasets.SubDataset(base, 0, 2, order=numpy.zeros((2, 2), int))


def test_split_dataset():
    base = list(range(10))
    first, second = datasets.split_dataset(base, 3)
    assert list(first) == [0, 1, 2]
    assert list(second) == list(range(3, 10))
    first, second = datasets.split_dataset(base, numpy.int64(0), order=base[::-1])
    assert list(first) == []
    assert list(second) == base[::-1]
    first, second = datasets.split_dataset(base, 10)
    assert len(first) == 10
    assert len(second) == 0


def test_split_dataset_errors():
    base = list(range(10))
    with pytest.raises(TypeError, match="split_at must be int, got float"):
        datasets.split_dataset(base, 0.7)
    with pytest.raises(ValueError, match="split_at must be non-negative, got -1"):
        datasets.split_dataset(base, -1)
    with pytest.raises(
        ValueError, match=r"split_at \(11\) exceeds the dataset size \(10\)"
    ):
        datasets.split_dataset(base, 11)


def test_split_dataset_random_is_chainer_permutation():
    base = list(range(20))
    first, second = datasets.split_dataset_random(base, 7, seed=42)
    expected = numpy.random.RandomState(42).permutation(20).tolist()
    assert list(first) == expected[:7]
    assert list(second) == expected[7:]
    again, _ = datasets.split_dataset_random(base, 7, seed=42)
    assert list(again) == list(first)


def test_split_dataset_random_mushrooms_recipe():
    # The seed's recipe: split a TupleDataset 70/30.
    x = numpy.arange(20).reshape(10, 2)
    y = numpy.arange(10)
    train, test = datasets.split_dataset_random(
        datasets.TupleDataset(x, y), int(x.shape[0] * 0.7), seed=0
    )
    assert (len(train), len(test)) == (7, 3)
    labels = sorted(int(t) for _, t in list(train) + list(test))
    assert labels == list(range(10))


def test_split_dataset_n():
    base = list(range(11))
    parts = datasets.split_dataset_n(base, 3)
    # Equal sizes, len // n; the remainder (the last examples) is left out.
    assert [list(p) for p in parts] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    parts = datasets.split_dataset_n(base, 2, order=base[::-1])
    assert [list(p) for p in parts] == [[10, 9, 8, 7, 6], [5, 4, 3, 2, 1]]
    parts = datasets.split_dataset_n([1, 2], 3)
    assert [list(p) for p in parts] == [[], [], []]


def test_split_dataset_n_errors():
    with pytest.raises(ValueError, match="n must be a positive integer, got 0"):
        datasets.split_dataset_n([1, 2], 0)
    with pytest.raises(TypeError, match="n must be an integer, got float"):
        datasets.split_dataset_n([1, 2], 2.0)


def test_split_dataset_n_random():
    base = list(range(10))
    parts = datasets.split_dataset_n_random(base, 3, seed=5)
    expected = numpy.random.RandomState(5).permutation(10).tolist()
    assert [list(p) for p in parts] == [expected[:3], expected[3:6], expected[6:9]]


def _check_folds(splits, n_examples):
    tests = [sorted(test) for _, test in splits]
    union = sorted(i for t in tests for i in t)
    assert union == list(range(n_examples))
    sizes = [len(t) for t in tests]
    assert max(sizes) - min(sizes) <= 1
    for train, test in splits:
        assert sorted(list(train) + list(test)) == list(range(n_examples))


def test_cross_validation_folds():
    base = list(range(10))
    splits = datasets.get_cross_validation_datasets(base, 3)
    assert len(splits) == 3
    assert all(isinstance(s, tuple) and len(s) == 2 for s in splits)
    # Chainer's fold order: the first split tests on the last fold.
    assert [list(test) for _, test in splits] == [[6, 7, 8, 9], [3, 4, 5], [0, 1, 2]]
    assert list(splits[1][0]) == [6, 7, 8, 9, 0, 1, 2]
    _check_folds(splits, 10)


@pytest.mark.parametrize(("n_examples", "n_folds"), [(10, 1), (7, 7), (3, 5), (0, 2)])
def test_cross_validation_edge_sizes(n_examples, n_folds):
    splits = datasets.get_cross_validation_datasets(list(range(n_examples)), n_folds)
    assert len(splits) == n_folds
    _check_folds(splits, n_examples)


def test_cross_validation_with_order():
    base = list(range(6))
    order = [5, 4, 3, 2, 1, 0]
    splits = datasets.get_cross_validation_datasets(base, n_folds=2, order=order)
    assert [list(test) for _, test in splits] == [[2, 1, 0], [5, 4, 3]]


def test_cross_validation_random():
    base = list(range(9))
    splits = datasets.get_cross_validation_datasets_random(base, 3, seed=1)
    order = numpy.random.RandomState(1).permutation(9)
    expected = datasets.get_cross_validation_datasets(base, 3, order=order)
    assert [list(t) for _, t in splits] == [list(t) for _, t in expected]
    _check_folds(splits, 9)


def test_cross_validation_n_fold_is_deprecated():
    base = list(range(6))
    with pytest.warns(DeprecationWarning, match="n_fold argument is deprecated"):
        splits = datasets.get_cross_validation_datasets(base, n_fold=3)
    assert len(splits) == 3
    with pytest.warns(DeprecationWarning):
        splits = datasets.get_cross_validation_datasets_random(base, 2, n_fold=2)
    assert len(splits) == 2


def test_cross_validation_errors():
    base = list(range(6))
    with pytest.raises(TypeError, match="n_folds, is required"):
        datasets.get_cross_validation_datasets(base)
    with pytest.raises(ValueError, match="n_folds must be a positive integer, got 0"):
        datasets.get_cross_validation_datasets(base, 0)
    with pytest.raises(TypeError, match="unexpected keyword arguments: folds"):
        datasets.get_cross_validation_datasets(base, 2, folds=3)
    with pytest.raises(ValueError, match=r"len\(order\) = 2"):
        datasets.get_cross_validation_datasets(base, 2, order=[0, 1])
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="disagree"):
        datasets.get_cross_validation_datasets(base, 2, n_fold=3)


def test_cross_validation_copies_order():
    order = numpy.arange(6)[::-1].copy()
    splits = datasets.get_cross_validation_datasets(list(range(6)), 2, order=order)
    before = [list(t) for _, t in splits]
    order[:] = 0
    assert [list(t) for _, t in splits] == before
