"""type_check.fast_path: predicates that let FunctionNode.apply skip a check."""

import itertools

import numpy
import pytest

import chainer
from chainer import function_node
from chainer.utils import type_check

try:  # the catalogue's nodes, where chainer-links is installed
    import chainer.functions
except ModuleNotFoundError:
    HAVE_LINKS = False
else:
    HAVE_LINKS = True


class _Square(function_node.FunctionNode):
    calls = 0

    @type_check.fast_path(lambda node, xs: len(xs) == 1 and xs[0].dtype.kind == "f")
    def check_type_forward(self, in_types):
        type(self).calls += 1
        type_check.expect(in_types.size() == 1, in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        return (inputs[0] ** 2,)


class _StrictSquare(_Square):
    def check_type_forward(self, in_types):
        type(self).calls += 1
        type_check.expect(in_types[0].ndim == 1)


def test_passing_predicate_skips_the_check():
    _Square.calls = 0
    (y,) = _Square().apply((numpy.ones(3, numpy.float32),))
    numpy.testing.assert_array_equal(y.array, numpy.ones(3, numpy.float32))
    assert _Square.calls == 0


def test_failing_predicate_runs_the_check_and_reports():
    _Square.calls = 0
    with pytest.raises(type_check.InvalidType, match="dtype.kind == 'f'"):
        _Square().apply((numpy.ones(3, numpy.int32),))
    assert _Square.calls >= 1


def test_an_overriding_subclass_does_not_inherit_the_predicate():
    _StrictSquare.calls = 0
    with pytest.raises(type_check.InvalidType, match="ndim == 1"):
        _StrictSquare().apply((numpy.ones((2, 2), numpy.float32),))
    assert _StrictSquare.calls >= 1


def test_type_check_off_skips_predicate_and_check():
    _Square.calls = 0
    with chainer.using_config("type_check", False):
        _Square().apply((numpy.ones(3, numpy.int32),))
    assert _Square.calls == 0


def test_staticmethod_checks_carry_the_predicate():
    def pred(node, xs):
        return True

    @type_check.fast_path(pred)
    @staticmethod
    def check(in_types):
        pass

    assert check.__func__._fast_type_check is pred


def _all_node_classes():
    seen = set()
    stack = [function_node.FunctionNode]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return seen


def _fast_checked_classes():
    found = []
    for cls in _all_node_classes():
        predicate = getattr(cls.check_type_forward, "_fast_type_check", None)
        if predicate is not None and not cls.__module__.startswith("tests"):
            found.append(cls)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


# Nodes whose predicate reads constructor arguments, built with arguments
# that some of the grid's arrays fit and others do not.
_FACTORIES = {
    "Reshape": lambda cls: cls((3, 2)),
    "Transpose": lambda cls: cls((1, 0)),
    "Softmax": lambda cls: cls(axis=1),
    "LogSoftmax": lambda cls: cls(axis=-1),
    "Dropout": lambda cls: cls(0.5),
}


def _node(cls):
    factory = _FACTORIES.get(cls.__name__)
    if factory is not None:
        return factory(cls)
    try:
        return cls()
    except TypeError:
        return object.__new__(cls)


_DTYPES = (numpy.float16, numpy.float32, numpy.float64, numpy.int32, numpy.bool_)
_SHAPES = ((), (3,), (2, 3), (3, 2), (2, 3, 4), (2, 1), (2,))
_ARRAYS = [numpy.zeros(s, d) for d in _DTYPES for s in _SHAPES]


def test_the_core_has_fast_paths():
    names = {c.__name__ for c in _fast_checked_classes()}
    assert {
        "Add",
        "Mul",
        "MulConstant",
        "Sum",
        "Reshape",
        "Transpose",
        "GetItem",
    } <= names


@pytest.mark.skipif(not HAVE_LINKS, reason="chainer-links is not installed")
def test_the_catalogue_has_fast_paths():
    names = {c.__name__ for c in _fast_checked_classes()}
    hot = {"ReLU", "Sigmoid", "Tanh", "LinearFunction", "SoftmaxCrossEntropy"}
    hot |= {"Softmax", "LogSoftmax", "Dropout", "MeanSquaredError", "Accuracy"}
    assert hot <= names


@pytest.mark.parametrize("cls", _fast_checked_classes(), ids=lambda c: c.__qualname__)
def test_predicate_implies_the_check(cls):
    # Wherever the predicate vouches for inputs, the check itself passes.
    node = _node(cls)
    predicate = cls.check_type_forward._fast_type_check
    vouched = 0
    cases = itertools.chain(
        ((a,) for a in _ARRAYS),
        itertools.product(_ARRAYS, repeat=2),
        ((a, a, a) for a in _ARRAYS),
    )
    for xs in cases:
        if not predicate(node, list(xs)):
            continue
        vouched += 1
        node._check_data_type_full(tuple(xs))  # raises InvalidType if wrong
    assert vouched > 0
