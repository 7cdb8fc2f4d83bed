"""Tests of the ``chainer.datasets`` package namespace."""

import importlib
import subprocess
import sys

import pytest

from chainer import datasets


@pytest.mark.parametrize("name", ["image_dataset", "mnist", "sub_dataset", "ptb"])
def test_submodules_are_attributes(name):
    module = getattr(datasets, name)
    assert module is importlib.import_module(f"chainer.datasets.{name}")
    assert name in dir(datasets)


def test_unknown_name():
    with pytest.raises(AttributeError, match="'no_such_dataset'"):
        datasets.no_such_dataset  # noqa: B018


def test_image_dataset_available_tells_whether_pillow_imports(monkeypatch):
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        expected = False
    else:
        expected = True
    original = datasets.image_dataset
    assert original.available is expected
    # Computed at first use, from a fresh import of the module; the package
    # attribute and sys.modules get the original module back afterwards.
    monkeypatch.setattr(datasets, "image_dataset", original)
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.delitem(sys.modules, "chainer.datasets.image_dataset")
    fresh = importlib.import_module("chainer.datasets.image_dataset")
    assert fresh is not original
    assert fresh.available is False


def test_importing_image_dataset_does_not_import_pillow():
    code = (
        "import sys; import chainer.datasets.image_dataset; print('PIL' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
