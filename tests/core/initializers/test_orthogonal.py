import numpy
import pytest

from chainer import initializers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _rtol(dtype):
    return 5e-3 if dtype == numpy.float16 else 1e-5


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 5), (4, 4), (2, 3, 2)])
def test_rows_orthonormal(dtype, shape):
    a = numpy.empty(shape, dtype=dtype)
    initializers.Orthogonal(scale=1.0)(a)
    flat = a.reshape(shape[0], -1).astype("f8")
    numpy.testing.assert_allclose(flat @ flat.T, numpy.eye(shape[0]), atol=_rtol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_columns_orthonormal_when_tall(dtype):
    a = numpy.empty((6, 2), dtype=dtype)
    initializers.Orthogonal(scale=2.0)(a)
    m = a.astype("f8")
    numpy.testing.assert_allclose(m.T @ m, 4 * numpy.eye(2), atol=4 * _rtol(dtype))


def test_default_scale():
    a = numpy.empty((3, 3))
    initializers.Orthogonal()(a)
    numpy.testing.assert_allclose(a @ a.T, 1.21 * numpy.eye(3), atol=1e-10)


def test_zero_dim():
    a = numpy.empty(())
    initializers.Orthogonal(scale=3.0)(a)
    assert abs(float(a)) == 3.0


def test_seeded():
    a, b = numpy.empty((3, 4)), numpy.empty((3, 4))
    numpy.random.seed(0)
    initializers.Orthogonal()(a)
    numpy.random.seed(0)
    initializers.Orthogonal()(b)
    numpy.testing.assert_array_equal(a, b)
    c = numpy.empty((3, 4))
    initializers.Orthogonal(rng=numpy.random.RandomState(0))(c)
    numpy.testing.assert_array_equal(a, c)


@pytest.mark.parametrize(
    ("mode", "ok", "bad"),
    [
        ("projection", [(2, 3), (3, 3)], [(3, 2)]),
        ("embedding", [(3, 2), (3, 3)], [(2, 3)]),
        ("basis", [(3, 3), (3, 1, 3)], [(2, 3), (3, 2)]),
        ("auto", [(2, 3), (3, 2), (3, 3)], []),
    ],
)
def test_modes(mode, ok, bad):
    init = initializers.Orthogonal(mode=mode)
    for shape in ok:
        init(numpy.empty(shape))
    for shape in bad:
        with pytest.raises(ValueError, match=f"Cannot make orthogonal {mode}"):
            init(numpy.empty(shape))


def test_bad_arguments():
    with pytest.raises(ValueError, match="Invalid mode"):
        initializers.Orthogonal(mode="square")
    with pytest.raises(ValueError, match="must be non-empty"):
        initializers.Orthogonal()(numpy.empty((0, 3)))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        initializers.Orthogonal(seed=1)
