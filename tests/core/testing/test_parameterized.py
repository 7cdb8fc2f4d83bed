import sys
import unittest

import numpy
import pytest

from chainer import testing
from chainer.testing import _bundle


def _double(x):
    return 2 * x


@testing.parameterize({"a": 1, "f": _double}, {"a": 2, "f": _double})
class TestParams(unittest.TestCase):
    def test_attributes(self):
        assert self.a in (1, 2)
        # A function parameter is not bound as a method.
        assert self.f(3) == 6


@testing.parameterize(*testing.product({"n": [1, 2], "dtype": [numpy.float32]}))
class TestPytestStyle:
    def test_n(self):
        assert self.n in (1, 2)
        assert self.dtype is numpy.float32


@testing.parameterize_pytest("x,y", [(1, 2), (3, 4)])
@testing.parameterize_pytest("z", [5])
class TestPytestParams(unittest.TestCase):
    def test_values(self):
        assert self.y == self.x + 1
        assert self.z == 5


_module = sys.modules[__name__]


def _generated(prefix):
    return sorted(k for k in vars(_module) if k.startswith(prefix + "_param_"))


def test_generated_classes_registered_in_module():
    assert isinstance(TestParams, _bundle.TestCaseBundle)
    assert _generated("TestParams") == [
        "TestParams_param_0_{a=1, f=_double}",
        "TestParams_param_1_{a=2, f=_double}",
    ]
    assert len(_generated("TestPytestStyle")) == 2


def test_stacked_decorators_expand_product():
    names = [k for k in vars(_module) if k.startswith("TestPytestParams_")]
    assert len(names) == 2
    for name in names:
        cls = getattr(_module, name)
        assert {cls.x, cls.z} <= {1, 3, 5}
        # Only the final classes are left in the module.
        assert name.count("_param_") == 2


def test_failure_reports_parameters():
    @testing.parameterize({"value": 42})
    class Failing(unittest.TestCase):
        def test_fail(self):
            raise ValueError("boom")

    try:
        (cls,) = [c for _, c in Failing.cases]
        with pytest.raises(ValueError, match="boom") as info:
            cls("test_fail").test_fail()
        notes = "\n".join(info.value.__notes__)
        assert "value: 42" in notes
        assert "Failing.test_fail" in notes
        assert "parameter: {value=42}" in str(cls("test_fail"))
    finally:
        for name, _ in Failing.cases:
            vars(_module).pop(name, None)


def test_skip_passes_through():
    @testing.parameterize({"v": 1})
    class Skipping(unittest.TestCase):
        def test_skip(self):
            raise unittest.SkipTest("skipped")

    try:
        (cls,) = [c for _, c in Skipping.cases]
        with pytest.raises(unittest.SkipTest):
            cls("test_skip").test_skip()
    finally:
        for name, _ in Skipping.cases:
            vars(_module).pop(name, None)


def test_product_dict_form():
    assert testing.product({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"},
        {"a": 1, "b": "y"},
        {"a": 2, "b": "x"},
        {"a": 2, "b": "y"},
    ]
    assert testing.product({}) == [{}]


def test_product_comma_separated_keys():
    params = testing.product({"shape,axis": [((2, 3), 0), ((4,), -1)], "k": [1]})
    assert params == [
        {"k": 1, "shape": (2, 3), "axis": 0},
        {"k": 1, "shape": (4,), "axis": -1},
    ]
    with pytest.raises(ValueError, match="sequence of 2"):
        testing.product({"a,b": [1]})


def test_product_list_form_and_product_dict():
    a = [{"a": 1}, {"a": 2}]
    bc = [{"b": 3, "c": 4}]
    assert testing.product([a, bc]) == testing.product_dict(a, bc)
    assert testing.product_dict(a, bc) == [
        {"a": 1, "b": 3, "c": 4},
        {"a": 2, "b": 3, "c": 4},
    ]
    assert testing.product_dict() == [{}]


def test_from_pytest_parameterize():
    assert testing.from_pytest_parameterize("a", [1, 2]) == [{"a": 1}, {"a": 2}]
    assert testing.from_pytest_parameterize(["a", "b"], [(1, 2)]) == [{"a": 1, "b": 2}]
    assert testing.from_pytest_parameterize("a, b", [[1, 2]]) == [{"a": 1, "b": 2}]


def test_bad_input():
    with pytest.raises(TypeError, match="expects dicts"):
        testing.parameterize([1])
    with pytest.raises(TypeError, match="must be a list"):
        testing.product({"a": 1})
    with pytest.raises(TypeError, match="list of dicts"):
        testing.product([[1]])
    with pytest.raises(TypeError, match="dict or a list"):
        testing.product(3)
    with pytest.raises(ValueError, match="sequence of 2"):
        testing.from_pytest_parameterize("a,b", [1])
    with pytest.raises(ValueError, match="no parameter names"):
        testing.from_pytest_parameterize("", [1])
    with pytest.raises(TypeError, match="test classes"):
        testing.parameterize({"a": 1})(lambda: None)


def test_product_dict_orig_and_pairwise():
    from chainer.testing import parameterized

    # Chainer's conftest swaps product_dict for the pairwise variant and
    # restores _product_dict_orig afterwards.
    assert parameterized._product_dict_orig is testing.product_dict
    lists = [
        [{"a": i} for i in range(3)],
        [{"b": i} for i in range(4)],
        [{"c": i, "d": -i} for i in range(2)],
        [{"e": i} for i in range(3)],
    ]
    combos = parameterized._pairwise_product_dict(*lists)
    assert len(combos) < 3 * 4 * 2 * 3
    keys = ["a", "b", "c", "e"]
    for i, ki in enumerate(keys):
        for j in range(i + 1, len(keys)):
            kj = keys[j]
            seen = {(d[ki], d[kj]) for d in combos}
            assert seen == {
                (x, y) for x in range(len(lists[i])) for y in range(len(lists[j]))
            }
    assert all(d["d"] == -d["c"] for d in combos)
    two = parameterized._pairwise_product_dict(lists[0], lists[1])
    assert two == testing.product_dict(lists[0], lists[1])
    assert parameterized._pairwise_product_dict(lists[0], [], lists[1]) == []


def test_long_parameter_names_keep_braces_paired():
    from chainer.testing import parameterized

    value = [{"k": i} for i in range(40)]
    name = parameterized._param_str({"v": value, "w": "}" + "x" * 200})
    assert "..." in name
    depth = 0
    for c in name:
        depth += {"{": 1, "}": -1}.get(c, 0)
        assert depth >= 0
    assert depth == 0
    assert name.endswith("}")
