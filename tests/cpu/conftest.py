"""Fixtures of chainer-cpu's tests: a CPU team of any width, the plugin registered."""

import os

import pytest

from chainer import plugins
from chainer_cpu import _parallel
from chainer_cpu import _plugin

_HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_collection_modifyitems(config, items):
    # With the plugin disabled (as in CI's run of the reference
    # implementations) its own tests have nothing to test.
    disabled = os.environ.get("CHAINER_DISABLED_PLUGINS", "")
    if "cpu" not in {name.strip().lower() for name in disabled.split(",")}:
        return
    skip = pytest.mark.skip(reason="chainer-cpu is disabled (CHAINER_DISABLED_PLUGINS)")
    for item in items:
        if str(item.path).startswith(_HERE + os.sep):
            item.add_marker(skip)


class FakeBLAS:
    """Thread controls of a BLAS with ``threads`` threads; records the counts set."""

    def __init__(self, threads):
        self.threads = threads
        self.set_counts = []

    def num_threads(self):
        return self.threads

    def set_num_threads(self, n):
        self.set_counts.append(n)
        self.threads = n

    def idle_spin(self):
        return 20


@pytest.fixture
def fake_blas():
    """The :class:`FakeBLAS` class, for tests that build their own team."""
    return FakeBLAS


@pytest.fixture
def cpu_team(monkeypatch):
    """Installs a CPU team of ``threads`` threads over a :class:`FakeBLAS`.

    ``cpu_team(threads)`` returns the team (None and no team for 1), so that
    a team of any width runs on any machine.
    """

    def install(threads):
        team = None if threads == 1 else _parallel._Team(FakeBLAS(threads))
        # Set up already, without a load governor: a convolution's first-use
        # set-up must not put the real team over this one.
        monkeypatch.setitem(_parallel._state, "configured", True)
        monkeypatch.setitem(_parallel._state, "governor", None)
        monkeypatch.setitem(_parallel._state, "team", team)
        return team

    return install


@pytest.fixture
def team_runs(monkeypatch):
    """Records the item count of every ``chainer_cpu._parallel.run`` call.

    Returns the list the counts are appended to; the runs themselves go on.
    """
    counts = []
    real_run = _parallel.run

    def spy(fn, count):
        counts.append(count)
        return real_run(fn, count)

    monkeypatch.setattr(_parallel, "run", spy)
    return counts


@pytest.fixture
def cpu_plugin():
    """Registers chainer-cpu's entry-point module as the plugin ``cpu``.

    The root conftest turns autoloading off; the plugin is unregistered
    afterwards unless it was registered before.
    """
    added = "cpu" not in {p.name for p in plugins.list_plugins()}
    if added:
        plugins.register(_plugin, name="cpu")
    yield _plugin
    if added:
        plugins.unregister("cpu")


@pytest.fixture
def gemm_choice(monkeypatch):
    """Makes chainer_cpu._gemm use ``"numpy"`` or ``"mkl"`` for the test.

    ``gemm_choice(name)`` skips the test for ``"mkl"`` where the ``mkl``
    extra is not installed (CI's test environment installs it).
    """
    from chainer_cpu import _gemm
    from chainer_cpu import _mkl

    def choose(name):
        if name == "mkl" and _mkl.gemm_function("float32") is None:
            pytest.skip(f"MKL is not usable: {_mkl.problem}")
        monkeypatch.setitem(_gemm._state, "choice", name)

    return choose


@pytest.fixture
def conv_choice(monkeypatch):
    """Makes float32 convolutions run on ``"onednn"`` or ``"numpy"`` for the test.

    ``conv_choice(name)`` skips the test for ``"onednn"`` where the ``onednn``
    extra is not usable here (CI's test environment installs it).
    """
    from chainer_cpu import _onednn

    def choose(name):
        if name == "onednn" and _onednn.library() is None:
            pytest.skip(f"oneDNN is not usable: {_onednn.problem}")
        monkeypatch.setitem(_onednn._state, "choice", name)

    return choose
