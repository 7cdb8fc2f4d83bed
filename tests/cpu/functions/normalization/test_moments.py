"""chainer-cpu's per-channel sums against a float64 reference, on every branch.

``channel_sum`` and ``channel_dot`` of
``chainer_cpu.functions.normalization.moments`` pick a formulation by the
trailing length and the memory order of their inputs; each must agree with
``x.sum(axis)`` whatever the layout.
"""

import numpy
import pytest

from chainer.functions.normalization import moments
from chainer_cpu.functions.normalization import moments as cpu_moments

# (shape, reduced axes): trailing lengths 1, < 32, 32..255, >= 256, a single
# leading sample, and channel axes that are not adjacent (no 3-d view).
_CASES = [
    ((7, 5), (0,)),
    ((1, 4, 40), (0, 2)),
    ((6, 3, 2, 3), (0, 2, 3)),
    ((5, 3, 6, 8), (0, 2, 3)),
    ((4, 3, 16, 17), (0, 2, 3)),
    ((3, 2, 4, 5), (0, 2)),
    ((3, 4, 5), (1,)),
]
_LAYOUTS = ["c_order", "channel_major", "batch_innermost", "channels_last", "strided"]


def _make(rng, shape, layout, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    if layout == "channel_major" and a.ndim >= 2:
        return numpy.ascontiguousarray(a.swapaxes(0, 1)).swapaxes(0, 1)
    if layout == "batch_innermost" and a.ndim >= 3:
        order = (1, *range(2, a.ndim), 0)
        return numpy.ascontiguousarray(a.transpose(order)).transpose(
            numpy.argsort(order)
        )
    if layout == "channels_last" and a.ndim >= 3:
        return _channels_last(a)
    if layout == "strided":
        big = rng.standard_normal((*shape[:-1], 2 * shape[-1])).astype(dtype)
        return big[..., ::2]
    return a


def _channels_last(a):
    # a's values, stored with axis 1 innermost.
    order = (0, *range(2, a.ndim), 1)
    return numpy.ascontiguousarray(a.transpose(order)).transpose(numpy.argsort(order))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize(("shape", "axis"), _CASES)
def test_channel_sums_match_the_reference(shape, axis, layout, dtype):
    rng = numpy.random.default_rng(5)
    a, b = _make(rng, shape, layout, dtype), _make(rng, shape, layout, dtype)
    lay = moments.get_layout(shape, axis)
    av, bv = lay.view(a), lay.view(b)
    a64, b64 = a.astype(numpy.float64), b.astype(numpy.float64)
    tol = {"rtol": 1e-5, "atol": 1e-4} if dtype == numpy.float32 else {"rtol": 1e-12}
    got = cpu_moments.channel_sum(lay, av)
    assert got.shape == (lay.channels,)
    assert got.dtype == dtype
    numpy.testing.assert_allclose(got, a64.sum(axis=axis).ravel(), **tol)
    got = cpu_moments.channel_dot(lay, av, bv)
    assert got.shape == (lay.channels,)
    assert got.dtype == dtype
    numpy.testing.assert_allclose(got, (a64 * b64).sum(axis=axis).ravel(), **tol)
    # The catalogue's reference reductions give the same.
    numpy.testing.assert_allclose(lay.sum(av), a64.sum(axis=axis).ravel(), **tol)
    numpy.testing.assert_allclose(
        lay.dot(av, bv), (a64 * b64).sum(axis=axis).ravel(), **tol
    )


def test_channel_blocks_views_channels_that_fill_one_block():
    rng = numpy.random.default_rng(6)
    shape = (4, 3, 5)
    for layout in ("channel_major", "batch_innermost"):
        a = _make(rng, shape, layout, numpy.float32)
        (rows,) = cpu_moments.channel_blocks(a)
        assert rows.shape == (3, 20)
        assert numpy.shares_memory(rows, a)
        numpy.testing.assert_array_equal(numpy.sort(rows, axis=1), numpy.sort(
            a.swapaxes(0, 1).reshape(3, -1), axis=1
        ))  # fmt: skip
    c_order = _make(rng, shape, "c_order", numpy.float32)
    assert cpu_moments.channel_blocks(c_order) is None
    # A pair in two different orders has no corresponding rows.
    cm = _make(rng, shape, "channel_major", numpy.float32)
    bi = _make(rng, shape, "batch_innermost", numpy.float32)
    assert cpu_moments.channel_blocks(cm, bi) is None
    rows = cpu_moments.channel_blocks(bi, bi.copy(order="K"))
    assert rows is not None
    assert len(rows) == 2


def test_long_maps_of_a_pair_in_different_orders():
    # The per-sample GEMV route (no common channel rows) agrees too.
    rng = numpy.random.default_rng(7)
    shape = (3, 2, 300)
    a = _make(rng, shape, "batch_innermost", numpy.float32)
    b = _make(rng, shape, "c_order", numpy.float32)
    lay = moments.get_layout(shape, (0, 2))
    expected = (a.astype(numpy.float64) * b).sum(axis=(0, 2))
    numpy.testing.assert_allclose(
        cpu_moments.channel_dot(lay, a, b), expected, rtol=1e-5, atol=1e-4
    )


def test_channels_last_views_one_row_per_position():
    rng = numpy.random.default_rng(8)
    a = _make(rng, (4, 3, 5), "channels_last", numpy.float32)
    b = _make(rng, (4, 3, 5), "channels_last", numpy.float32)
    rows = cpu_moments.channels_last(a, b)
    assert [r.shape for r in rows] == [(20, 3), (20, 3)]
    assert all(r.flags.c_contiguous for r in rows)
    assert numpy.shares_memory(rows[0], a)
    numpy.testing.assert_array_equal(rows[0], a.transpose(0, 2, 1).reshape(20, 3))
    # C order, one channel or one position per sample: the other branches'.
    assert (
        cpu_moments.channels_last(_make(rng, (4, 3, 5), "c_order", numpy.float32))
        is None
    )
    assert (
        cpu_moments.channels_last(_make(rng, (4, 1, 5), "channels_last", numpy.float32))
        is None
    )
    assert (
        cpu_moments.channels_last(_make(rng, (4, 3, 1), "channels_last", numpy.float32))
        is None
    )
    # Every array must be channels-last.
    other = _make(rng, (4, 3, 5), "batch_innermost", numpy.float32)
    assert cpu_moments.channels_last(a, other) is None
    assert cpu_moments.channels_last(a[:, :, ::2]) is None


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    ("rows", "channels"),
    # Rows a multiple of row_group, with rows left over, fewer than one
    # group, and channels wider than ROW_ELEMENTS (groups of one row).
    [(64 * 6, 16), (64 * 6 + 37, 16), (5, 16), (101, 3), (7, 1100)],
)
def test_column_sums_of_rows_left_over(rows, channels, dtype):
    rng = numpy.random.default_rng(9)
    a, b = (rng.standard_normal((rows, channels)).astype(dtype) for _ in range(2))
    a64, b64 = a.astype(numpy.float64), b.astype(numpy.float64)
    tol = {
        numpy.float16: {"rtol": 1e-2, "atol": 1e-1},
        numpy.float32: {"rtol": 1e-5, "atol": 1e-4},
        numpy.float64: {"rtol": 1e-12},
    }[dtype]
    got = cpu_moments.column_sum(a)
    assert got.dtype == dtype
    numpy.testing.assert_allclose(got, a64.sum(axis=0), **tol)
    got = cpu_moments.column_sum(a, numpy.float64)
    assert got.dtype == numpy.float64
    numpy.testing.assert_allclose(got, a64.sum(axis=0), **tol)
    got = cpu_moments.column_dot(a, b)
    assert got.shape == (channels,)
    assert got.dtype == dtype
    numpy.testing.assert_allclose(got, (a64 * b64).sum(axis=0), **tol)
