"""The window helpers of chainer-cpu's pooling kernels, on every memory order."""

import numpy
import pytest

from chainer_cpu import _layout
from chainer_cpu.functions.pooling import pooling_nd

_ORDERS = [pooling_nd.C_ORDER, pooling_nd.BATCH_INNERMOST, pooling_nd.CHANNELS_LAST]


def _batch_innermost(x):
    return _layout.as_batch_innermost(x).transpose(x.ndim - 1, *range(x.ndim - 1))


def _channels_last(x):
    nd = x.ndim - 2
    dense = numpy.ascontiguousarray(x.transpose(0, *range(2, x.ndim), 1))
    return dense.transpose(0, nd + 1, *range(1, nd + 1))


def _in(x, order):
    if order == pooling_nd.BATCH_INNERMOST:
        return _batch_innermost(x)
    if order == pooling_nd.CHANNELS_LAST:
        return _channels_last(x)
    return numpy.ascontiguousarray(x)


def _is_channels_last(a):
    # Checked on the strides: the memory is (n, *spatial, c).
    return a.transpose(0, *range(2, a.ndim), 1).flags.c_contiguous


@pytest.mark.parametrize("pval", [0, -numpy.inf])
@pytest.mark.parametrize("order", _ORDERS)
def test_pad_keeps_the_memory_order(pval, order):
    x = numpy.random.rand(3, 2, 4, 5)
    expected = numpy.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), constant_values=pval)
    given = _in(x, order)
    padded = pooling_nd.pad(given, (1, 0), (2, 1), pval)
    numpy.testing.assert_array_equal(padded, expected)
    assert pooling_nd.order_of(padded) == order
    assert _layout.is_batch_innermost(padded) == (order == pooling_nd.BATCH_INNERMOST)
    assert _is_channels_last(padded) == (order == pooling_nd.CHANNELS_LAST)
    assert padded.flags.c_contiguous == (order == pooling_nd.C_ORDER)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("shape", [(5, 3, 7), (4, 3, 5, 6), (3, 2, 3, 4, 5)])
def test_channels_last_pad_on_cpu_threads(cpu_team, monkeypatch, threads, shape):
    team = cpu_team(threads)
    monkeypatch.setattr(_layout, "PARALLEL_COPY_BYTES", 1)
    x = numpy.random.rand(*shape)
    nd = len(shape) - 2
    lo, hi = (1, 0, 2)[:nd], (2, 1, 0)[:nd]
    widths = ((0, 0), (0, 0), *zip(lo, hi, strict=True))
    padded = pooling_nd.pad(_channels_last(x), lo, hi, -numpy.inf)
    expected = numpy.pad(x, widths, constant_values=-numpy.inf)
    numpy.testing.assert_array_equal(padded, expected)
    assert _is_channels_last(padded)
    if team is not None:
        assert team.helpers


def test_pad_without_widths_copies_only_strided_inputs_when_dense():
    x = numpy.random.rand(3, 2, 4, 5)
    bi = _batch_innermost(x)
    cl = _channels_last(x)
    assert pooling_nd.pad(x, (0, 0), (0, 0), dense=True) is x
    assert pooling_nd.pad(bi, (0, 0), (0, 0), dense=True) is bi
    assert pooling_nd.pad(cl, (0, 0), (0, 0), dense=True) is cl
    view = x.swapaxes(2, 3)
    assert pooling_nd.pad(view, (0, 0), (0, 0)) is view
    dense = pooling_nd.pad(view, (0, 0), (0, 0), dense=True)
    assert dense.flags.c_contiguous
    numpy.testing.assert_array_equal(dense, view)


def test_a_batch_of_one_is_c_order():
    x = numpy.random.rand(1, 2, 4, 5)
    assert _layout.is_batch_innermost(x)
    assert not pooling_nd.is_batch_innermost(x)
    assert pooling_nd.order_of(x) == pooling_nd.C_ORDER
    assert pooling_nd.pad(x, (1, 1), (1, 1)).flags.c_contiguous


def test_orders_of_arrays():
    x = numpy.random.rand(3, 4, 5, 6)
    cl = _channels_last(x)
    assert _layout.is_channels_last(cl)
    assert not _layout.is_channels_last(x)
    assert not _layout.is_channels_last(_batch_innermost(x))
    assert pooling_nd.order_of(cl) == pooling_nd.CHANNELS_LAST
    assert pooling_nd.order_of(_batch_innermost(x)) == pooling_nd.BATCH_INNERMOST
    assert pooling_nd.order_of(x) == pooling_nd.C_ORDER
    # Other orders count as C order (what the passes give for them).
    assert pooling_nd.order_of(x[:, ::2]) == pooling_nd.C_ORDER
    assert pooling_nd.order_of(cl[:, :, 1:]) == pooling_nd.C_ORDER
    # A batch of one is channels-last; one channel, or one pixel, is C order.
    assert pooling_nd.order_of(cl[:1]) == pooling_nd.CHANNELS_LAST
    one_channel = _channels_last(x[:, :1])
    assert not _layout.is_channels_last(one_channel)
    assert pooling_nd.order_of(one_channel) == pooling_nd.C_ORDER
    one_pixel = _channels_last(x[:, :, :1, :1])
    assert _layout.is_channels_last(one_pixel)
    assert pooling_nd.order_of(one_pixel) == pooling_nd.C_ORDER
    # 1-d and 3-d spatial shapes.
    for shape in [(3, 4, 5), (3, 4, 2, 3, 5)]:
        a = _channels_last(numpy.random.rand(*shape))
        assert pooling_nd.order_of(a) == pooling_nd.CHANNELS_LAST


@pytest.mark.parametrize("order", _ORDERS)
@pytest.mark.parametrize("source", [*_ORDERS, "strided"])
def test_in_order_copies_only_what_differs(order, source):
    x = numpy.random.rand(3, 4, 5, 6)
    given = x[:, :, ::2] if source == "strided" else _in(x, order=source)
    result = pooling_nd.in_order(given, order)
    numpy.testing.assert_array_equal(result, given)
    assert pooling_nd.order_of(result) == order
    assert (result is given) == (source == order)


@pytest.mark.parametrize("op", [numpy.maximum, numpy.add])
@pytest.mark.parametrize("order", _ORDERS)
@pytest.mark.parametrize(
    ("ksize", "stride", "out"), [((3, 2), (2, 3), (3, 3)), ((1, 3), (2, 1), (4, 6))]
)
def test_reduce_windows_matches_taps_in_the_input_order(op, order, ksize, stride, out):
    x = _in(numpy.random.rand(2, 3, 7, 8), order)
    taps = [x[key] for key in pooling_nd.tap_slices(ksize, stride, out)]
    expected = taps[0]
    for t in taps[1:]:
        expected = op(expected, t)
    y = pooling_nd.reduce_windows(x, ksize, stride, out, op)
    numpy.testing.assert_allclose(y, expected)
    assert pooling_nd.order_of(y) == order
    into = numpy.full(y.shape, numpy.nan)
    assert pooling_nd.reduce_windows(x, ksize, stride, out, op, out=into) is into
    numpy.testing.assert_array_equal(into, y)
    single = pooling_nd.reduce_windows(x, (1, 1), (1, 1), x.shape[2:], op)
    assert not numpy.shares_memory(single, x)
    numpy.testing.assert_array_equal(single, x)
    assert pooling_nd.order_of(single) == order
    into = numpy.full(x.shape, numpy.nan)
    pooling_nd.reduce_windows(x, (1, 1), (1, 1), x.shape[2:], op, out=into)
    numpy.testing.assert_array_equal(into, x)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("order", _ORDERS)
@pytest.mark.parametrize("batch", [1, 5])
def test_pool_windows_splits_channels_last_inputs_by_image(
    cpu_team, monkeypatch, threads, order, batch
):
    team = cpu_team(threads)
    monkeypatch.setattr(pooling_nd, "PARALLEL_BYTES", 1)
    parts = []
    original = pooling_nd.reduce_windows

    def recording(x, *args, **kwargs):
        parts.append(x.shape[:2])
        return original(x, *args, **kwargs)

    monkeypatch.setattr(pooling_nd, "reduce_windows", recording)
    x = _in(numpy.random.rand(batch, 3, 9, 8), order)
    ksize, stride, out = (3, 2), (2, 2), (4, 4)
    y = pooling_nd.pool_windows(x, ksize, stride, out, numpy.maximum)
    numpy.testing.assert_array_equal(y, original(x, ksize, stride, out, numpy.maximum))
    assert pooling_nd.order_of(y) == pooling_nd.order_of(x)
    split = order == pooling_nd.CHANNELS_LAST and threads > 1 and batch > 1
    if split:
        assert len(parts) == min(threads, batch)
        assert sum(n for n, _ in parts) == batch
        assert team.helpers
    else:
        assert parts == [x.shape[:2]]


@pytest.mark.parametrize("order", _ORDERS)
@pytest.mark.parametrize(("stride", "disjoint"), [((2, 2), True), ((1, 1), False)])
def test_scatter_and_spread_are_adjoint_to_gather_and_sum(order, stride, disjoint):
    rng = numpy.random.RandomState(1)
    shape = (2, 3, 6, 6)
    ksize = (2, 2)
    out = tuple(
        (n - k) // s + 1 for n, k, s in zip(shape[2:], ksize, stride, strict=True)
    )
    slices = pooling_nd.tap_slices(ksize, stride, out)
    g = _in(rng.rand(2, 3, *out), order)
    idx = _in(rng.randint(0, 4, g.shape).astype(numpy.uint8), order)
    h = rng.rand(*shape)
    buf = pooling_nd.alloc(shape, g.dtype, slices, disjoint, order)
    assert pooling_nd.order_of(buf) == order
    scattered = pooling_nd.scatter_windows(g, idx, slices, buf, disjoint)
    gathered = numpy.zeros_like(g)
    for t, key in enumerate(slices):
        numpy.copyto(gathered, h[key], where=idx == t)
    numpy.testing.assert_allclose((scattered * h).sum(), (g * gathered).sum())
    buf = pooling_nd.alloc(shape, g.dtype, slices, disjoint, order)
    spread = pooling_nd.spread_windows(g, slices, buf, disjoint)
    sums = sum(h[key] for key in slices)
    numpy.testing.assert_allclose((spread * h).sum(), (g * sums).sum())


def test_alloc_takes_c_order_where_the_orders_agree():
    slices = pooling_nd.tap_slices((2, 2), (2, 2), (2, 2))
    for shape, order in [
        ((1, 3, 4, 4), pooling_nd.BATCH_INNERMOST),
        ((3, 1, 4, 4), pooling_nd.CHANNELS_LAST),
    ]:
        buf = pooling_nd.alloc(shape, numpy.float32, slices, True, order)
        assert buf.flags.c_contiguous


@pytest.mark.parametrize("order", _ORDERS)
def test_crop_keeps_the_order_of_its_buffer(order):
    buf = numpy.random.rand(3, 2, 6, 7)
    given = _in(buf, order)
    assert pooling_nd.crop(given, (0, 0), (6, 7)) is given
    part = pooling_nd.crop(given, (1, 2), (4, 3))
    numpy.testing.assert_array_equal(part, buf[:, :, 1:5, 2:5])
    assert pooling_nd.order_of(part) == order
    assert _layout.is_batch_innermost(part) == (order == pooling_nd.BATCH_INNERMOST)
    assert _is_channels_last(part) == (order == pooling_nd.CHANNELS_LAST)
    assert part.flags.c_contiguous == (order == pooling_nd.C_ORDER)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize(
    ("order", "lead", "expected"),
    [
        (pooling_nd.CHANNELS_LAST, (5, 4), "images"),
        (pooling_nd.CHANNELS_LAST, (1, 4), "channels"),
        (pooling_nd.BATCH_INNERMOST, (5, 4), "channels"),
        (pooling_nd.C_ORDER, (5, 4), "channels"),
    ],
)
def test_split_parts(cpu_team, monkeypatch, threads, order, lead, expected):
    cpu_team(threads)
    monkeypatch.setattr(pooling_nd, "PARALLEL_BYTES", 100)
    for nbytes, width in [(99, 1), (100, threads)]:
        parts = []
        pooling_nd.split(parts.append, lead, order, nbytes)
        covered = numpy.zeros(lead, int)
        for key in parts:
            covered[key] += 1
            if expected == "images":
                assert len(key) == 1
            else:
                assert key[0] == slice(None)
        assert (covered == 1).all()
        count = lead[0] if expected == "images" else lead[1]
        assert len(parts) == min(width, count)
