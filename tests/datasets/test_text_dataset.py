import multiprocessing
import pickle
import threading

import pytest

from chainer import datasets
from chainer.datasets import text_dataset


def _write(path, data):
    path.write_bytes(data)
    return str(path)


@pytest.fixture
def en(tmp_path):
    return _write(tmp_path / "en.txt", b"hello\nworld\ngood night\n")


@pytest.fixture
def fr(tmp_path):
    return _write(tmp_path / "fr.txt", b"bonjour\nle monde\nbonne nuit\n")


def test_single_file(en):
    with datasets.TextDataset(en) as ds:
        assert len(ds) == 3
        assert ds[0] == "hello\n"
        assert ds[-1] == "good night\n"
        assert ds[1:] == ["world\n", "good night\n"]
        assert ds[[2, 0]] == ["good night\n", "hello\n"]
        with pytest.raises(IndexError, match="index 3 is out of range"):
            ds[3]
        with pytest.raises(IndexError, match="index -4 is out of range"):
            ds.get_example(-4)
        assert ds.get_example(-1) == "good night\n"


def test_path_like_and_list(tmp_path, en):
    with datasets.TextDataset(tmp_path / "en.txt") as ds:
        assert ds[1] == "world\n"
    with datasets.TextDataset([en]) as ds:
        assert ds[1] == "world\n"


def test_parallel_files(en, fr):
    with datasets.TextDataset([en, fr], encoding="utf-8") as ds:
        assert len(ds) == 3
        assert ds[1] == ("world\n", "le monde\n")
        assert ds[:1] == [("hello\n", "bonjour\n")]


def test_files_must_have_the_same_number_of_lines(tmp_path, en):
    short = _write(tmp_path / "short.txt", b"one\ntwo\n")
    with pytest.raises(
        ValueError, match=r"en\.txt' has 3 lines and .*short\.txt' has 2"
    ):
        datasets.TextDataset([en, short])


def test_last_line_without_line_end_and_empty_file(tmp_path):
    path = _write(tmp_path / "a.txt", b"a\nb")
    with datasets.TextDataset(path) as ds:
        assert list(ds) == ["a\n", "b"]
    empty = _write(tmp_path / "empty.txt", b"")
    with datasets.TextDataset(empty) as ds:
        assert len(ds) == 0
        assert ds[:] == []


CONTENTS = [
    "",
    "\n",
    "\r",
    "\r\n",
    "a\rb\r\nc\nd",
    "x\r\r\n\n\ry\r",
    "é\r\nü\n\n€\r",
    "no line end",
]


@pytest.mark.parametrize("newline", [None, "", "\n", "\r", "\r\n"])
@pytest.mark.parametrize("encoding", ["utf-8", "latin-1", "utf-16", "utf-8-sig"])
@pytest.mark.parametrize("chunk", [1, 2, 1 << 20])
def test_lines_match_open(tmp_path, monkeypatch, newline, encoding, chunk):
    # Whatever the newline mode and codec (byte-scanned or read in text mode),
    # the examples are the lines open(...).readlines() gives. Tiny chunks put
    # CR/LF pairs across chunk boundaries.
    monkeypatch.setattr(text_dataset, "_CHUNK", chunk)
    for k, content in enumerate(CONTENTS):
        if encoding == "latin-1" and "€" in content:
            continue
        path = _write(tmp_path / f"{k}.txt", content.encode(encoding))
        with open(path, encoding=encoding, newline=newline) as f:
            expected = f.readlines()
        with datasets.TextDataset(path, encoding=encoding, newline=newline) as ds:
            assert list(ds) == expected, (content, newline, encoding)


def test_per_file_options(tmp_path):
    a = _write(tmp_path / "a.txt", "é\r\n".encode("latin-1"))
    b = _write(tmp_path / "b.txt", "é\r\n".encode("utf-16"))
    with datasets.TextDataset(
        [a, b], encoding=["latin-1", "utf-16"], newline=["", None]
    ) as ds:
        assert ds[0] == ("é\r\n", "é\n")


def test_option_lists_must_match_paths(en, fr):
    with pytest.raises(
        ValueError, match="encoding must be .* got 1 entries for 2 paths"
    ):
        datasets.TextDataset([en, fr], encoding=["utf-8"])
    with pytest.raises(ValueError, match="newline .* got 3 entries for 2 paths"):
        datasets.TextDataset([en, fr], newline=[None, None, None])


def test_bad_arguments(en):
    with pytest.raises(ValueError, match="at least one text file"):
        datasets.TextDataset([])
    with pytest.raises(
        TypeError, match="paths must be a path or a list of paths, got int"
    ):
        datasets.TextDataset(3)
    with pytest.raises(LookupError, match="no-such-codec"):
        datasets.TextDataset(en, encoding="no-such-codec")
    with pytest.raises(LookupError, match="no-such-handler"):
        datasets.TextDataset(en, errors="no-such-handler")
    with pytest.raises(ValueError, match="newline must be .* got 'x'"):
        datasets.TextDataset(en, newline="x")
    with pytest.raises(TypeError, match="filter_func must be callable, got str"):
        datasets.TextDataset(en, filter_func="yes")
    with pytest.raises(FileNotFoundError):
        datasets.TextDataset(en + ".missing")


def test_decoding_errors(tmp_path):
    path = _write(tmp_path / "bad.txt", b"ok\n\xff\xfe\n")
    with datasets.TextDataset(path, encoding="utf-8") as ds:
        assert ds[0] == "ok\n"
        with pytest.raises(UnicodeDecodeError) as info:
            ds[1]
        assert any("line 1 of" in note for note in info.value.__notes__)
    with datasets.TextDataset(path, encoding="utf-8", errors="replace") as ds:
        assert ds[1] == "\ufffd\ufffd\n"


def test_filter_func_one_file(tmp_path):
    path = _write(tmp_path / "a.txt", b"1\n22\n333\n4444\n")
    with datasets.TextDataset(path, filter_func=lambda line: len(line) % 2 == 1) as ds:
        assert len(ds) == 2
        assert list(ds) == ["22\n", "4444\n"]
        assert ds[-1] == "4444\n"


def test_filter_func_parallel_files(en, fr):
    def keep(source, target):
        assert isinstance(source, str)
        return len(source.split()) == len(target.split())

    with datasets.TextDataset([en, fr], filter_func=keep) as ds:
        assert list(ds) == [("hello\n", "bonjour\n"), ("good night\n", "bonne nuit\n")]


def test_threads_read_concurrently(tmp_path):
    lines = [f"line {i}\n" for i in range(2000)]
    path = _write(tmp_path / "many.txt", "".join(lines).encode())
    errors = []
    with datasets.TextDataset(path) as ds:

        def read(offset):
            try:
                for i in range(offset, len(ds), 7):
                    assert ds[i] == lines[i]
            except Exception as e:  # reported to the main thread
                errors.append(e)

        threads = [threading.Thread(target=read, args=(k,)) for k in range(7)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []


def _read_all(ds, queue):
    queue.put([ds[i] for i in range(len(ds))])


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_forked_child_reads_while_parent_reads(tmp_path, encoding):
    lines = [f"line {i}\n" for i in range(3000)]
    path = _write(tmp_path / "many.txt", "".join(lines).encode(encoding))
    with datasets.TextDataset(path, encoding=encoding) as ds:
        assert ds[5] == lines[5]  # the parent's handles are open before the fork
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_read_all, args=(ds, queue))
        child.start()
        mine = [ds[i] for i in reversed(range(len(ds)))]
        theirs = queue.get(timeout=60)
        child.join(timeout=60)
    assert child.exitcode == 0
    assert theirs == lines
    assert mine == lines[::-1]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_pickle_and_read_after_close_fails(en, encoding, tmp_path):
    path = _write(tmp_path / "x.txt", "a\nb\n".encode(encoding))
    ds = datasets.TextDataset(path, encoding=encoding, filter_func=lambda s: s != "a\n")
    assert ds[0] == "b\n"
    clone = pickle.loads(pickle.dumps(ds))
    assert list(clone) == ["b\n"]
    ds.close()
    with pytest.raises(ValueError, match="closed TextDataset"):
        ds[0]
    ds.close()  # closing twice is harmless
    assert clone[0] == "b\n"  # the copy has files of its own
    clone.close()
    with pytest.raises(ValueError, match="closed TextDataset"):
        pickle.loads(pickle.dumps(clone))[0]


def test_multiprocess_iterator(tmp_path):
    iterators = pytest.importorskip("chainer.iterators")
    lines = [f"{i}\n" for i in range(500)]
    path = _write(tmp_path / "many.txt", "".join(lines).encode())
    with datasets.TextDataset(path) as ds:
        ds[0]
        it = iterators.MultiprocessIterator(
            ds, 32, repeat=False, shuffle=False, n_processes=2
        )
        seen = [line for batch in it for line in batch]
        it.finalize()
    assert seen == lines


def test_close_closes_every_file_even_if_one_fails(tmp_path):
    paths = [_write(tmp_path / f"{i}.txt", b"a\nb\n") for i in range(3)]
    ds = datasets.TextDataset(paths)
    assert ds[1] == ("b\n", "b\n", "b\n")
    closed = []

    def recording(i, close):
        def wrapper():
            closed.append(i)
            close()
            if i == 1:
                raise OSError("cannot close")

        return wrapper

    for i, f in enumerate(ds._files):
        f.close = recording(i, f.close)
    with pytest.raises(OSError, match="cannot close"):
        ds.close()
    assert closed == [0, 1, 2]
