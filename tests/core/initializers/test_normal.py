import math

import numpy
import pytest

from chainer import initializers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPE = (60, 50, 3, 3)  # fan_in = 450, fan_out = 540


@pytest.mark.parametrize("dtype", DTYPES)
def test_normal_statistics(dtype):
    a = numpy.empty((200, 100), dtype=dtype)
    numpy.random.seed(0)
    initializers.Normal(scale=0.5)(a)
    assert a.dtype == dtype
    assert abs(float(a.astype("f8").mean())) < 0.02
    assert float(a.astype("f8").std()) == pytest.approx(0.5, rel=0.03)


def test_normal_follows_numpy_seed():
    a, b = numpy.empty(10), numpy.empty(10)
    numpy.random.seed(3)
    initializers.Normal()(a)
    numpy.random.seed(3)
    initializers.Normal()(b)
    numpy.testing.assert_array_equal(a, b)
    numpy.random.seed(3)
    numpy.testing.assert_array_equal(a, numpy.random.normal(0, 0.05, 10))


def test_rng_argument():
    a, b = numpy.empty((3, 4)), numpy.empty((3, 4))
    initializers.HeNormal(rng=numpy.random.RandomState(7))(a)
    initializers.HeNormal(rng=numpy.random.RandomState(7))(b)
    numpy.testing.assert_array_equal(a, b)
    expected = numpy.random.RandomState(7).normal(0, math.sqrt(2 / 4), (3, 4))
    numpy.testing.assert_allclose(a, expected)


@pytest.mark.parametrize(
    ("init", "std"),
    [
        (initializers.GlorotNormal(), math.sqrt(2.0 / (450 + 540))),
        (initializers.GlorotNormal(scale=2.0), 2 * math.sqrt(2.0 / (450 + 540))),
        (initializers.HeNormal(), math.sqrt(2.0 / 450)),
        (initializers.HeNormal(fan_option="fan_out"), math.sqrt(2.0 / 540)),
        (initializers.LeCunNormal(), math.sqrt(1.0 / 450)),
        (initializers.LeCunNormal(scale=0.5), 0.5 * math.sqrt(1.0 / 450)),
    ],
)
def test_fan_based_std(init, std):
    a = numpy.empty(SHAPE, dtype=numpy.float32)
    numpy.random.seed(1)
    init(a)
    assert float(a.std()) == pytest.approx(std, rel=0.02)


@pytest.mark.parametrize(
    "cls", [initializers.GlorotNormal, initializers.HeNormal, initializers.LeCunNormal]
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_fan_based_dtypes(cls, dtype):
    a = numpy.empty((4, 3), dtype=dtype)
    cls(dtype=dtype)(a)
    assert numpy.isfinite(a).all()
    with pytest.raises(ValueError, match="created for dtype"):
        cls(dtype=numpy.float64)(numpy.empty((4, 3), dtype=numpy.float32))


def test_empty_array_is_left_alone():
    initializers.LeCunNormal()(numpy.empty((0, 3)))


def test_fan_based_needs_2d():
    with pytest.raises(ValueError, match="length >= 2"):
        initializers.HeNormal()(numpy.empty(3))


def test_bad_arguments():
    with pytest.raises(ValueError, match="fan_option should be either"):
        initializers.HeNormal(fan_option="fan_avg")
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        initializers.Normal(seed=3)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        initializers.GlorotNormal(mode="x")
