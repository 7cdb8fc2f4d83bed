"""Fixtures for the example-program tests.

Each test runs in its own working directory with a private dataset root and no
network. Example scripts are loaded from ``examples/`` by path and driven
through their ``main(argv)`` in this process, the way ``python script.py``
would run them but without a fresh interpreter per run.

Fixtures:
    dataset_root (autouse): ``pathlib.Path`` of an empty dataset root in
        ``tmp_path``, set with ``download.set_dataset_root`` and restored after.
    load_example: ``load_example('mnist/train_mnist.py')`` imports the script
        as a fresh module (its directory first on ``sys.path``, so sibling
        modules such as ``net.py`` import as they do from the command line)
        and returns it; sibling modules are dropped from ``sys.modules``
        afterwards so examples with same-named helpers do not collide.
    run_script: ``run_script('mnist/train_mnist.py', '--help')`` runs the
        script in a subprocess and returns the ``CompletedProcess`` (text
        output captured, ``check=False``).
    read_log: ``read_log(out_dir)`` returns the list of entries LogReport
        wrote to ``out_dir / 'log'``.
"""

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(autouse=True)
def _run_in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # Examples draw plots; never open a window.
    monkeypatch.setenv("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def dataset_root(private_dataset_root):
    """An empty dataset root for the test; nothing goes to ``~/.chainer``."""
    return private_dataset_root


@pytest.fixture(autouse=True)
def _no_network(no_network):
    # Examples under test get their data from monkeypatched getters or files
    # the test writes.
    return no_network


@pytest.fixture
def load_example(monkeypatch):
    loaded = []
    before = set(sys.modules)

    def load(relpath):
        path = EXAMPLES / relpath
        monkeypatch.syspath_prepend(str(path.parent))
        name = "_example_" + relpath.replace("/", "_").removesuffix(".py")
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        loaded.append(name)
        spec.loader.exec_module(module)
        return module

    yield load
    for name in set(sys.modules) - before:
        file = getattr(sys.modules[name], "__file__", None) or ""
        if name in loaded or file.startswith(str(EXAMPLES)):
            del sys.modules[name]


@pytest.fixture
def run_script():
    def run(relpath, *args, timeout=120):
        return subprocess.run(
            [sys.executable, str(EXAMPLES / relpath), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    return run


@pytest.fixture
def read_log():
    def read(out_dir):
        with open(pathlib.Path(out_dir) / "log") as f:
            return json.load(f)

    return read
