import gzip
import io
import multiprocessing
import os
import pickle
import threading

import numpy
import pytest

from chainer import datasets

EXAMPLES = [
    (numpy.arange(6, dtype=numpy.float32).reshape(2, 3), 1),
    {"text": "é", "ids": [1, 2, 3]},
    None,
    numpy.zeros((300, 300), dtype=numpy.uint8),  # larger than a pickle frame
    "last",
]


def _assert_same(actual, expected):
    if isinstance(expected, tuple):
        numpy.testing.assert_array_equal(actual[0], expected[0])
        assert actual[1] == expected[1]
    elif isinstance(expected, numpy.ndarray):
        numpy.testing.assert_array_equal(actual, expected)
    else:
        assert actual == expected


def _write_examples(path, protocol=pickle.HIGHEST_PROTOCOL):
    with datasets.open_pickle_dataset_writer(path, protocol=protocol) as writer:
        for example in EXAMPLES:
            writer.write(example)


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_round_trip(tmp_path, protocol):
    path = str(tmp_path / "data.pkl")
    _write_examples(path, protocol)
    with datasets.open_pickle_dataset(path) as ds:
        assert len(ds) == len(EXAMPLES)
        for i in [4, 0, 3, 1, 2, -1]:
            _assert_same(ds[i], EXAMPLES[i])
        assert [x for x in ds[2:5:2]] == [None, "last"]
        with pytest.raises(IndexError, match="index 5 is out of range"):
            ds[5]
        with pytest.raises(IndexError, match="out of range for PickleDataset"):
            ds.get_example(-6)


def test_format_is_concatenated_pickles(tmp_path):
    # The file format is Chainer's: pickles one after another.
    path = tmp_path / "data.pkl"
    path.write_bytes(pickle.dumps("a") + pickle.dumps([1, 2], protocol=2))
    with datasets.open_pickle_dataset(str(path)) as ds:
        assert list(ds) == ["a", [1, 2]]
    buffer = io.BytesIO()
    writer = datasets.PickleDatasetWriter(buffer, protocol=3)
    writer.write("x")
    writer.write(2)
    writer.flush()
    buffer.seek(0)
    assert pickle.load(buffer) == "x"
    assert pickle.load(buffer) == 2


def test_reader_and_writer_over_file_objects(tmp_path):
    path = tmp_path / "data.pkl"
    with open(path, "wb") as f:
        writer = datasets.PickleDatasetWriter(f)
        writer.write(1)
        writer.write("two")
    with open(path, "rb") as f:
        ds = datasets.PickleDataset(f)
        assert list(ds) == [1, "two"]
    with gzip.open(path.with_suffix(".gz"), "wb") as f:
        writer = datasets.PickleDatasetWriter(f)
        for example in EXAMPLES:
            writer.write(example)
    with gzip.open(path.with_suffix(".gz"), "rb") as f:
        ds = datasets.PickleDataset(f)  # not a plain file: read under a lock
        _assert_same(ds[3], EXAMPLES[3])
        _assert_same(ds[0], EXAMPLES[0])


def test_empty_file(tmp_path):
    path = tmp_path / "empty.pkl"
    path.write_bytes(b"")
    with datasets.open_pickle_dataset(str(path)) as ds:
        assert len(ds) == 0


def test_truncated_file_is_an_error(tmp_path):
    path = tmp_path / "cut.pkl"
    first = pickle.dumps("ok")
    path.write_bytes(first + pickle.dumps(list(range(100)))[:-5])
    with pytest.raises(
        ValueError,
        match=f"byte offset {len(first)} .*example 1.* truncated or corrupt",
    ):
        datasets.open_pickle_dataset(str(path))


def test_bad_readers():
    with pytest.raises(TypeError, match="binary file object, got list"):
        datasets.PickleDataset([1, 2])

    class Pipe(io.RawIOBase):
        def readable(self):
            return True

    with pytest.raises(ValueError, match="random access"):
        datasets.PickleDataset(Pipe())
    with pytest.raises(ValueError, match="binary mode"):
        datasets.PickleDataset(io.StringIO("abc"))


def test_bad_writers(tmp_path):
    with pytest.raises(TypeError, match="binary file object, got int"):
        datasets.PickleDatasetWriter(3)
    with pytest.raises(ValueError, match="protocol must be an integer from 0 to 5"):
        datasets.PickleDatasetWriter(io.BytesIO(), protocol=9)
    with pytest.raises(ValueError, match="protocol"):
        datasets.open_pickle_dataset_writer(str(tmp_path / "x.pkl"), protocol="5")
    assert not (tmp_path / "x.pkl").exists()


def test_unpicklable_example_leaves_file_intact():
    buffer = io.BytesIO()
    writer = datasets.PickleDatasetWriter(buffer)
    writer.write(1)
    with pytest.raises(Exception):
        writer.write(lambda: 0)
    writer.write(2)
    assert list(datasets.PickleDataset(buffer)) == [1, 2]


@pytest.fixture
def out(tmp_path):
    """An empty folder for the files a test writes (tmp_path holds others)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def test_writer_file_appears_only_when_closed(out):
    path = out / "data.pkl"
    path.write_bytes(pickle.dumps("old"))
    writer = datasets.open_pickle_dataset_writer(str(path))
    writer.write("new")
    writer.flush()
    with datasets.open_pickle_dataset(str(path)) as ds:
        assert list(ds) == ["old"]
    writer.close()
    with datasets.open_pickle_dataset(str(path)) as ds:
        assert list(ds) == ["new"]
    assert os.listdir(out) == ["data.pkl"]


def test_writer_discards_on_error(out):
    path = out / "data.pkl"
    with pytest.raises(RuntimeError), datasets.open_pickle_dataset_writer(path) as w:
        w.write("half")
        raise RuntimeError("stop")
    assert os.listdir(out) == []


def test_writer_never_closed_leaves_nothing(out):
    writer = datasets.open_pickle_dataset_writer(str(out / "data.pkl"))
    writer.write(1)
    del writer
    assert os.listdir(out) == []


def test_threads(tmp_path):
    path = str(tmp_path / "data.pkl")
    with datasets.open_pickle_dataset_writer(path) as writer:
        for i in range(500):
            writer.write((i, str(i) * (i % 13)))
    errors = []
    with datasets.open_pickle_dataset(path) as ds:

        def read(offset):
            try:
                for i in range(offset, 500, 5):
                    assert ds[i] == (i, str(i) * (i % 13))
            except Exception as e:  # reported to the main thread
                errors.append(e)

        threads = [threading.Thread(target=read, args=(k,)) for k in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []


def _read_all(ds, queue):
    queue.put([ds[i] for i in range(len(ds))])


def test_forked_child_reads_while_parent_reads(tmp_path):
    path = str(tmp_path / "data.pkl")
    expected = [(i, "x" * (i % 50)) for i in range(2000)]
    with datasets.open_pickle_dataset_writer(path) as writer:
        for example in expected:
            writer.write(example)
    with datasets.open_pickle_dataset(path) as ds:
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_read_all, args=(ds, queue))
        child.start()
        mine = [ds[i] for i in reversed(range(len(ds)))]
        theirs = queue.get(timeout=60)
        child.join(timeout=60)
    assert child.exitcode == 0
    assert theirs == expected
    assert mine == expected[::-1]


def test_pickling_the_dataset(tmp_path):
    path = str(tmp_path / "data.pkl")
    _write_examples(path)
    with datasets.open_pickle_dataset(path) as ds:
        clone = pickle.loads(pickle.dumps(ds))
    with clone:
        _assert_same(clone[3], EXAMPLES[3])
    buffer = io.BytesIO(pickle.dumps("a"))
    clone = pickle.loads(pickle.dumps(datasets.PickleDataset(buffer)))
    assert clone[0] == "a"


def test_reading_after_the_reader_is_closed(tmp_path):
    path = tmp_path / "data.pkl"
    path.write_bytes(pickle.dumps("a"))
    with open(path, "rb") as f:
        ds = datasets.PickleDataset(f)
    with pytest.raises(ValueError, match="reader is closed"):
        ds[0]
    ds = datasets.open_pickle_dataset(str(path))
    ds.close()
    with pytest.raises(ValueError, match="reader is closed"):
        ds[0]


def test_writer_to_missing_folder(tmp_path):
    path = str(tmp_path / "missing" / "data.pkl")
    with pytest.raises(FileNotFoundError) as info:
        datasets.open_pickle_dataset_writer(path)
    assert any("data.pkl" in note for note in info.value.__notes__)
