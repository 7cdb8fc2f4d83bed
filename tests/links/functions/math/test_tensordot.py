import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import tensordot
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product_dict(
        [
            {"shapes": ((3, 4, 2), (4, 2, 5)), "axes": 2},
            {"shapes": ((3, 4), (4, 5)), "axes": 1},
            {"shapes": ((3, 2), (4,)), "axes": 0},
            {"shapes": ((3, 4, 2), (2, 3, 5)), "axes": ((0, 2), (1, 0))},
            {"shapes": ((3, 4, 2), (5, 4, 3)), "axes": ([-1 + 1, 1], [2, -2])},
            {"shapes": ((2, 3), (3, 2)), "axes": (1, 0)},
            {"shapes": ((2, 3, 4), (4, 3, 2)), "axes": ((0, 1, 2), (2, 1, 0))},
            {"shapes": ((), ()), "axes": 0},
        ],
        [{"dtype": d} for d in _DTYPES],
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestTensorDot(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes
        )

    def forward(self, inputs, device):
        a, b = inputs
        return (tensordot.tensordot(a, b, axes=self.axes),)

    def forward_expected(self, inputs):
        a, b = inputs
        y = numpy.tensordot(a.astype(numpy.float64), b, axes=self.axes)
        return (numpy.asarray(y, self.dtype),)


def test_exported_as_f():
    assert chainer.functions.tensordot is tensordot.tensordot


def test_contracted_sizes_differ():
    with pytest.raises(type_check.InvalidType):
        tensordot.tensordot(numpy.ones((2, 3), "f"), numpy.ones((2, 3), "f"), axes=1)


def test_dtype_errors():
    a = numpy.ones((2, 3), "f")
    with pytest.raises(type_check.InvalidType):
        tensordot.tensordot(a.astype("i"), a.astype("i"), axes=([1], [1]))
    with pytest.raises(type_check.InvalidType):
        tensordot.tensordot(a, a.astype("i"), axes=([1], [1]))


@pytest.mark.parametrize(
    ("a_dtype", "b_dtype"),
    [
        (numpy.float16, numpy.float32),
        (numpy.float32, numpy.float64),
        (numpy.float64, numpy.float16),
    ],
)
def test_mixed_float_dtypes(a_dtype, b_dtype):
    a = chainer.Variable(numpy.random.uniform(-1, 1, (3, 4)).astype(a_dtype))
    b = chainer.Variable(numpy.random.uniform(-1, 1, (4, 2)).astype(b_dtype))
    y = tensordot.tensordot(a, b, axes=1)
    assert y.dtype == numpy.result_type(a_dtype, b_dtype)
    numpy.testing.assert_allclose(
        y.array, numpy.tensordot(a.array, b.array, axes=1), rtol=1e-3
    )
    gy = numpy.random.uniform(-1, 1, (3, 2)).astype(y.dtype)
    y.grad = gy
    y.backward()
    assert a.grad.dtype == a_dtype
    assert b.grad.dtype == b_dtype
    numpy.testing.assert_allclose(a.grad, gy @ b.array.T, rtol=1e-2, atol=1e-3)
    numpy.testing.assert_allclose(b.grad, a.array.T @ gy, rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize(
    ("axes", "error"),
    [
        (3, ValueError),
        (-1, ValueError),
        (((0, 1), (0,)), ValueError),
        (((2,), (0,)), ValueError),
        (((0, 0), (0, 1)), ValueError),
        (((0, 1), (0, 1), (0, 0)), ValueError),
        ([0], ValueError),
        (1.0, TypeError),
        ("ab", TypeError),
        (None, TypeError),
    ],
)
def test_bad_axes(axes, error):
    a = numpy.ones((2, 2), "f")
    with pytest.raises(error):
        tensordot.tensordot(a, a, axes=axes)
