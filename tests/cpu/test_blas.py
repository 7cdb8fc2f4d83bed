import numpy
import pytest

from chainer_cpu import _blas


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("transb", [False, True])
def test_accumulating_gemm_matches_matmul(dtype, transb):
    gemm = _blas.gemm_function(dtype)
    if gemm is None:
        pytest.skip("NumPy's BLAS exports no CBLAS gemm in this build")
    rng = numpy.random.RandomState(1)
    a = rng.standard_normal(2 + 5 * 4).astype(dtype)  # (5, 4) from offset 2
    b = rng.standard_normal(3 + 6 * 7).astype(dtype)  # (4, 6) or (6, 4) in ld 7
    c = rng.standard_normal((5, 6)).astype(dtype)
    a2 = a[2:].reshape(5, 4)
    if transb:
        b2 = numpy.lib.stride_tricks.as_strided(
            b[3:], shape=(4, 6), strides=(b.itemsize, 7 * b.itemsize)
        )
    else:
        b2 = numpy.lib.stride_tricks.as_strided(
            b[3:], shape=(4, 6), strides=(7 * b.itemsize, b.itemsize)
        )
    for beta in (0.0, 1.0):
        expected = a2 @ b2 + beta * c
        gemm(5, 6, 4, a, 4, b, 7, beta, c, 6, a_offset=2, b_offset=3, transb=transb)
        tol = 1e-5 if dtype == numpy.float32 else 1e-12
        numpy.testing.assert_allclose(c, expected, rtol=tol, atol=tol)


def test_no_gemm_for_half_precision():
    assert _blas.gemm_function(numpy.float16) is None
