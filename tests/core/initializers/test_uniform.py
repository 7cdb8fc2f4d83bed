import math

import numpy
import pytest

from chainer import initializers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPE = (60, 50, 3, 3)  # fan_in = 450, fan_out = 540


@pytest.mark.parametrize("dtype", DTYPES)
def test_uniform_range(dtype):
    a = numpy.empty((200, 100), dtype=dtype)
    numpy.random.seed(0)
    initializers.Uniform(scale=0.3)(a)
    assert a.dtype == dtype
    bound = float(dtype(0.3))  # the interval's ends after rounding to dtype
    assert float(a.min()) >= -bound
    assert float(a.max()) <= bound
    assert float(a.astype("f8").std()) == pytest.approx(0.3 / math.sqrt(3), rel=0.03)


def test_uniform_follows_numpy_seed_and_rng():
    a = numpy.empty(10)
    numpy.random.seed(5)
    initializers.Uniform()(a)
    numpy.random.seed(5)
    numpy.testing.assert_array_equal(a, numpy.random.uniform(-0.05, 0.05, 10))
    b = numpy.empty(10)
    initializers.Uniform(rng=numpy.random.RandomState(2))(b)
    numpy.testing.assert_array_equal(
        b, numpy.random.RandomState(2).uniform(-0.05, 0.05, 10)
    )


@pytest.mark.parametrize(
    ("init", "bound"),
    [
        (initializers.LeCunUniform(), math.sqrt(3.0 / 450)),
        (initializers.GlorotUniform(), math.sqrt(6.0 / (450 + 540))),
        (initializers.GlorotUniform(scale=2.0), 2 * math.sqrt(6.0 / (450 + 540))),
        (initializers.HeUniform(), math.sqrt(6.0 / 450)),
    ],
)
def test_fan_based_bound(init, bound):
    a = numpy.empty(SHAPE, dtype=numpy.float64)
    numpy.random.seed(1)
    init(a)
    assert float(numpy.abs(a).max()) <= bound
    assert float(numpy.abs(a).max()) == pytest.approx(bound, rel=0.01)


@pytest.mark.parametrize(
    "cls",
    [initializers.LeCunUniform, initializers.GlorotUniform, initializers.HeUniform],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_fan_based_dtypes(cls, dtype):
    a = numpy.empty((4, 3), dtype=dtype)
    cls(dtype=dtype)(a)
    assert numpy.isfinite(a).all()


def test_bad_arguments():
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        initializers.Uniform(low=0)
    with pytest.raises(ValueError, match="created for dtype"):
        initializers.Uniform(dtype=numpy.float16)(numpy.empty(3))
