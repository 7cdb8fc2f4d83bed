"""docs/plugin_hooks.md documents every hookspec and every chainer.plugins name."""

import inspect
import pathlib

import pluggy

from chainer import _hookspecs
from chainer import plugins

_DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "plugin_hooks.md"


def _specs():
    return {
        name: func
        for name, func in vars(_hookspecs).items()
        if callable(func) and hasattr(func, "chainer_spec")
    }


def test_every_hookspec_is_documented_with_its_signature():
    text = _DOC.read_text()
    specs = _specs()
    assert sorted(specs) == [
        "register_backends",
        "register_datasets",
        "register_extensions",
        "register_functions",
        "register_kernels",
        "register_links",
    ]
    for name, func in specs.items():
        signature = str(inspect.signature(func)).replace("'", "")
        assert f"### `{name}{signature}`" in text, name
        assert ":return:" in (func.__doc__ or ""), name


def test_every_public_name_is_documented():
    text = _DOC.read_text()
    for name in plugins.__all__:
        assert f"`{name}" in text, name
        assert hasattr(plugins, name), name


def test_hookspec_marker_matches_the_implementation_marker():
    assert isinstance(plugins.hookspec, pluggy.HookspecMarker)
    assert plugins.hookspec.project_name == plugins.hookimpl.project_name
