"""The window helpers of chainer-cpu's pooling kernels, on every memory order."""

import numpy
import pytest

from chainer_cpu import _layout
from chainer_cpu.functions.pooling import pooling_nd


def _batch_innermost(x):
    return _layout.as_batch_innermost(x).transpose(x.ndim - 1, *range(x.ndim - 1))


@pytest.mark.parametrize("pval", [0, -numpy.inf])
def test_pad_keeps_the_batch_innermost_order(pval):
    x = numpy.random.rand(3, 2, 4, 5)
    expected = numpy.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), constant_values=pval)
    for given in (x, _batch_innermost(x)):
        padded = pooling_nd.pad(given, (1, 0), (2, 1), pval)
        numpy.testing.assert_array_equal(padded, expected)
        assert _layout.is_batch_innermost(padded) == (given is not x)
        assert padded.flags.c_contiguous == (given is x)


def test_pad_without_widths_copies_only_strided_inputs_when_dense():
    x = numpy.random.rand(3, 2, 4, 5)
    bi = _batch_innermost(x)
    assert pooling_nd.pad(x, (0, 0), (0, 0), dense=True) is x
    assert pooling_nd.pad(bi, (0, 0), (0, 0), dense=True) is bi
    view = x.swapaxes(2, 3)
    assert pooling_nd.pad(view, (0, 0), (0, 0)) is view
    dense = pooling_nd.pad(view, (0, 0), (0, 0), dense=True)
    assert dense.flags.c_contiguous
    numpy.testing.assert_array_equal(dense, view)


def test_a_batch_of_one_is_c_order():
    x = numpy.random.rand(1, 2, 4, 5)
    assert _layout.is_batch_innermost(x)
    assert not pooling_nd.is_batch_innermost(x)
    assert pooling_nd.pad(x, (1, 1), (1, 1)).flags.c_contiguous


@pytest.mark.parametrize("op", [numpy.maximum, numpy.add])
@pytest.mark.parametrize("layout", ["c_order", "batch_innermost"])
def test_reduce_windows_matches_taps_in_the_input_order(op, layout):
    x = numpy.random.rand(2, 3, 7, 8)
    if layout == "batch_innermost":
        x = _batch_innermost(x)
    ksize, stride, out = (3, 2), (2, 3), (3, 3)
    taps = [x[key] for key in pooling_nd.tap_slices(ksize, stride, out)]
    expected = taps[0]
    for t in taps[1:]:
        expected = op(expected, t)
    y = pooling_nd.reduce_windows(x, ksize, stride, out, op)
    numpy.testing.assert_allclose(y, expected)
    assert _layout.is_batch_innermost(y) == (layout == "batch_innermost")
    single = pooling_nd.reduce_windows(x, (1, 1), (1, 1), x.shape[2:], op)
    assert not numpy.shares_memory(single, x)
    numpy.testing.assert_array_equal(single, x)


@pytest.mark.parametrize("batch_innermost", [True, False])
@pytest.mark.parametrize(("stride", "disjoint"), [((2, 2), True), ((1, 1), False)])
def test_scatter_and_spread_are_adjoint_to_gather_and_sum(
    batch_innermost, stride, disjoint
):
    rng = numpy.random.RandomState(1)
    shape = (2, 2, 6, 6)
    ksize = (2, 2)
    out = tuple(
        (n - k) // s + 1 for n, k, s in zip(shape[2:], ksize, stride, strict=True)
    )
    slices = pooling_nd.tap_slices(ksize, stride, out)
    g = rng.rand(2, 2, *out)
    idx = rng.randint(0, 4, g.shape).astype(numpy.uint8)
    h = rng.rand(*shape)
    buf = pooling_nd.alloc(shape, g.dtype, slices, disjoint, batch_innermost)
    assert _layout.is_batch_innermost(buf) == batch_innermost
    scattered = pooling_nd.scatter_windows(g, idx, slices, buf, disjoint)
    gathered = numpy.zeros_like(g)
    for t, key in enumerate(slices):
        numpy.copyto(gathered, h[key], where=idx == t)
    numpy.testing.assert_allclose((scattered * h).sum(), (g * gathered).sum())
    buf = pooling_nd.alloc(shape, g.dtype, slices, disjoint, batch_innermost)
    spread = pooling_nd.spread_windows(g, slices, buf, disjoint)
    sums = sum(h[key] for key in slices)
    numpy.testing.assert_allclose((spread * h).sum(), (g * sums).sum())


def test_crop_keeps_the_order_of_its_buffer():
    buf = numpy.random.rand(3, 2, 6, 7)
    for given in (buf, _batch_innermost(buf)):
        assert pooling_nd.crop(given, (0, 0), (6, 7)) is given
        part = pooling_nd.crop(given, (1, 2), (4, 3))
        numpy.testing.assert_array_equal(part, buf[:, :, 1:5, 2:5])
        assert _layout.is_batch_innermost(part) == (given is not buf)
        assert part.flags.c_contiguous == (given is buf)
