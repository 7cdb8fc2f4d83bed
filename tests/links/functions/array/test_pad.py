import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (shape, pad_width, mode, keywords)
                ((3, 4), 1, "constant", {}),
                ((3, 4), ((1, 2), (0, 3)), "constant", {"constant_values": 2.5}),
                ((3, 4), (2, 1), "constant", {"constant_values": ((1, 2), (3, 4))}),
                ((), 1, "constant", {}),
                ((), 2, "edge", {}),
                ((3, 4), [[1], [2]], "constant", {}),
                ((5,), (2, 3), "edge", {}),
                ((3, 4), ((2, 1), (3, 0)), "reflect", {}),
                ((3, 2), ((4, 5), (1, 3)), "reflect", {}),
                ((3, 4), 2, "symmetric", {}),
                ((3, 4), ((4, 5), (1, 1)), "wrap", {}),
                ((2, 3, 2), ((0, 1), (2, 0), (1, 1)), "edge", {}),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestPad(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.pad_width, self.mode, self.keywords = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.pad(x, self.pad_width, self.mode, **self.keywords),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = numpy.pad(x, self.pad_width, mode=self.mode, **self.keywords)
        return (y.astype(self.dtype),)


def test_edge_gradient_sums_copies():
    x = chainer.Variable(numpy.zeros(3, numpy.float32))
    y = functions.pad(x, (2, 1), "edge")
    y.grad = numpy.arange(1, 7, dtype=numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1 + 2 + 3, 4, 5 + 6])


def test_integer_input():
    x = numpy.zeros((2, 2), numpy.int32)
    with pytest.raises(type_check.InvalidType):
        functions.pad(x, 1, "constant")


@pytest.mark.parametrize(
    ("mode", "keywords"),
    [("mean", {}), ("linear_ramp", {}), ("reflect", {"reflect_type": "odd"})],
)
def test_unsupported_mode(mode, keywords):
    x = numpy.zeros((2, 2), numpy.float32)
    with pytest.raises(ValueError, match="supported"):
        functions.pad(x, 1, mode, **keywords)


@pytest.mark.parametrize(
    "pad_width", [1, (1, 2), ((1, 2),), ((1,), (2,)), ((1, 2), (3, 0)), [[3]]]
)
@pytest.mark.parametrize("mode", ["constant", "wrap"])
def test_pad_width_forms(pad_width, mode):
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    y = functions.pad(x, pad_width, mode)
    numpy.testing.assert_array_equal(y.array, numpy.pad(x, pad_width, mode=mode))


def test_negative_pad_width():
    x = numpy.zeros((2, 2), numpy.float32)
    with pytest.raises(ValueError, match="negative"):
        functions.pad(x, (-1, 1), "constant")


def test_non_integral_pad_width():
    x = numpy.zeros((2, 2), numpy.float32)
    with pytest.raises(TypeError, match="integral"):
        functions.pad(x, 1.5, "constant")


def test_pad_width_does_not_fit():
    x = numpy.zeros((2, 2), numpy.float32)
    with pytest.raises(ValueError, match="does not fit"):
        functions.pad(x, ((1, 1), (1, 1), (1, 1)), "constant")
