import numpy
import pytest

from chainer import initializers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
# Linear interpolation weights for upsampling by 2 (ksize 4) and by 2 (ksize 3).
TENT4 = numpy.array([0.25, 0.75, 0.75, 0.25])
TENT3 = numpy.array([0.5, 1.0, 0.5])


@pytest.mark.parametrize("dtype", DTYPES)
def test_upsampling_diagonal(dtype):
    a = numpy.empty((2, 2, 4, 4), dtype=dtype)
    initializers.UpsamplingDeconvFilter()(a)
    expected = numpy.outer(TENT4, TENT4)
    numpy.testing.assert_allclose(a[0, 0], expected)
    numpy.testing.assert_allclose(a[1, 1], expected)
    numpy.testing.assert_array_equal(a[0, 1], 0)
    numpy.testing.assert_array_equal(a[1, 0], 0)


def test_upsampling_single_output_channel_and_3d():
    a = numpy.empty((3, 1, 3, 3, 3))
    initializers.UpsamplingDeconvFilter()(a)
    expected = TENT3[:, None, None] * TENT3[None, :, None] * TENT3[None, None, :]
    for c in range(3):
        numpy.testing.assert_allclose(a[c, 0], expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_downsampling_normalized(dtype):
    a = numpy.empty((2, 2, 3, 3), dtype=dtype)
    initializers.DownsamplingConvFilter()(a)
    expected = numpy.outer(TENT3, TENT3) / 4.0
    numpy.testing.assert_allclose(a[1, 1], expected)
    assert float(a[0, 0].sum()) == pytest.approx(1.0)
    numpy.testing.assert_array_equal(a[0, 1], 0)


def test_downsampling_single_input_channel():
    a = numpy.empty((3, 1, 4, 4))
    initializers.DownsamplingConvFilter()(a)
    for c in range(3):
        numpy.testing.assert_allclose(a[c, 0], numpy.outer(TENT4, TENT4) / 4.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Unsupported interpolation"):
        initializers.UpsamplingDeconvFilter(interpolation="cubic")
    with pytest.raises(ValueError, match="Unsupported interpolation"):
        initializers.DownsamplingConvFilter(interpolation="nearest")
    with pytest.raises(ValueError, match="ksize must be all same"):
        initializers.UpsamplingDeconvFilter()(numpy.empty((1, 1, 3, 4)))
    with pytest.raises(ValueError, match="in_channels == out_channels"):
        initializers.UpsamplingDeconvFilter()(numpy.empty((2, 3, 3, 3)))
    with pytest.raises(ValueError, match="out_channels == in_channels"):
        initializers.DownsamplingConvFilter()(numpy.empty((2, 3, 3, 3)))
    with pytest.raises(ValueError, match="ndim >= 3"):
        initializers.DownsamplingConvFilter()(numpy.empty((2, 2)))
