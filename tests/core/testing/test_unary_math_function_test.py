import unittest

import numpy
import pytest

from chainer import function_node
from chainer import testing


class _Exp(function_node.FunctionNode):
    def __init__(self, wrong_backward=False):
        self.wrong_backward = wrong_backward

    def forward(self, inputs):
        (x,) = inputs
        self.retain_outputs((0,))
        return (numpy.exp(x),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        if self.wrong_backward:
            return (gy * y * 1.5,)
        return (gy * y,)


def exp(x):
    (y,) = _Exp().apply((x,))
    return y


def _wrong_exp(x):
    (y,) = _Exp(wrong_backward=True).apply((x,))
    return y


@testing.unary_math_function_unittest(exp)
class TestExp(unittest.TestCase):
    pass


def _positive_data(shape, dtype):
    x = numpy.random.uniform(0.5, 1, shape).astype(dtype)
    gy = numpy.random.uniform(-1, 1, shape).astype(dtype)
    ggx = numpy.random.uniform(-1, 1, shape).astype(dtype)
    return x, gy, ggx


def test_generated_classes():
    classes = [v for k, v in globals().items() if k.startswith("TestExp_param_")]
    assert len(classes) == 6
    assert {(c.shape, c.dtype) for c in classes} == {
        (s, d)
        for s in [(3, 2), ()]
        for d in [numpy.float16, numpy.float32, numpy.float64]
    }
    for name in ["test_forward_cpu", "test_backward_cpu", "test_double_backward_cpu"]:
        assert callable(getattr(classes[0], name))
    assert "gpu" in [m.name for m in classes[0].test_forward_gpu.pytestmark]


def _run_inner(decorated, test_name, shape=(3, 2), dtype=numpy.float32):
    (cls,) = [c for _, c in decorated.cases if c.shape == shape and c.dtype == dtype]
    case = cls(test_name)
    case.setUp()
    getattr(case, test_name)()


def test_wrong_backward_fails():
    class Case(unittest.TestCase):
        __test__ = False

    bundle = testing.unary_math_function_unittest(
        _wrong_exp, func_expected=numpy.exp, make_data=_positive_data
    )(Case)
    try:
        _run_inner(bundle, "test_forward_cpu")
        with pytest.raises(AssertionError, match="check_backward failed"):
            _run_inner(bundle, "test_backward_cpu")
    finally:
        for name, _ in bundle.cases:
            globals().pop(name, None)


def test_wrong_forward_fails():
    class Case(unittest.TestCase):
        __test__ = False

    bundle = testing.unary_math_function_unittest(exp, func_expected=numpy.sin)(Case)
    try:
        with pytest.raises(AssertionError):
            _run_inner(bundle, "test_forward_cpu")
    finally:
        for name, _ in bundle.cases:
            globals().pop(name, None)


def test_bad_input():
    def no_numpy_counterpart(x):
        return x

    with pytest.raises(ValueError, match="NumPy has no functions"):
        testing.unary_math_function_unittest(no_numpy_counterpart)
    with pytest.raises(ValueError, match="Expected label"):
        testing.unary_math_function_unittest(exp, label_expected="exp")
    with pytest.raises(TypeError, match="callable"):
        testing.unary_math_function_unittest(3)
    with pytest.raises(TypeError, match="unittest.TestCase"):
        testing.unary_math_function_unittest(exp)(object)
    with pytest.warns(DeprecationWarning, match="is_linear"):
        testing.unary_math_function_unittest(exp, is_linear=False)
