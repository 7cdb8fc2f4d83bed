"""Root test configuration: hermetic plugins, hardware skips, seeded RNG."""

import os

# Before anything loads chainer's plugin registry: tests never see stray
# installed plugins, and plugin tests register what they need explicitly.
os.environ["CHAINER_DISABLE_PLUGIN_AUTOLOAD"] = "1"

import importlib
import importlib.util
import socket
import zlib

import numpy
import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--gpu-suites",
        action="store_true",
        help=(
            "also run every backend-injected test (the function and link "
            "suites) on @cupy:0; use with -m gpu on a machine with a GPU"
        ),
    )


def pytest_configure(config):
    if config.getoption("--gpu-suites"):
        _add_cuda_config_to_backend_tests()


def _add_cuda_config_to_backend_tests():
    # Test modules decorate with ``testing.inject_backend_tests(...)``, looked
    # up when they are imported, which is after pytest_configure: wrapping the
    # attribute gives every injected suite a CUDA configuration (marked gpu)
    # besides the ones it lists.
    from chainer import testing

    inject = testing.inject_backend_tests

    def inject_with_cuda(method_names, params):
        if isinstance(params, list) and not any(
            isinstance(p, dict) and p.get("use_cuda") for p in params
        ):
            params = [*params, {"use_cuda": True}]
        return inject(method_names, params)

    testing.inject_backend_tests = inject_with_cuda


def _gpu_skip_reason():
    if importlib.util.find_spec("cupy") is None:
        return "needs CuPy, which is not installed"
    # Imported only when gpu tests were collected: CuPy is slow to import.
    cupy = importlib.import_module("cupy")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return f"needs a CUDA device; CuPy cannot reach one ({exc})"
    if count == 0:
        return "needs a CUDA device; none was found"
    return None


def _mpi_skip_reason():
    if importlib.util.find_spec("mpi4py") is None:
        return "needs mpi4py, which is not installed"
    return None


def pytest_collection_modifyitems(config, items):
    for marker, find_reason in (("gpu", _gpu_skip_reason), ("mpi", _mpi_skip_reason)):
        marked = [item for item in items if item.get_closest_marker(marker)]
        if not marked:
            continue
        reason = find_reason()
        if reason is None:
            continue
        skip = pytest.mark.skip(reason=reason)
        for item in marked:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _seed_numpy_random(request):
    # A seed derived from the test id keeps every test reproducible on its own,
    # whatever ran before it. Chainer's initializers and datasets draw from the
    # legacy global RNG, so that is the one to seed.
    numpy.random.seed(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(autouse=True)
def _cuda_plugin_for_gpu_tests(request):
    # Autoloading is off, so a test marked gpu (which only runs where CUDA is
    # usable) gets chainer-cuda's plugin registered for its duration, the way
    # an installed chainer-cuda is registered through its entry point.
    if request.node.get_closest_marker("gpu") is None:
        yield
        return
    from chainer import plugins

    if "cupy" in plugins.names("backends"):
        yield
        return
    plugin = importlib.import_module("chainer_cuda._plugin")
    plugins.register(plugin, name="cuda")
    try:
        yield
    finally:
        plugins.unregister("cuda")


_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@pytest.fixture
def private_dataset_root(tmp_path):
    """An empty dataset root in ``tmp_path``; nothing goes to ``~/.chainer``.

    Set with ``download.set_dataset_root`` and restored after the test.
    """
    from chainer.dataset import download

    root = tmp_path / "dataset_root"
    root.mkdir()
    download.set_dataset_root(root)
    yield root
    download.set_dataset_root(None)


@pytest.fixture
def no_network(monkeypatch):
    """Keeps the test off the network: only loopback addresses resolve.

    Tests that serve files do so on 127.0.0.1; anything else is a bug in the
    test (a URL not redirected) and fails it.
    """
    attempts = []
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect

    def getaddrinfo(host, *args, **kwargs):
        if host not in _LOOPBACK and host is not None:
            attempts.append(host)
            raise OSError(f"tests must not reach the network (host {host!r})")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self, address):
        if isinstance(address, tuple) and address[0] not in _LOOPBACK:
            attempts.append(address)
            raise OSError(f"tests must not reach the network (address {address!r})")
        return real_connect(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    yield
    if attempts:
        pytest.fail(f"the test tried to reach the network: {attempts}")
