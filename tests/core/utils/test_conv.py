import itertools

import numpy
import pytest

from chainer.utils import conv


@pytest.mark.parametrize(
    ("size", "k", "s", "p", "d", "expected", "expected_cover_all"),
    [
        (5, 3, 1, 0, 1, 3, 3),
        (5, 3, 2, 0, 1, 2, 2),
        (6, 3, 2, 0, 1, 2, 3),
        (6, 3, 2, 1, 1, 3, 4),
        (7, 3, 1, 0, 2, 3, 3),
        (28, 5, 1, 0, 1, 24, 24),
        (24, 2, 2, 0, 1, 12, 12),
        (5, 2, 2, 0, 1, 2, 3),
    ],
)
def test_get_conv_outsize(size, k, s, p, d, expected, expected_cover_all):
    assert conv.get_conv_outsize(size, k, s, p, d=d) == expected
    assert conv.get_conv_outsize(size, k, s, p, cover_all=True, d=d) == (
        expected_cover_all
    )


@pytest.mark.parametrize(
    ("size", "k", "s", "p", "d"),
    list(itertools.product([3, 4, 7], [1, 2, 3], [1, 2, 3], [0, 1], [1, 2])),
)
def test_get_deconv_outsize_inverts_conv(size, k, s, p, d):
    out = conv.get_deconv_outsize(size, k, s, p, d=d)
    if out > 0:
        assert conv.get_conv_outsize(out, k, s, p, d=d) == size
    out_ca = conv.get_deconv_outsize(size, k, s, p, cover_all=True, d=d)
    if out_ca > 0:
        assert conv.get_conv_outsize(out_ca, k, s, p, cover_all=True, d=d) == size


def test_get_deconv_outsize_values():
    assert conv.get_deconv_outsize(3, 3, 2, 1) == 5
    assert conv.get_deconv_outsize(3, 3, 2, 1, cover_all=True) == 4
    assert conv.get_deconv_outsize(4, 3, 1, 0, d=2) == 8


def test_as_tuple():
    assert conv.as_tuple(2, 3) == (2, 2, 2)
    assert conv.as_tuple((1, 2), 2) == (1, 2)
    assert conv.as_tuple([1, 2], 2) == (1, 2)
    with pytest.raises(ValueError, match="stride must be an int or a sequence of 2"):
        conv.as_tuple((1, 2, 3), 2, "stride")


def test_pad_spatial():
    x = numpy.arange(6, dtype=numpy.float32).reshape(1, 1, 2, 3)
    assert conv.pad_spatial(x, (0, 0), (0, 0)) is x
    y = conv.pad_spatial(x, (1, 0), (0, 2), pval=-1)
    expected = numpy.pad(x, ((0, 0), (0, 0), (1, 0), (0, 2)), constant_values=-1)
    numpy.testing.assert_array_equal(y, expected)
    assert y.dtype == numpy.float32


def _naive_windows(x, ksize, stride, pad, cover_all, dilate, pval):
    # Reads every window element by index, with out-of-image reads giving pval.
    nd = len(ksize)
    out = tuple(
        conv.get_conv_outsize(x.shape[2 + i], ksize[i], stride[i], pad[i], cover_all,
                              dilate[i])
        for i in range(nd)
    )  # fmt: skip
    res = numpy.full(x.shape[:2] + out + tuple(ksize), pval, x.dtype)
    for o in itertools.product(*(range(v) for v in out)):
        for k in itertools.product(*(range(v) for v in ksize)):
            pos = [o[i] * stride[i] + k[i] * dilate[i] - pad[i] for i in range(nd)]
            if all(0 <= pos[i] < x.shape[2 + i] for i in range(nd)):
                res[(slice(None), slice(None), *o, *k)] = x[
                    (slice(None), slice(None), *pos)
                ]
    return res


@pytest.mark.parametrize(
    ("shape", "ksize", "stride", "pad", "cover_all", "dilate"),
    [
        ((2, 3, 5, 6), (3, 2), (1, 2), (1, 0), False, (1, 1)),
        ((2, 3, 5, 6), (3, 2), (2, 2), (1, 1), True, (1, 1)),
        ((1, 2, 7, 7), (3, 3), (2, 1), (2, 1), False, (2, 3)),
        ((1, 2, 6), (2,), (3,), (0,), True, (1,)),
        ((1, 2, 4, 5, 4), (2, 3, 2), (1, 2, 2), (1, 0, 1), False, (1, 1, 2)),
    ],
)
def test_im2col_nd_and_col2im_nd(shape, ksize, stride, pad, cover_all, dilate):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal(shape).astype(numpy.float32)
    col = conv.im2col_nd(x, ksize, stride, pad, cover_all, dilate, pval=-7)
    expected = _naive_windows(x, ksize, stride, pad, cover_all, dilate, -7)
    numpy.testing.assert_array_equal(col, expected)
    assert not col.flags.writeable

    # col2im_nd is the adjoint: <im2col(x), g> == <x, col2im(g)> (zero padding).
    col0 = conv.im2col_nd(x, ksize, stride, pad, cover_all, dilate)
    g = rng.standard_normal(col0.shape).astype(numpy.float64)
    gx = conv.col2im_nd(g, stride, pad, shape[2:], dilate)
    assert gx.shape == shape
    numpy.testing.assert_allclose((col0 * g).sum(), (x * gx).sum(), rtol=1e-5)


def test_im2col_nd_empty_output():
    x = numpy.zeros((1, 1, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match="output would be empty"):
        conv.im2col_nd(x, (3, 3), (1, 1), (0, 0))


def test_im2col_cpu_col2im_cpu():
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((2, 3, 5, 4)).astype(numpy.float32)
    col = conv.im2col_cpu(x, 3, 2, 2, 1, 1, 0, cover_all=True, dy=1, dx=2)
    windows = _naive_windows(x, (3, 2), (2, 1), (1, 0), True, (1, 2), 0)
    numpy.testing.assert_array_equal(col, windows.transpose(0, 1, 4, 5, 2, 3))
    assert col.flags.c_contiguous
    g = rng.standard_normal(col.shape)
    gx = conv.col2im_cpu(g, 2, 1, 1, 0, 5, 4, dy=1, dx=2)
    numpy.testing.assert_allclose((col * g).sum(), (x * gx).sum(), rtol=1e-5)
    with pytest.raises(ValueError, match="empty"):
        conv.im2col_cpu(x, 7, 7, 1, 1, 0, 0)


@pytest.mark.parametrize("pval", [0, -numpy.inf])
def test_pad_spatial_of_a_strided_input(pval):
    # Any memory order in, the padded C-contiguous array out.
    x = numpy.arange(2 * 3 * 4 * 5.0).reshape(3, 4, 5, 2).transpose(3, 0, 1, 2)
    y = conv.pad_spatial(x, (1, 0), (2, 1), pval)
    assert y.flags.c_contiguous
    expected = numpy.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), constant_values=pval)
    numpy.testing.assert_array_equal(y, expected)


def test_parse_dilate_groups():
    assert conv.parse_dilate_groups({}, "f") == (1, 1)
    assert conv.parse_dilate_groups({"dilate": 2, "groups": 3}, "f") == (2, 3)
    with pytest.raises(ValueError, match="deterministic"):
        conv.parse_dilate_groups({"deterministic": True}, "f")
    with pytest.raises(TypeError, match=r"f\(\) got unexpected keyword argument"):
        conv.parse_dilate_groups({"foo": 1}, "f")
