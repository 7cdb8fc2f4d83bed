"""chainer.utils.lazy_namespace: the one lazy-attribute helper of every facade."""

import importlib
import sys

import pytest

from chainer import _namespace
from chainer import plugins
from chainer.utils import lazy_namespace

PACKAGE = "lazyprobe_pkg"


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package ``lazyprobe_pkg`` whose names are attached lazily."""
    root = tmp_path / PACKAGE
    (root / "inner").mkdir(parents=True)
    (root / "__init__.py").write_text(
        "from chainer.utils import lazy_namespace as _lazy_namespace\n"
        "EAGER = 1\n"
        "__getattr__, __dir__ = _lazy_namespace.attach(\n"
        "    __name__,\n"
        "    {'Thing': 'things', 'Ghost': 'absent'},\n"
        "    ('things', 'broken', 'absent'),\n"
        "    aliases={'deep': 'inner.deep'},\n"
        "    plugin_kind='functions',\n"
        ")\n"
    )
    (root / "things.py").write_text("class Thing:\n    pass\n")
    (root / "broken.py").write_text("import lazyprobe_dependency_that_is_missing\n")
    (root / "inner" / "__init__.py").write_text("")
    (root / "inner" / "deep.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # The missing-distribution finder names chainer-datasets for 'absent'.
    monkeypatch.setitem(_namespace._PROVIDERS, f"{PACKAGE}.absent", "chainer-datasets")
    yield importlib.import_module(PACKAGE)
    for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
        del sys.modules[name]


def test_names_load_at_first_use_and_are_then_plain_attributes(package):
    assert f"{PACKAGE}.things" not in sys.modules
    thing = package.Thing
    assert thing.__module__ == f"{PACKAGE}.things"
    assert vars(package)["Thing"] is thing
    assert package.things is sys.modules[f"{PACKAGE}.things"]


def test_aliases_show_a_module_under_another_name(package):
    assert package.deep.VALUE == 42
    assert package.deep is sys.modules[f"{PACKAGE}.inner.deep"]


def test_a_missing_distribution_is_an_attribute_error_naming_it(package):
    assert not hasattr(package, "absent")
    with pytest.raises(AttributeError, match="chainer-datasets"):
        package.absent  # noqa: B018
    with pytest.raises(AttributeError, match="chainer-datasets"):
        package.Ghost  # noqa: B018


def test_a_module_missing_inside_a_listed_module_is_a_real_error(package):
    with pytest.raises(ModuleNotFoundError) as info:
        package.broken  # noqa: B018
    assert info.value.name == "lazyprobe_dependency_that_is_missing"


def test_other_names_come_from_the_plugin_registry(package, monkeypatch):
    def example_op(x):
        return x

    def get_function(name):
        if name == "example_op":
            return example_op
        error = KeyError(name)
        error.hint = "; plugin 'broken' failed to load"
        raise error

    monkeypatch.setattr(plugins, "get_function", get_function)
    monkeypatch.setattr(plugins, "names", lambda kind: ["example_op"])
    assert package.example_op is example_op
    assert "example_op" not in vars(package)  # registries can change
    with pytest.raises(AttributeError) as info:
        package.nothing_here  # noqa: B018
    assert str(info.value) == (
        f"module {PACKAGE!r} has no attribute 'nothing_here'; "
        "plugin 'broken' failed to load"
    )
    shown = dir(package)
    assert shown == sorted(shown)
    assert {"EAGER", "Thing", "Ghost", "things", "deep", "example_op"} <= set(shown)


def test_dunder_lookups_do_not_reach_the_registry(package, monkeypatch):
    def get_function(name):
        raise AssertionError(f"registry asked for {name}")

    monkeypatch.setattr(plugins, "get_function", get_function)
    assert not hasattr(package, "__wrapped__")


def test_unknown_plugin_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown plugin kind 'widgets'"):
        lazy_namespace.attach("x", plugin_kind="widgets")


@pytest.mark.parametrize(
    "name",
    [
        "chainer",
        "chainer.functions",
        "chainer.links",
        "chainer.training",
        "chainer.training.extensions",
        "chainer.training.triggers",
        "chainer.training.updaters",
        "chainer.iterators",
        "chainer.datasets",
    ],
)
def test_every_facade_uses_it(name):
    # CI also runs tests/core with chainer-core alone.
    module = pytest.importorskip(name)
    for hook in ("__getattr__", "__dir__"):
        assert vars(module)[hook].__module__ == "chainer.utils.lazy_namespace"
