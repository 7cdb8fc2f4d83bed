import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import trigonometric
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


class _UnaryCase:
    # func, reference and input range are set by each test class.
    low, high = -1.0, 1.0

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        x = numpy.random.uniform(self.low, self.high, self.shape)
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return (type(self).func(inputs[0]),)

    def forward_expected(self, inputs):
        y = type(self).reference(inputs[0].astype(numpy.float64))
        return (numpy.asarray(y).astype(self.dtype),)


_PARAMS = testing.product({"shape": [(3, 2), ()], "dtype": _FLOATS})


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestSin(_UnaryCase, testing.FunctionTestCase):
    func = trigonometric.sin
    reference = numpy.sin
    low, high = -3.0, 3.0


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestCos(_UnaryCase, testing.FunctionTestCase):
    func = trigonometric.cos
    reference = numpy.cos
    low, high = -3.0, 3.0


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestTan(_UnaryCase, testing.FunctionTestCase):
    func = trigonometric.tan
    reference = numpy.tan


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestArcsin(_UnaryCase, testing.FunctionTestCase):
    func = trigonometric.arcsin
    reference = numpy.arcsin
    low, high = -0.8, 0.8


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestArccos(_UnaryCase, testing.FunctionTestCase):
    func = trigonometric.arccos
    reference = numpy.arccos
    low, high = -0.8, 0.8


@testing.parameterize(*_PARAMS)
@testing.inject_backend_tests(None, [{}])
class TestArctan(_UnaryCase, testing.FunctionTestCase):
    func = trigonometric.arctan
    reference = numpy.arctan
    low, high = -3.0, 3.0


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((3, 2), (3, 2)), ((), ()), ((3, 2), (2,)), ((1, 2), (3, 1))],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestArctan2(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        s1, s2 = self.shapes
        x1 = numpy.random.uniform(-1, 1, s1)
        # Away from the origin, where arctan2 is not differentiable, and from
        # the branch cut on the negative x2 axis.
        x2 = numpy.random.uniform(0.5, 1.5, s2)
        return x1.astype(self.dtype), x2.astype(self.dtype)

    def forward(self, inputs, device):
        return (trigonometric.arctan2(*inputs),)

    def forward_expected(self, inputs):
        x1, x2 = (x.astype(numpy.float64) for x in inputs)
        return (numpy.asarray(numpy.arctan2(x1, x2)).astype(self.dtype),)


def test_arctan2_all_quadrants():
    x1 = numpy.array([1.0, 1.0, -1.0, -1.0])
    x2 = numpy.array([1.0, -1.0, -1.0, 1.0])
    y = trigonometric.arctan2(x1, x2)
    numpy.testing.assert_allclose(
        y.array, numpy.array([1, 3, -3, -1]) * numpy.pi / 4, rtol=1e-15
    )


@pytest.mark.parametrize(
    "func",
    [
        trigonometric.sin,
        trigonometric.cos,
        trigonometric.tan,
        trigonometric.arcsin,
        trigonometric.arccos,
        trigonometric.arctan,
    ],
)
def test_unary_int_input_is_invalid(func):
    with pytest.raises(type_check.InvalidType):
        func(numpy.arange(3, dtype=numpy.int32))


def test_labels():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    for name in ("sin", "cos", "tan", "arcsin", "arccos", "arctan"):
        assert getattr(trigonometric, name)(x * 0.5).creator.label == name
    assert trigonometric.arctan2(x, x).creator.label == "arctan2"


def test_arctan2_mixed_dtypes_are_invalid():
    x1 = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType):
        trigonometric.arctan2(x1, x1.astype(numpy.float64))


def test_arctan2_shapes_must_broadcast():
    with pytest.raises(type_check.InvalidType):
        trigonometric.arctan2(
            numpy.ones((2, 3), numpy.float32), numpy.ones((4,), numpy.float32)
        )
