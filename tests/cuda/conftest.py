"""chainer-cuda tests: the plugin registered explicitly, and a GPU check.

The root conftest turns plugin autoloading off, so the ``cuda`` plugin is
registered here for every test of this folder. Tests marked ``gpu`` are skipped
by the root conftest, with the reason, when CuPy or a CUDA device is missing.
"""

import pytest

import chainer_cuda
from chainer import plugins
from chainer_cuda import _plugin


def gpu_skip_reason():
    """Returns why GPU tests cannot run here, or None when they can."""
    return chainer_cuda.unavailable_reason()


@pytest.fixture(autouse=True, scope="module")
def cuda_plugin():
    """Registers chainer-cuda's entry-point module as the plugin ``cuda``."""
    registered = {name for name, _ in _registered()}
    added = "cuda" not in registered
    if added:
        plugins.register(_plugin, name="cuda")
    yield _plugin
    if added:
        plugins.unregister("cuda")


def _registered():
    return [(p.name, p) for p in plugins.list_plugins()]


@pytest.fixture
def gpu():
    """Skips the test with the reason unless a CUDA device is usable."""
    reason = gpu_skip_reason()
    if reason is not None:
        pytest.skip(reason)
    return chainer_cuda.get_cupy()
