import fcntl
import os
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest

from chainer.utils import atomic_file

OLD = time.time() - 24 * 3600  # an mtime older than any test process


def _temporaries(directory):
    return sorted(n for n in os.listdir(directory) if n.startswith("tmp."))


def _write(path, data=b"new"):
    with atomic_file.open_atomic(path) as f:
        f.write(data)


def test_new_file_follows_the_umask(tmp_path):
    path = tmp_path / "model.npz"
    umask = os.umask(0o022)
    os.umask(umask)
    _write(path)
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert os.listdir(tmp_path) == ["model.npz"]


def test_temporary_file_is_named_after_the_target(tmp_path):
    path = tmp_path / "model.npz"
    with atomic_file.atomic_path(path) as temp:
        directory, name = os.path.split(temp)
        assert directory == str(tmp_path)
        assert name.startswith("tmp.")
        assert name.endswith(".model.npz")
        assert atomic_file.is_temporary_name(name)
        with open(temp, "wb") as f:
            f.write(b"data")
    assert path.read_bytes() == b"data"
    assert os.listdir(tmp_path) == ["model.npz"]


def test_temporary_file_being_written_is_never_stale(tmp_path):
    # Even when it looks old, its lock tells it is being written.
    with atomic_file.atomic_path(tmp_path / "model.npz") as temp:
        with open(temp, "wb") as f:
            f.write(b"data")
        os.utime(temp, (OLD, OLD))
        assert atomic_file.remove_stale(tmp_path) == []
        _write(tmp_path / "other")
        assert os.path.exists(temp)
    assert sorted(os.listdir(tmp_path)) == ["model.npz", "other"]


def test_hdf5_can_write_the_temporary_file(tmp_path):
    # HDF5 flocks the file it creates; the temporary file's lock is not one.
    h5py = pytest.importorskip("h5py")
    with (
        atomic_file.atomic_path(tmp_path / "model.h5") as temp,
        h5py.File(temp, "w") as f,
    ):
        f["x"] = [1, 2, 3]
    with h5py.File(tmp_path / "model.h5", "r") as f:
        assert list(f["x"][...]) == [1, 2, 3]


def test_private_file_stays_private(tmp_path):
    path = tmp_path / "model.npz"
    path.write_bytes(b"old")
    path.chmod(0o600)
    _write(path)
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_mode_of_an_executable_file_is_kept(tmp_path):
    path = tmp_path / "run.sh"
    path.write_bytes(b"old")
    path.chmod(0o750)
    with atomic_file.open_atomic(path, "w", encoding="utf-8") as f:
        f.write("new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give files away")
def test_owner_and_group_are_kept(tmp_path):
    path = tmp_path / "model.npz"
    path.write_bytes(b"old")
    os.chown(path, 12345, 23456)
    _write(path)
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (12345, 23456)


def test_symlink_is_kept_and_its_target_replaced(tmp_path):
    real = tmp_path / "real" / "model.npz"
    real.parent.mkdir()
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / "link.npz"
    link.symlink_to(real)
    _write(link)
    assert link.is_symlink()
    assert os.readlink(link) == str(real)
    assert real.read_bytes() == b"new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert os.listdir(real.parent) == ["model.npz"]
    assert sorted(os.listdir(tmp_path)) == ["link.npz", "real"]


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "missing")
    _write(link)
    assert link.is_symlink()
    assert (tmp_path / "missing").read_bytes() == b"new"


def test_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []

    def read():
        with open(fifo, "rb") as f:
            received.append(f.read())

    reader = threading.Thread(target=read)
    reader.start()
    try:
        with atomic_file.atomic_path(fifo) as path:
            assert path == str(fifo)
            with open(path, "wb") as f:
                f.write(b"through the pipe")
    finally:
        reader.join(10)
    assert received == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["pipe"]


def test_character_device_is_written_directly():
    with atomic_file.atomic_path("/dev/null") as path:
        assert path == "/dev/null"
        with open(path, "wb") as f:
            f.write(b"gone")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_directory_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError, match="it is a directory"):
        atomic_file.AtomicFile(tmp_path)


def test_missing_directory_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        atomic_file.AtomicFile(tmp_path / "no" / "file")


def test_error_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    path = tmp_path / "model.npz"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="boom"), atomic_file.open_atomic(path) as f:
        f.write(b"partial")
        raise RuntimeError("boom")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["model.npz"]


def test_nested_save_into_a_temporary_writes_it_directly(tmp_path):
    path = tmp_path / "snapshot"
    with atomic_file.AtomicFile(path) as outer:
        # A saver called on the temporary file (save_npz from a snapshot
        # writer) makes no second temporary file.
        with atomic_file.atomic_path(outer.path) as inner:
            assert inner == outer.path
            assert _temporaries(tmp_path) == [os.path.basename(outer.path)]
            with open(inner, "wb") as f:
                f.write(b"snap")
        assert _temporaries(tmp_path) == [os.path.basename(outer.path)]
    assert path.read_bytes() == b"snap"
    assert os.listdir(tmp_path) == ["snapshot"]


def test_bad_mode():
    with pytest.raises(ValueError, match="mode"), atomic_file.open_atomic("x", "a"):
        pass


# --- stale temporary files -------------------------------------------------


def _make(path, mtime=OLD):
    path.write_bytes(b"left behind")
    os.utime(path, (mtime, mtime))
    return path


def test_next_save_removes_stale_temporaries_only(tmp_path):
    stale = _make(tmp_path / "tmp.0123456789ab.model.npz")
    former = _make(tmp_path / ".model.npz.0123456789ab.tmp")
    fresh = _make(tmp_path / "tmp.abcdefabcdef.model.npz", mtime=time.time())
    other = _make(tmp_path / "tmp.notours.model.npz")
    _write(tmp_path / "model.npz")
    assert not stale.exists()
    assert not former.exists()
    assert fresh.exists()  # written since this process started
    assert other.exists()  # not of our naming
    assert sorted(os.listdir(tmp_path)) == sorted(["model.npz", fresh.name, other.name])


def test_remove_stale_with_prefixes(tmp_path):
    old_file = _make(tmp_path / "_dl_tmp_abc")
    old_dir = tmp_path / "_tmp_xyz"
    old_dir.mkdir()
    _make(old_dir / "data.npz")
    os.utime(old_dir, (OLD, OLD))
    live_dir = tmp_path / "_tmp_live"
    live_dir.mkdir()
    _make(live_dir / "data.npz")
    os.utime(live_dir, (OLD, OLD))
    fd = os.open(live_dir, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        removed = atomic_file.remove_stale(tmp_path, prefixes=("_dl_tmp_", "_tmp_"))
    finally:
        os.close(fd)
    assert sorted(removed) == sorted([str(old_file), str(old_dir)])
    assert os.listdir(tmp_path) == ["_tmp_live"]


def test_remove_stale_in_a_missing_directory(tmp_path):
    assert atomic_file.remove_stale(tmp_path / "missing") == []


_KILLED_WRITER = """
import sys, time
from chainer.utils import atomic_file
with atomic_file.open_atomic(sys.argv[1]) as f:
    f.write(b"half")
    f.flush()
    print("WRITING", flush=True)
    time.sleep(600)
"""

_NEXT_WRITER = """
import sys
from chainer.utils import atomic_file
with atomic_file.open_atomic(sys.argv[1]) as f:
    f.write(b"complete")
"""


def test_kill_leaves_one_temporary_that_the_next_process_removes(tmp_path):
    path = tmp_path / "model.npz"
    path.write_bytes(b"old")
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline() == "WRITING\n"
        # While the writer lives its temporary file is locked: kept, even
        # if it looks older than this process.
        (temp,) = _temporaries(tmp_path)
        os.utime(tmp_path / temp, (OLD, OLD))
        _write(tmp_path / "other")
        assert _temporaries(tmp_path) == [temp]
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    os.utime(tmp_path / temp, None)
    assert len(_temporaries(tmp_path)) == 1
    assert path.read_bytes() == b"old"
    # The kernel dates a process start to a clock tick (10 ms): the next
    # process starts clearly after the dead one's last write.
    time.sleep(0.1)
    subprocess.run(
        [sys.executable, "-c", _NEXT_WRITER, str(path)], check=True, timeout=120
    )
    assert sorted(os.listdir(tmp_path)) == ["model.npz", "other"]
    assert path.read_bytes() == b"complete"
