import numpy
import pytest

from chainer import initializers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_constant_scalar(dtype, shape):
    a = numpy.empty(shape, dtype=dtype)
    initializers.Constant(2.5)(a)
    numpy.testing.assert_array_equal(a, numpy.full(shape, 2.5, dtype))


def test_constant_array_broadcast():
    a = numpy.empty((2, 3), dtype=numpy.float32)
    initializers.Constant(numpy.array([1.0, 2.0, 3.0]))(a)
    numpy.testing.assert_array_equal(a, [[1, 2, 3], [1, 2, 3]])
    assert a.dtype == numpy.float32


def test_constant_numpy_scalar_and_int():
    a = numpy.empty(2, dtype=numpy.float64)
    initializers.Constant(numpy.float32(1.5))(a)
    numpy.testing.assert_array_equal(a, [1.5, 1.5])
    initializers.Constant(3)(a)
    numpy.testing.assert_array_equal(a, [3.0, 3.0])


def test_constant_dtype_mismatch():
    init = initializers.Constant(1.0, dtype=numpy.float64)
    with pytest.raises(ValueError, match="created for dtype float64"):
        init(numpy.empty(2, dtype=numpy.float32))


def test_constant_bad_fill_value():
    with pytest.raises(ValueError, match="fill_value must be either a scalar"):
        initializers.Constant("one")
    with pytest.raises(ValueError, match="fill_value must be either a scalar"):
        initializers.Constant([1.0, 2.0])


@pytest.mark.parametrize(
    ("cls", "value"),
    [(initializers.Zero, 0.0), (initializers.One, 1.0), (initializers.NaN, numpy.nan)],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_fixed_value_initializers(cls, value, dtype):
    a = numpy.empty((2, 2), dtype=dtype)
    init = cls(dtype=dtype)
    init(a)
    numpy.testing.assert_array_equal(a, numpy.full((2, 2), value, dtype))
    assert init.dtype is dtype
    assert isinstance(init, initializers.Constant)


@pytest.mark.parametrize("dtype", DTYPES)
def test_identity(dtype):
    a = numpy.empty((3, 3), dtype=dtype)
    initializers.Identity(scale=2.0)(a)
    numpy.testing.assert_array_equal(a, 2 * numpy.eye(3, dtype=dtype))
    initializers.Identity()(a)
    numpy.testing.assert_array_equal(a, numpy.eye(3, dtype=dtype))


@pytest.mark.parametrize("shape", [(2, 3), (3,), (2, 2, 2)])
def test_identity_bad_shape(shape):
    with pytest.raises(ValueError, match="2D squared matrices"):
        initializers.Identity()(numpy.empty(shape))
