import numpy
import pytest

from chainer.functions.pooling import pooling_nd
from chainer.utils import type_check


def test_tap_slices_cover_windows_in_c_order():
    x = numpy.arange(30).reshape(1, 1, 5, 6)
    slices = pooling_nd.tap_slices((2, 3), (2, 3), (2, 2))
    assert len(slices) == 6
    # Tap (1, 2) of window (1, 0) reads x[3, 2].
    assert x[slices[1 * 3 + 2]][0, 0, 1, 0] == x[0, 0, 3, 2]


@pytest.mark.parametrize("op", [numpy.maximum, numpy.add])
def test_reduce_windows_matches_taps(op):
    x = numpy.random.rand(2, 3, 7, 8)
    ksize, stride, out = (3, 2), (2, 3), (3, 3)
    taps = [x[key] for key in pooling_nd.tap_slices(ksize, stride, out)]
    expected = taps[0]
    for t in taps[1:]:
        expected = op(expected, t)
    y = pooling_nd.reduce_windows(x, ksize, stride, out, op)
    numpy.testing.assert_allclose(y, expected)


def test_reduce_windows_returns_new_array():
    x = numpy.random.rand(1, 1, 3, 3)
    y = pooling_nd.reduce_windows(x, (1, 1), (1, 1), (3, 3), numpy.maximum)
    assert not numpy.shares_memory(x, y)


def test_window_argmax_and_scatter_gather_are_adjoint():
    x = numpy.random.rand(2, 2, 6, 6)
    ksize, stride, out = (3, 3), (2, 2), (2, 2)
    slices = pooling_nd.tap_slices(ksize, stride, out)
    y = pooling_nd.reduce_windows(x, ksize, stride, out, numpy.maximum)
    idx = pooling_nd.window_argmax(x, y, slices)
    assert idx.dtype == numpy.uint8
    numpy.testing.assert_array_equal(pooling_nd.gather_windows(x, idx, slices), y)
    g = numpy.random.rand(*y.shape)
    h = numpy.random.rand(*x.shape)
    scattered = pooling_nd.scatter_windows(g, idx, slices, x.shape, False)
    gathered = pooling_nd.gather_windows(h, idx, slices)
    numpy.testing.assert_allclose((scattered * h).sum(), (g * gathered).sum())


def test_spread_is_adjoint_of_window_sum():
    x = numpy.random.rand(1, 2, 7, 5)
    ksize, stride, out = (3, 2), (2, 1), (3, 4)
    slices = pooling_nd.tap_slices(ksize, stride, out)
    s = pooling_nd.reduce_windows(x, ksize, stride, out, numpy.add)
    g = numpy.random.rand(*s.shape)
    spread = pooling_nd.spread_windows(g, slices, x.shape, False)
    numpy.testing.assert_allclose((s * g).sum(), (spread * x).sum())


def test_crop():
    buf = numpy.arange(2 * 5 * 6).reshape(1, 2, 5, 6)
    assert pooling_nd.crop(buf, (0, 0), (5, 6)) is buf
    c = pooling_nd.crop(buf, (1, 2), (3, 3))
    numpy.testing.assert_array_equal(c, buf[:, :, 1:4, 2:5])
    assert c.flags.c_contiguous


def test_base_validates_arguments():
    p = pooling_nd.PoolingND(3, 2, None, 1)
    assert (p.ksize, p.stride, p.pad) == ((2, 2, 2), (2, 2, 2), (1, 1, 1))
    with pytest.raises(ValueError, match="ksize"):
        pooling_nd.PoolingND(2, (2, 2, 2))
    with pytest.raises(ValueError, match="positive"):
        pooling_nd.PoolingND(2, 2, 0)
    with pytest.raises(ValueError, match="negative"):
        pooling_nd.PoolingND(2, 2, 1, -1)


@pytest.mark.parametrize("error", [type_check.InvalidType, AssertionError])
def test_window_must_fit(error):
    # Chainer asserts that the output is not empty: the error is both.
    p = pooling_nd.PoolingND(1, 4, 1, 0, cover_all=False)
    with pytest.raises(error, match="window fits"):
        p.apply((numpy.zeros((1, 1, 3), numpy.float32),))


@pytest.mark.parametrize(
    ("shape", "stride", "out"),
    [((1, 2, 6, 4), (2, 2), (3, 2)), ((1, 2, 7, 5), (3, 2), (2, 2))],
)
def test_disjoint_scatter_and_spread_match_general_path(shape, stride, out):
    # Tiling windows write every element (no zero fill); others leave gaps.
    slices = pooling_nd.tap_slices((2, 2), stride, out)
    g = numpy.random.rand(shape[0], shape[1], *out)
    idx = numpy.random.randint(0, 4, g.shape).astype(numpy.uint8)
    numpy.testing.assert_array_equal(
        pooling_nd.scatter_windows(g, idx, slices, shape, True),
        pooling_nd.scatter_windows(g, idx, slices, shape, False),
    )
    numpy.testing.assert_array_equal(
        pooling_nd.spread_windows(g, slices, shape, True),
        pooling_nd.spread_windows(g, slices, shape, False),
    )
