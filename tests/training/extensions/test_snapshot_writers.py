import io
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import types

import numpy
import pytest

import chainer.links as L
from chainer import serializers
from chainer.training import extensions
from chainer.training.extensions import snapshot_writers

# Python 3.12+ warns when a process with other threads alive forks (the
# default start method of process writers on Linux up to 3.13): threads of
# earlier tests may still be winding down. The writers themselves are safe.
pytestmark = pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)

ALL_WRITERS = [
    snapshot_writers.SimpleWriter,
    snapshot_writers.ThreadWriter,
    snapshot_writers.ProcessWriter,
    snapshot_writers.ThreadQueueWriter,
    snapshot_writers.ProcessQueueWriter,
]


THREAD_WRITERS = [
    snapshot_writers.SimpleWriter,
    snapshot_writers.ThreadWriter,
    snapshot_writers.ThreadQueueWriter,
]
PROCESS_WRITERS = [snapshot_writers.ProcessWriter, snapshot_writers.ProcessQueueWriter]


# Process writers get only importable callables and picklable targets, so
# the tests hold under every multiprocessing start method (fork, spawn,
# forkserver): the default savefun (save_npz) and a Link as the target.
def _target(value=1.0):
    return L.Linear(3, 2, initialW=value, initial_bias=-value)


def _save_dict(path, target, **kwds):
    with open(path, "wb") as f:
        numpy.savez(f, **target, **kwds)


def _failing_save(path, target):
    with open(path, "wb") as f:
        f.write(b"partial")
    raise OSError("disk full")


def _loaded(path):
    with numpy.load(path) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("writer_class", ALL_WRITERS)
def test_writes_the_file(tmp_path, writer_class):
    writer = writer_class()
    writer("snap", str(tmp_path), _target(2.0))
    writer.finalize()
    assert os.listdir(tmp_path) == ["snap"]
    numpy.testing.assert_array_equal(_loaded(tmp_path / "snap")["W"], 2.0)
    numpy.testing.assert_array_equal(_loaded(tmp_path / "snap")["b"], -2.0)


@pytest.mark.parametrize("writer_class", THREAD_WRITERS)
def test_custom_savefun_gets_the_target(tmp_path, writer_class):
    writer = writer_class(savefun=_save_dict)
    writer("snap", str(tmp_path), {"a/W": numpy.ones(2), "t": 3})
    writer.finalize()
    assert _loaded(tmp_path / "snap")["t"] == 3


class _Obj:
    def serialize(self, serializer):
        serializer("x", numpy.arange(3))
        serializer["child"]("y", 2.5)
        serializer("nothing", None)


@pytest.mark.parametrize("writer_class", ALL_WRITERS)
def test_default_savefun_is_save_npz(tmp_path, writer_class):
    trainer = types.SimpleNamespace(out=str(tmp_path))
    ext = extensions.snapshot_object(_Obj(), "snap", writer=writer_class())
    ext(trainer)
    ext.finalize()
    numpy.testing.assert_array_equal(_loaded(tmp_path / "snap")["x"], [0, 1, 2])
    loaded = {}

    class Into:
        def serialize(self, serializer):
            loaded["x"] = serializer("x", None)
            loaded["y"] = serializer["child"]("y", 0.0)
            loaded["nothing"] = serializer("nothing", 0)

    serializers.load_npz(str(tmp_path / "snap"), Into())
    assert loaded["y"] == 2.5
    assert loaded["nothing"] is None


@pytest.mark.parametrize("writer_class", ALL_WRITERS)
def test_many_writes_in_order(tmp_path, writer_class):
    writer = writer_class()
    for i in range(4):
        writer(f"snap_{i}", str(tmp_path), _target(float(i)))
    writer.finalize()
    assert sorted(os.listdir(tmp_path)) == [f"snap_{i}" for i in range(4)]
    for i in range(4):
        numpy.testing.assert_array_equal(_loaded(tmp_path / f"snap_{i}")["W"], i)


@pytest.mark.parametrize("writer_class", THREAD_WRITERS)
def test_cleanup_hook_runs_after_each_save(tmp_path, writer_class):
    # Process writers are covered by the n_retains tests of test_snapshot.
    marker = tmp_path / "hooks"
    writer = writer_class()
    writer._add_cleanup_hook(_AppendName(str(marker)))
    writer("s1", str(tmp_path), _target())
    writer("s2", str(tmp_path), _target())
    writer.finalize()
    assert marker.read_text().split() == ["s1", "s2"]


class _AppendName:
    # A picklable hook: it records which snapshot files exist when it runs.
    def __init__(self, path):
        self.path = path

    def __call__(self):
        names = sorted(n for n in os.listdir(os.path.dirname(self.path)) if n[0] == "s")
        with open(self.path, "a") as f:
            f.write(names[-1] + "\n")


def test_savefun_sees_a_temporary_path_beside_the_final_file(tmp_path):
    seen = []

    def savefun(path, target):
        seen.append(path)
        assert not os.path.exists(tmp_path / "snap.npz")
        _save_dict(path, target)

    snapshot_writers.SimpleWriter(savefun=savefun)("snap.npz", str(tmp_path), {})
    (path,) = seen
    directory, name = os.path.split(path)
    assert directory == str(tmp_path)
    assert name.startswith("tmp.")
    assert name.endswith(".snap.npz")
    assert os.listdir(tmp_path) == ["snap.npz"]


def test_simple_writer_passes_keyword_arguments(tmp_path):
    calls = []

    def savefun(path, target, **kwds):
        calls.append(kwds)
        open(path, "wb").close()

    snapshot_writers.SimpleWriter(savefun=savefun, compression=False)(
        "f", str(tmp_path), {}
    )
    assert calls == [{"compression": False}]


def test_missing_directory_is_created(tmp_path):
    writer = snapshot_writers.SimpleWriter()
    writer("sub/dir/snap", str(tmp_path / "out"), _target())
    assert os.listdir(tmp_path / "out" / "sub" / "dir") == ["snap"]


def test_failed_save_removes_the_temporary_and_keeps_the_old_file(tmp_path):
    (tmp_path / "snap").write_bytes(b"old")
    writer = snapshot_writers.SimpleWriter(savefun=_failing_save)
    with pytest.raises(OSError, match="disk full"):
        writer("snap", str(tmp_path), {})
    assert os.listdir(tmp_path) == ["snap"]
    assert (tmp_path / "snap").read_bytes() == b"old"


def test_savefun_writing_elsewhere_is_an_error(tmp_path):
    def savefun(path, target):
        os.remove(path)
        numpy.savez(path, **target)  # writes path + '.npz'

    with pytest.raises(RuntimeError, match="did not write to the path it was given"):
        snapshot_writers.SimpleWriter(savefun=savefun)("snap", str(tmp_path), {})


@pytest.mark.parametrize(
    "writer_class",
    [snapshot_writers.ThreadWriter, snapshot_writers.ThreadQueueWriter],
)
def test_thread_writer_failure_is_raised_in_finalize(tmp_path, writer_class):
    writer = writer_class(savefun=_failing_save)
    writer("snap", str(tmp_path), {})
    with pytest.raises(RuntimeError, match="disk full"):
        writer.finalize()
    assert os.listdir(tmp_path) == []


def test_thread_writer_failure_is_raised_at_the_next_call(tmp_path):
    writer = snapshot_writers.ThreadWriter(savefun=_failing_save)
    writer("snap", str(tmp_path), {})
    with pytest.raises(RuntimeError, match="writing snapshot 'snap' failed"):
        writer("snap2", str(tmp_path), {})
    writer.finalize()


@pytest.mark.parametrize("writer_class", PROCESS_WRITERS)
def test_process_writer_failure_is_raised_in_finalize(tmp_path, writer_class):
    writer = writer_class()
    # save_npz cannot store an arbitrary object: the save fails in the child.
    writer("snap", str(tmp_path), {"x": object()})
    with pytest.raises(RuntimeError, match="exited with code 1"):
        writer.finalize()
    assert os.listdir(tmp_path) == []


def test_thread_writer_does_not_block_the_caller(tmp_path):
    release = threading.Event()

    def slow_save(path, target):
        assert release.wait(10)
        serializers.save_npz(path, target)

    writer = snapshot_writers.ThreadWriter(savefun=slow_save)
    writer("snap", str(tmp_path), _target())
    assert os.listdir(tmp_path) == [] or os.listdir(tmp_path)[0].startswith("tmp.")
    release.set()
    writer.finalize()
    assert os.listdir(tmp_path) == ["snap"]


@pytest.mark.parametrize(
    "writer_class",
    [snapshot_writers.ThreadQueueWriter, snapshot_writers.ProcessQueueWriter],
)
def test_queue_writer_can_be_used_after_finalize(tmp_path, writer_class):
    writer = writer_class()
    writer("a", str(tmp_path), _target())
    writer.finalize()
    writer("b", str(tmp_path), _target())
    writer.finalize()
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_queue_writer_runs_a_custom_task(tmp_path):
    calls = []

    def task(filename, outdir, target):
        calls.append((filename, outdir, sorted(target)))

    writer = snapshot_writers.ThreadQueueWriter(task=task)
    writer("snap", str(tmp_path), {"a/W": 1, "t": 2})
    writer.finalize()
    assert calls == [("snap", str(tmp_path), ["a/W", "t"])]


def test_custom_writer_uses_save(tmp_path):
    class CountingWriter(snapshot_writers.Writer):
        def __init__(self):
            super().__init__()
            self.count = 0

        def __call__(self, filename, outdir, target):
            self.count += 1
            self.save(filename, outdir, target, serializers.save_npz)

    writer = CountingWriter()
    writer("snap", str(tmp_path), _target())
    assert writer.count == 1
    assert os.listdir(tmp_path) == ["snap"]


def test_base_writer_is_abstract(tmp_path):
    with pytest.raises(NotImplementedError):
        snapshot_writers.Writer()("snap", str(tmp_path), {})


@pytest.mark.parametrize(
    "writer_class",
    [
        snapshot_writers.SimpleWriter,
        snapshot_writers.ThreadWriter,
        snapshot_writers.ProcessWriter,
    ],
)
def test_savefun_must_be_callable(writer_class):
    with pytest.raises(TypeError, match="savefun must be callable"):
        writer_class(savefun="npz")


def test_queue_task_must_be_callable():
    with pytest.raises(TypeError, match="task must be callable"):
        snapshot_writers.ThreadQueueWriter(task=3)


class _ListQueue:
    """A queue of a fixed list of items, recording task_done calls."""

    def __init__(self, items):
        self.items = list(items)
        self.done = 0

    def get(self):
        return self.items.pop(0)

    def task_done(self):
        self.done += 1


def test_consume_indexes_queue_items():
    # Any sequence whose first four entries are the task and its arguments
    # is a queue item, not only a 4-item list.
    calls = []
    writer = snapshot_writers.ThreadQueueWriter()
    item = (lambda *args: calls.append(args), "f", "d", {"t": 1}, "extra")
    q = _ListQueue([item, item, None])
    writer.consume(q)
    writer.finalize()
    assert calls == [("f", "d", {"t": 1})] * 2
    assert q.done == 3


def test_queue_writer_with_a_custom_consumer_without_exit_code(tmp_path):
    # A consumer object whose exitcode is not an int (not a process) is not
    # taken for a failed writer process.
    class Consumer(threading.Thread):
        exitcode = types.SimpleNamespace()

    class Writer(snapshot_writers.ThreadQueueWriter):
        def create_consumer(self, q):
            return Consumer(target=self.consume, args=(q,))

    writer = Writer()
    writer("snap", str(tmp_path), _target())
    writer.finalize()
    assert os.listdir(tmp_path) == ["snap"]


def test_standard_writer_with_a_custom_worker_without_exit_code(tmp_path):
    # A worker object whose exitcode is not an int (not a process) is not
    # taken for a failed writer process.
    class Worker(threading.Thread):
        exitcode = types.SimpleNamespace()

    class Writer(snapshot_writers.ThreadWriter):
        def create_worker(self, filename, outdir, target, **kwds):
            thread = super().create_worker(filename, outdir, target, **kwds)
            return Worker(target=thread.run)

    writer = Writer()
    writer("a", str(tmp_path), _target())
    writer("b", str(tmp_path), _target())
    writer.finalize()
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


# --- what a snapshot leaves on disk ---------------------------------------------


def test_snapshot_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "snap"
    path.write_bytes(b"old")
    path.chmod(0o600)
    snapshot_writers.SimpleWriter()("snap", str(tmp_path), _target())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(tmp_path) == ["snap"]
    serializers.load_npz(str(path), _target(0.0))


def test_snapshot_through_a_symlink_replaces_its_target(tmp_path):
    real = tmp_path / "store" / "snap"
    real.parent.mkdir()
    real.write_bytes(b"old")
    out = tmp_path / "out"
    out.mkdir()
    (out / "snap").symlink_to(real)
    snapshot_writers.SimpleWriter()("snap", str(out), _target(2.0))
    assert (out / "snap").is_symlink()
    loaded = _target(0.0)
    serializers.load_npz(str(real), loaded)
    assert (loaded.W.array == 2.0).all()
    assert os.listdir(real.parent) == ["snap"]


def test_snapshot_to_a_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "snap"
    os.mkfifo(fifo)
    received = []

    def read():
        with open(fifo, "rb") as f:
            received.append(f.read())

    # A daemon: if the FIFO were replaced, nobody would ever open it.
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    snapshot_writers.SimpleWriter(savefun=_save_dict)(
        "snap", str(tmp_path), {"a": numpy.arange(3)}
    )
    reader.join(10)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["snap"]
    (data,) = received
    with numpy.load(io.BytesIO(data)) as loaded:
        numpy.testing.assert_array_equal(loaded["a"], numpy.arange(3))


_KILLED_SNAPSHOT = """
import os, sys, time
import chainer.links as L
from chainer.training.extensions import snapshot_writers

def fsync(fd):
    # The data is written, the file not yet renamed: killed here.
    print("WRITING", flush=True)
    time.sleep(600)

os.fsync = fsync
snapshot_writers.SimpleWriter()("snap", sys.argv[1], L.Linear(3, 2))
"""

_NEXT_SNAPSHOT = """
import sys
import chainer.links as L
from chainer.training.extensions import snapshot_writers
snapshot_writers.SimpleWriter()("snap", sys.argv[1], L.Linear(3, 2))
"""


def test_killed_snapshot_leaves_one_temporary_and_the_next_removes_it(tmp_path):
    (tmp_path / "snap").write_bytes(b"old")
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SNAPSHOT, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline() == "WRITING\n"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    leftovers = sorted(set(os.listdir(tmp_path)) - {"snap"})
    assert len(leftovers) == 1, leftovers
    assert leftovers[0].startswith("tmp.")
    assert (tmp_path / "snap").read_bytes() == b"old"
    # The kernel dates a process start to a clock tick (10 ms): the next
    # process starts clearly after the dead one's last write.
    time.sleep(0.1)
    subprocess.run(
        [sys.executable, "-c", _NEXT_SNAPSHOT, str(tmp_path)], check=True, timeout=120
    )
    assert os.listdir(tmp_path) == ["snap"]
