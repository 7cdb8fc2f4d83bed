"""Fixtures for the dataset tests: a private dataset root, a local HTTP server,
a guard that keeps every test off the network, and writers of idx files.

Fixtures:
    dataset_root (autouse): ``pathlib.Path`` of an empty dataset root in
        ``tmp_path``, set with ``download.set_dataset_root`` and restored after.
    http_server: a :class:`LocalServer` serving ``tmp_path / 'www'`` on
        127.0.0.1 (random port) from a background thread; it counts requests
        and can break transfers midway or delay responses.
    unreachable_url: base URL on 127.0.0.1 where nothing listens (a machine
        without network, as the getters see it).
    write_idx: ``write_idx(path, array)`` writes an idx ``.gz`` file.
    write_mnist: ``write_mnist(directory, n_train=..., n_test=...)`` writes
        the four MNIST-style files and returns the arrays written.
"""

import gzip
import http.server
import pathlib
import socket
import struct
import threading
import time

import numpy
import pytest

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@pytest.fixture(autouse=True)
def dataset_root(private_dataset_root):
    """An empty dataset root for the test; nothing goes to ``~/.chainer``."""
    return private_dataset_root


@pytest.fixture(autouse=True)
def _no_network(no_network):
    # Every URL in these tests points at 127.0.0.1.
    return no_network


class LocalServer:
    """A static file server on 127.0.0.1 for one test.

    Attributes:
        directory (pathlib.Path): The directory served.
        requests (list of str): Paths requested (``'/name'``), in order,
            including those of other processes.
        broken (set of str): File names whose transfer stops halfway: the
            full ``Content-Length`` is sent, then half the bytes, then the
            connection is closed.
        delay (float): Seconds to wait before answering each request.
    """

    def __init__(self, directory):
        self.directory = pathlib.Path(directory)
        self.requests = []
        self.broken = set()
        self.delay = 0.0
        self._lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                name = self.path.lstrip("/")
                with server._lock:
                    server.requests.append(self.path)
                if server.delay:
                    time.sleep(server.delay)
                path = server.directory / name
                if "/" in name or ".." in name or not path.is_file():
                    self.send_error(404)
                    return
                body = path.read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if name in server.broken:
                    self.wfile.write(body[: len(body) // 2])
                    self.close_connection = True
                else:
                    self.wfile.write(body)

            def log_message(self, format, *args):
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.01,), daemon=True
        )
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/"

    def url_for(self, name):
        """The URL of file ``name`` of the served directory."""
        return self.url + name

    def count(self, name):
        """How many times file ``name`` was requested."""
        with self._lock:
            return self.requests.count("/" + name)

    def close(self):
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


@pytest.fixture
def http_server(tmp_path):
    """A :class:`LocalServer` serving ``tmp_path / 'www'``."""
    directory = tmp_path / "www"
    directory.mkdir()
    server = LocalServer(directory)
    yield server
    server.close()


@pytest.fixture
def unreachable_url():
    """A base URL on 127.0.0.1 where nothing listens: connections are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


_IDX_CODES = {
    numpy.dtype("u1"): 0x08,
    numpy.dtype("i1"): 0x09,
    numpy.dtype(">i2"): 0x0B,
    numpy.dtype(">i4"): 0x0C,
    numpy.dtype(">f4"): 0x0D,
    numpy.dtype(">f8"): 0x0E,
}


def _write_idx(path, array):
    array = numpy.asarray(array)
    dtype = array.dtype.newbyteorder(">")
    header = struct.pack(">BBBB", 0, 0, _IDX_CODES[dtype], array.ndim)
    header += struct.pack(f">{array.ndim}I", *array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(dtype).tobytes())
    return pathlib.Path(path)


@pytest.fixture
def write_idx():
    """``write_idx(path, array)``: writes ``array`` as an idx ``.gz`` file."""
    return _write_idx


MNIST_FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}


def _write_mnist(directory, n_train=6, n_test=4, seed=0):
    rng = numpy.random.default_rng(seed)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = {}
    for split, n in (("train", n_train), ("test", n_test)):
        images = rng.integers(0, 256, size=(n, 28, 28), dtype=numpy.uint8)
        images[0, 0, 0], images[0, 0, 1] = 0, 255  # both ends of the range
        labels = (numpy.arange(n) % 10).astype(numpy.uint8)
        rng.shuffle(labels)
        images_name, labels_name = MNIST_FILES[split]
        _write_idx(directory / images_name, images)
        _write_idx(directory / labels_name, labels)
        written[split] = (images, labels)
    return written


@pytest.fixture
def write_mnist():
    """``write_mnist(directory, n_train=6, n_test=4, seed=0)`` writes the four
    MNIST-style idx files (train-*, t10k-*) and returns
    ``{'train': (images, labels), 'test': (images, labels)}``, images uint8 of
    shape ``(n, 28, 28)``, labels uint8."""
    return _write_mnist
