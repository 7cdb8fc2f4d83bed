"""Every module path of Chainer 7.8.1 imports.

``chainer7-modules.txt`` beside this file is a copy of the list of Chainer
7.8.1's module paths (its ``chainer/`` package). A user script, a library or a
test file that imports one of them must not fail on the import. Modules owned
by a distribution that is not installed (CI also runs chainer-core alone) are
skipped with the distribution's name.
"""

import importlib
import importlib.util
import pathlib
import warnings

import pytest

MODULES_FILE = pathlib.Path(__file__).with_name("chainer7-modules.txt")

# Prefix of a module path -> (distribution owning it, package whose presence
# tells that distribution is installed).
OWNERS = (
    ("chainer.functions", "chainer-links", "chainer.functions"),
    ("chainer.links", "chainer-links", "chainer.links"),
    ("chainer.distributions", "chainer-links", "chainer.distributions"),
    ("chainer.distribution", "chainer-links", "chainer.distributions"),
    ("chainer.exporters", "chainer-links", "chainer.links"),
    ("chainer.training", "chainer-training", "chainer.training"),
    ("chainer.iterators", "chainer-training", "chainer.iterators"),
    ("chainer.datasets", "chainer-datasets", "chainer.datasets"),
)


def _module_paths():
    lines = MODULES_FILE.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _owner(path):
    for prefix, distribution, probe in OWNERS:
        if path == prefix or path.startswith(prefix + "."):
            return distribution, probe
    return "chainer-core", "chainer"


def test_list_is_chainers():
    paths = _module_paths()
    assert len(paths) == 455
    assert paths[0] == "chainer"
    assert all(p == "chainer" or p.startswith("chainer.") for p in paths)


@pytest.mark.parametrize("path", _module_paths())
def test_module_imports(path):
    distribution, probe = _owner(path)
    if importlib.util.find_spec(probe) is None:
        pytest.skip(f"{distribution} is not installed")
    with warnings.catch_warnings():
        # Some of Chainer's module paths are deprecated aliases that warn on
        # import, as they do in Chainer 7.
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        module = importlib.import_module(path)
    assert module.__name__ in (path, *_aliases(path))


def _aliases(path):
    # ``chainer.cuda`` is Chainer's alias of ``chainer.backends.cuda``: one
    # module under two paths.
    return {"chainer.cuda": ("chainer.backends.cuda",)}.get(path, ())
