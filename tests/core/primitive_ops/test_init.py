"""chainer.primitive_ops: the public module of core's differentiable primitives."""

import importlib
import inspect

import numpy
import pytest

import chainer
from chainer import primitive_ops

SUBMODULES = ("array", "basic_math", "reduction")


def _contract_names():
    """The public names of the module and of its three submodules."""
    names = [(primitive_ops, name) for name in primitive_ops.__all__]
    for sub in SUBMODULES:
        module = getattr(primitive_ops, sub)
        for name, value in vars(module).items():
            if name.startswith("_") or inspect.ismodule(value):
                continue
            if getattr(value, "__module__", None) == module.__name__:
                names.append((module, name))
    return names


def test_is_an_attribute_of_chainer_and_documented():
    assert chainer.primitive_ops is primitive_ops
    assert "extension of this project" in primitive_ops.__doc__
    for sub in SUBMODULES:
        assert getattr(primitive_ops, sub).__doc__


@pytest.mark.parametrize(
    ("module", "name"),
    _contract_names(),
    ids=[f"{m.__name__}.{n}" for m, n in _contract_names()],
)
def test_public_names_have_docstrings(module, name):
    assert inspect.getdoc(getattr(module, name)), f"{module.__name__}.{name}"


def test_classes_live_under_the_public_name():
    assert primitive_ops.basic_math.MatMul.__module__ == (
        "chainer.primitive_ops.basic_math"
    )
    assert primitive_ops.reduction.Sum.__module__ == "chainer.primitive_ops.reduction"


def test_old_private_name_is_gone():
    # Every distribution imports the public name; chainer._ops is no more.
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("chainer._ops")


def test_variable_operators_use_the_primitives():
    x = chainer.Variable(numpy.array([1.0, -2.0], numpy.float32))
    assert isinstance((x + 1).creator, primitive_ops.basic_math.AddConstant)
    assert isinstance((x @ x).creator, primitive_ops.basic_math.MatMul)
    assert primitive_ops.basic_math.convert_value_to_string(-2) == "(-2)"
