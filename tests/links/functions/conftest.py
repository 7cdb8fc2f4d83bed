"""Function tests run with chainer-cpu's NumPy kernels, as a user's install has them.

The root conftest turns plugin autoloading off, so the ``cpu`` plugin is
registered here for every test module below, when chainer-cpu is installed
and ``CHAINER_DISABLED_PLUGINS`` does not name it. With
``CHAINER_DISABLED_PLUGINS=cpu`` (a step of ``.ci/run``) the same tests run on
the catalogue's reference implementations.
"""

import importlib.util
import os

import pytest

from chainer import plugins


def cpu_kernels_wanted():
    """Whether chainer-cpu is installed and not disabled for this run."""
    disabled = {
        name.strip().lower()
        for name in os.environ.get("CHAINER_DISABLED_PLUGINS", "").split(",")
    }
    if disabled & {"cpu", "chainer-cpu", "chainer_cpu"}:
        return False
    return importlib.util.find_spec("chainer_cpu") is not None


@pytest.fixture(autouse=True, scope="module")
def cpu_plugin():
    """Registers chainer-cpu's entry-point module as the plugin ``cpu``."""
    if not cpu_kernels_wanted():
        yield None
        return
    from chainer_cpu import _plugin

    added = "cpu" not in {p.name for p in plugins.list_plugins()}
    if added:
        plugins.register(_plugin, name="cpu")
    yield _plugin
    if added:
        plugins.unregister("cpu")
