import hashlib
import http.server
import os
import pathlib
import subprocess
import sys
import threading
import time
import urllib.error

import pytest

from chainer import dataset

PAYLOAD = bytes(range(256)) * 64


class _Handler(http.server.BaseHTTPRequestHandler):
    files: dict = {}
    requests: list = []
    delay = 0.0

    def do_GET(self):
        self.requests.append(self.path)
        if self.delay:
            time.sleep(self.delay)
        if self.path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Length", str(len(PAYLOAD)))
            self.end_headers()
            self.wfile.write(PAYLOAD[:100])
            self.close_connection = True
            return
        if self.path.startswith("/trickle"):
            # One byte every 0.1 s: never silent long enough for a socket
            # timeout, and 20 s in all.
            self.send_response(200)
            self.send_header("Content-Length", "200")
            self.end_headers()
            try:
                for _ in range(200):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass  # the client gave up
            self.close_connection = True
            return
        if self.path == "/not-http":
            self.wfile.write(b"this is not an HTTP response\r\n\r\n")
            self.close_connection = True
            return
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


@pytest.fixture
def server():
    handler = type("Handler", (_Handler,), {"files": {}, "requests": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    handler.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield handler
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def root(tmp_path):
    dataset.set_dataset_root(str(tmp_path))
    try:
        yield tmp_path
    finally:
        dataset.set_dataset_root(None)


def _md5(text):
    return hashlib.md5(text.encode()).hexdigest()


def _cache_files(root):
    return sorted(p.name for p in (root / "_dl_cache").iterdir())


# --- dataset root ------------------------------------------------------------


def test_root_from_environment(monkeypatch, tmp_path):
    dataset.set_dataset_root(None)
    monkeypatch.setenv("CHAINER_DATASET_ROOT", str(tmp_path / "env"))
    assert dataset.get_dataset_root() == str(tmp_path / "env")


def test_default_root(monkeypatch, tmp_path):
    dataset.set_dataset_root(None)
    monkeypatch.delenv("CHAINER_DATASET_ROOT", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert dataset.get_dataset_root() == os.path.join(
        str(tmp_path), ".chainer", "dataset"
    )


def test_set_root_beats_environment(monkeypatch, root):
    monkeypatch.setenv("CHAINER_DATASET_ROOT", "/nonexistent")
    assert dataset.get_dataset_root() == str(root)
    dataset.set_dataset_root(root / "sub")
    assert dataset.get_dataset_root() == str(root / "sub")


def test_set_root_rejects_non_paths():
    with pytest.raises(TypeError, match="must be a path"):
        dataset.set_dataset_root(3)


def test_dataset_directory(root):
    path = dataset.get_dataset_directory("pfnet/chainer/mnist")
    assert path == os.path.join(str(root), "pfnet/chainer/mnist")
    assert os.path.isdir(path)
    other = dataset.get_dataset_directory("x", create_directory=False)
    assert not os.path.exists(other)


def test_dataset_directory_errors(root):
    with pytest.raises(TypeError, match="dataset_name must be a string"):
        dataset.get_dataset_directory(None)
    with pytest.raises(ValueError, match="relative to the dataset root"):
        dataset.get_dataset_directory("/etc")


# --- cached_download -----------------------------------------------------------


def test_download_and_cache(root, server, capsys):
    server.files["/data.bin"] = PAYLOAD
    url = server.base + "/data.bin"
    path = dataset.cached_download(url)
    assert path == os.path.join(str(root), "_dl_cache", _md5(url))
    assert pathlib.Path(path).read_bytes() == PAYLOAD
    assert "Downloading from" in capsys.readouterr().err
    assert dataset.cached_download(url) == path
    assert server.requests == ["/data.bin"]
    assert _cache_files(root) == sorted([_md5(url), "_dl_lock"])


def test_existing_chainer_cache_is_reused(root):
    url = "http://127.0.0.1:9/never-contacted"
    cache = root / "_dl_cache"
    cache.mkdir()
    (cache / _md5(url)).write_bytes(b"cached by Chainer")
    assert pathlib.Path(dataset.cached_download(url)).read_bytes() == (
        b"cached by Chainer"
    )


def test_checksums_accepted(root, server):
    server.files["/a"] = PAYLOAD
    url = server.base + "/a"
    path = dataset.cached_download(
        url,
        sha256=hashlib.sha256(PAYLOAD).hexdigest().upper(),
        md5=hashlib.md5(PAYLOAD).hexdigest(),
    )
    assert pathlib.Path(path).read_bytes() == PAYLOAD


@pytest.mark.parametrize("kind", ["sha256", "md5"])
def test_checksum_mismatch_leaves_no_file(root, server, kind):
    server.files["/a"] = PAYLOAD
    wrong = hashlib.new(kind, b"other").hexdigest()
    with pytest.raises(ValueError, match=f"{kind} checksum mismatch"):
        dataset.cached_download(server.base + "/a", **{kind: wrong})
    assert _cache_files(root) == ["_dl_lock"]


def test_bad_checksum_arguments(root):
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        dataset.cached_download("http://x", sha256="abc")
    with pytest.raises(ValueError, match="32 hexadecimal digits"):
        dataset.cached_download("http://x", md5="z" * 32)
    with pytest.raises(TypeError, match="hex string"):
        dataset.cached_download("http://x", md5=b"0" * 32)


def test_url_must_be_a_string(root):
    with pytest.raises(TypeError, match="url must be a string"):
        dataset.cached_download(b"http://x")


def test_http_error_leaves_no_file(root, server):
    with pytest.raises(urllib.error.HTTPError) as info:
        dataset.cached_download(server.base + "/missing")
    assert any("/missing" in note for note in info.value.__notes__)
    assert _cache_files(root) == ["_dl_lock"]


def test_truncated_download_leaves_no_file(root, server):
    with pytest.raises(OSError, match="incomplete"):
        dataset.cached_download(server.base + "/truncated")
    assert _cache_files(root) == ["_dl_lock"]


def test_bad_http_response_is_an_oserror_and_leaves_no_file(root, server):
    with pytest.raises(OSError, match="bad HTTP response while downloading"):
        dataset.cached_download(server.base + "/not-http")
    assert _cache_files(root) == ["_dl_lock"]


def test_concurrent_threads_download_once(root, server):
    server.files["/slow"] = PAYLOAD
    server.delay = 0.2
    url = server.base + "/slow"
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(dataset.cached_download(url)))
        for _ in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 6
    assert len(set(results)) == 1
    assert server.requests == ["/slow"]
    assert pathlib.Path(results[0]).read_bytes() == PAYLOAD


def test_concurrent_processes_download_once(root, server):
    server.files["/slow"] = PAYLOAD
    server.delay = 0.3
    url = server.base + "/slow"
    code = (
        "import sys; from chainer import dataset; "
        "dataset.set_dataset_root(sys.argv[1]); "
        "print(dataset.cached_download(sys.argv[2]))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(root), url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    paths = {out.strip() for out, _ in outputs}
    assert paths == {os.path.join(str(root), "_dl_cache", _md5(url))}
    assert server.requests == ["/slow"]


# --- cache_or_load_file ----------------------------------------------------------


def test_cache_or_load_file_creates_then_loads(root):
    path = root / "pfnet" / "data.npz"
    seen = []

    def creator(temp_path):
        seen.append(temp_path)
        assert not os.path.exists(temp_path)
        assert os.path.basename(temp_path) == "data.npz"
        assert os.path.dirname(os.path.dirname(temp_path)) == str(path.parent)
        pathlib.Path(temp_path).write_text("made")
        return "created"

    def loader(p):
        return "loaded " + pathlib.Path(p).read_text()

    assert dataset.cache_or_load_file(str(path), creator, loader) == "created"
    assert path.read_text() == "made"
    assert dataset.cache_or_load_file(str(path), creator, loader) == "loaded made"
    assert len(seen) == 1
    assert sorted(p.name for p in path.parent.iterdir()) == ["data.npz"]


def test_failing_creator_leaves_nothing(root):
    path = root / "d" / "f.txt"

    def creator(temp_path):
        pathlib.Path(temp_path).write_text("partial")
        raise RuntimeError("creator failed")

    with pytest.raises(RuntimeError, match="creator failed"):
        dataset.cache_or_load_file(str(path), creator, pathlib.Path.read_text)
    assert list(path.parent.iterdir()) == []


def test_creator_that_writes_nothing(root):
    path = root / "f.txt"
    with pytest.raises(RuntimeError, match="creator did not write"):
        dataset.cache_or_load_file(str(path), lambda p: None, lambda p: None)
    assert not path.exists()


def test_cache_or_load_file_with_a_file_as_dataset_root(tmp_path):
    # The lock lives in the dataset root; a root that cannot be a directory
    # is a RuntimeError naming it.
    not_a_dir = tmp_path / "root-file"
    not_a_dir.write_text("")
    dataset.set_dataset_root(str(not_a_dir))
    try:
        with pytest.raises(RuntimeError, match="cannot create the dataset directory"):
            dataset.cache_or_load_file(
                str(tmp_path / "new" / "f.txt"), lambda p: None, lambda p: None
            )
    finally:
        dataset.set_dataset_root(None)


def test_nested_cache_or_load_file_does_not_deadlock(root):
    def make(text):
        def creator(temp_path):
            pathlib.Path(temp_path).write_text(text)
            return text

        return creator

    def outer_creator(temp_path):
        inner = dataset.cache_or_load_file(
            str(root / "inner.txt"), make("inner"), pathlib.Path.read_text
        )
        pathlib.Path(temp_path).write_text(inner + "+outer")
        return inner + "+outer"

    out = dataset.cache_or_load_file(
        str(root / "outer.txt"), outer_creator, pathlib.Path.read_text
    )
    assert out == "inner+outer"
    assert (root / "inner.txt").read_text() == "inner"


def test_concurrent_cache_or_load_file(root):
    path = root / "shared.txt"
    results = []

    def creator(temp_path):
        time.sleep(0.05)
        pathlib.Path(temp_path).write_text("content")
        return "content"

    def work():
        results.append(
            dataset.cache_or_load_file(str(path), creator, pathlib.Path.read_text)
        )

    threads = [threading.Thread(target=work) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["content"] * 5
    assert path.read_text() == "content"
    assert sorted(p.name for p in root.iterdir()) == ["_create_lock", "shared.txt"]


def test_cache_or_load_file_argument_errors(root):
    with pytest.raises(TypeError, match="path must be a string"):
        dataset.cache_or_load_file(1, print, print)
    with pytest.raises(TypeError, match="must be callable"):
        dataset.cache_or_load_file(str(root / "x"), None, print)


# --- deadlines and per-file locks ------------------------------------------------


def _wait_for_request(server, path, seconds=30):
    end = time.monotonic() + seconds
    while path not in server.requests:
        assert time.monotonic() < end, f"no request for {path}"
        time.sleep(0.02)


def test_trickling_download_hits_the_deadline(root, server):
    url = server.base + "/trickle"
    start = time.monotonic()
    with pytest.raises(TimeoutError, match="did not finish within 0.5 s") as info:
        dataset.cached_download(url, timeout=0.5)
    assert time.monotonic() - start < 5
    assert any(url in note for note in info.value.__notes__)
    assert _cache_files(root) == ["_dl_lock"]


def test_deadline_from_the_environment(root, server, monkeypatch):
    monkeypatch.setenv("CHAINER_DOWNLOAD_TIMEOUT", "0.3")
    start = time.monotonic()
    with pytest.raises(TimeoutError, match="within 0.3 s"):
        dataset.cached_download(server.base + "/trickle")
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan"])
def test_bad_deadline_in_the_environment(root, monkeypatch, value):
    monkeypatch.setenv("CHAINER_DOWNLOAD_TIMEOUT", value)
    with pytest.raises(ValueError, match="CHAINER_DOWNLOAD_TIMEOUT"):
        dataset.cached_download("http://127.0.0.1:9/x")


def test_bad_deadline_argument(root):
    with pytest.raises(ValueError, match="positive"):
        dataset.cached_download("http://127.0.0.1:9/x", timeout=0)
    with pytest.raises(TypeError, match="number of seconds"):
        dataset.cached_download("http://127.0.0.1:9/x", timeout="1")


def test_stuck_download_blocks_only_its_own_file(root, server):
    server.files["/other"] = PAYLOAD
    stuck = server.base + "/trickle-a"
    errors = []

    def download():
        try:
            dataset.cached_download(stuck, timeout=6)
        except TimeoutError as e:
            errors.append(e)

    holder = threading.Thread(target=download)
    holder.start()
    try:
        _wait_for_request(server, "/trickle-a")
        # Another file downloads at once, while the first one trickles.
        start = time.monotonic()
        path = dataset.cached_download(server.base + "/other", timeout=3)
        assert time.monotonic() - start < 3
        assert pathlib.Path(path).read_bytes() == PAYLOAD
        assert holder.is_alive()
        # The same file waits for the holder, until its own deadline.
        target = os.path.join(str(root), "_dl_cache", _md5(stuck))
        with pytest.raises(TimeoutError) as info:
            dataset.cached_download(stuck, timeout=0.3)
        message = str(info.value)
        assert target in message
        assert f"this process ({os.getpid()}" in message
        assert "CHAINER_DOWNLOAD_TIMEOUT" in message
    finally:
        holder.join(30)
    assert len(errors) == 1
    assert server.requests.count("/trickle-a") == 1


_HOLDER = """
import sys
from chainer import dataset
dataset.set_dataset_root(sys.argv[1])
dataset.cached_download(sys.argv[2], timeout=30)
"""


def test_lock_timeout_names_the_holding_process(root, server):
    url = server.base + "/trickle-b"
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(root), url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_request(server, "/trickle-b", seconds=60)
        with pytest.raises(TimeoutError) as info:
            dataset.cached_download(url, timeout=0.3)
    finally:
        proc.kill()
        proc.wait()
    message = str(info.value)
    assert os.path.join(str(root), "_dl_cache", _md5(url)) in message
    assert f"held by process {proc.pid}" in message


def test_download_removes_stale_temporaries(root, server):
    cache = root / "_dl_cache"
    cache.mkdir()
    old = time.time() - 24 * 3600
    leftovers = [cache / "_dl_tmp_k1ll3d00", cache / "tmp.0123456789ab.0123"]
    for path in leftovers:
        path.write_bytes(b"partial")
        os.utime(path, (old, old))
    server.files["/data"] = PAYLOAD
    url = server.base + "/data"
    dataset.cached_download(url)
    assert _cache_files(root) == sorted([_md5(url), "_dl_lock"])


def test_cache_or_load_file_removes_stale_creator_directories(root):
    old = time.time() - 24 * 3600
    stale = root / "_tmp_k1ll3d00"
    stale.mkdir()
    (stale / "f.txt").write_text("partial")
    os.utime(stale / "f.txt", (old, old))
    os.utime(stale, (old, old))
    path = root / "f.txt"
    content = dataset.cache_or_load_file(
        str(path), lambda p: pathlib.Path(p).write_text("made"), pathlib.Path.read_text
    )
    assert content == 4
    assert sorted(p.name for p in root.iterdir()) == ["_create_lock", "f.txt"]
