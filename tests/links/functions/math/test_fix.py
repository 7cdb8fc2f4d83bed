import numpy
import pytest

import chainer
from chainer.functions.math import fix

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("shape", [(3, 4), ()])
@pytest.mark.parametrize("as_variable", [True, False])
def test_forward(dtype, shape, as_variable):
    x = numpy.random.uniform(-3, 3, shape).astype(dtype)
    x_in = chainer.Variable(x) if as_variable else x
    y = fix.fix(x_in)
    assert isinstance(y, chainer.Variable)
    assert y.dtype == dtype
    assert y.shape == shape
    numpy.testing.assert_array_equal(y.array, numpy.trunc(x))


def test_values_at_special_points():
    x = numpy.array([-1.5, -0.5, 0.0, 0.5, 1.0], numpy.float32)
    numpy.testing.assert_array_equal(fix.fix(x).array, [-1.0, -0.0, 0.0, 0.0, 1.0])


def test_output_is_cut_from_the_graph():
    x = chainer.Variable(numpy.array([0.5, -1.5], numpy.float32))
    y = fix.fix(x * 2)
    assert y.creator is None
    assert not y.requires_grad
    # In further computation it acts as a constant.
    z = x * y
    z.grad = numpy.ones(2, numpy.float32)
    z.backward()
    numpy.testing.assert_array_equal(x.grad, y.array)


def test_integer_input_keeps_its_dtype():
    x = numpy.array([-2, 0, 3], numpy.int32)
    y = fix.fix(x)
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, numpy.trunc(x).astype(numpy.int32))


def test_non_array_input_is_rejected():
    with pytest.raises(TypeError, match="fix expects an array"):
        fix.fix([1.5, 2.5])
