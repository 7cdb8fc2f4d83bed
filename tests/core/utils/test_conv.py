import itertools

import numpy
import pytest

from chainer.utils import _parallel
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


def _matrix_reference(x, ksize, stride, pad, cover_all, dilate):
    # (c * K, n * prod(out)) from the window view.
    view = conv.im2col_nd(x, ksize, stride, pad, cover_all, dilate)
    nd = len(ksize)
    axes = (1, *range(2 + nd, 2 + 2 * nd), 0, *range(2, 2 + nd))
    col = numpy.ascontiguousarray(view.transpose(axes))
    return col.reshape(x.shape[1] * int(numpy.prod(ksize)), -1), view.shape[2 : 2 + nd]


_GEOMETRIES = [
    ((4, 4, 4, 6), (3, 3), (1, 1), (1, 1), False, (1, 1)),
    ((4, 2, 5, 7), (3, 2), (2, 1), (1, 0), True, (1, 2)),
    ((3, 2, 3, 4, 5), (2, 1, 3), (1, 2, 1), (1, 0, 1), (False, True, False), None),
    ((4, 2, 9), (3,), (1,), (2,), False, (2,)),
    ((4, 4, 3, 5), (1, 1), (1, 1), (0, 0), False, (1, 1)),
]


@pytest.mark.parametrize(
    ("shape", "ksize", "stride", "pad", "cover_all", "dilate"), _GEOMETRIES
)
def test_im2col_matrix(shape, ksize, stride, pad, cover_all, dilate):
    x = numpy.random.default_rng(2).standard_normal(shape)
    col, out_size = conv.im2col_matrix(x, ksize, stride, pad, cover_all, dilate)
    expected, expected_out = _matrix_reference(x, ksize, stride, pad, cover_all, dilate)
    assert out_size == expected_out
    numpy.testing.assert_array_equal(col, expected)


@pytest.mark.parametrize("batch_innermost", [True, False])
@pytest.mark.parametrize("chunk_bytes", [1, 2 << 20])
@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize(
    ("shape", "ksize", "stride", "pad", "cover_all", "dilate"), _GEOMETRIES
)
def test_convolution_kernels(
    monkeypatch, batch_innermost, chunk_bytes, groups, shape, ksize, stride, pad,
    cover_all, dilate,
):  # fmt: skip
    # Chunked (one image or output row per chunk) and whole-batch GEMMs, on
    # the batch-innermost path (small inputs) or the batch-chunked one,
    # agree with the patch-matrix definition; the deconvolution is the
    # adjoint.
    monkeypatch.setattr(conv, "_CHUNK_BYTES", chunk_bytes)
    monkeypatch.setattr(conv, "_WHOLE_BYTES", 0)
    monkeypatch.setattr(conv, "_TRANSPOSE_BYTES", 1 << 30 if batch_innermost else 0)
    rng = numpy.random.default_rng(4)
    n, c = shape[:2]
    x = rng.standard_normal(shape)
    W = rng.standard_normal((6, c // groups, *ksize))
    b = rng.standard_normal(6)
    y, cols = conv.convolution_forward(
        x, W, b, stride, pad, cover_all, dilate, groups, keep_col=True
    )
    assert isinstance(cols, conv.RowChunks) == batch_innermost
    col, out_size = _matrix_reference(x, ksize, stride, pad, cover_all, dilate)
    w3 = W.reshape(groups, 6 // groups, -1)
    col3 = col.reshape(groups, -1, col.shape[1])
    expected = numpy.matmul(w3, col3).reshape(6, n, *out_size) + b.reshape(
        (6, 1) + (1,) * len(ksize)
    )
    numpy.testing.assert_allclose(y, expected.swapaxes(0, 1), rtol=1e-10, atol=1e-10)

    gy = rng.standard_normal(y.shape)
    gy3 = gy.swapaxes(0, 1).reshape(groups, 6 // groups, -1)
    expected_gW = numpy.matmul(gy3, col3.swapaxes(1, 2)).reshape(6, -1)
    for kept in (cols, None):
        gW = conv.convolution_grad_weight(
            x, gy, ksize, stride, pad, cover_all, dilate, groups, kept
        )
        numpy.testing.assert_allclose(gW, expected_gW, rtol=1e-10, atol=1e-10)

    W_t = rng.standard_normal((6, c // groups, *ksize))
    gx = conv.deconvolution_forward(
        gy, W_t, None, stride, pad, shape[2:], dilate, groups
    )
    assert gx.shape == shape
    y_t, _ = conv.convolution_forward(
        x, W_t, None, stride, pad, cover_all, dilate, groups
    )
    numpy.testing.assert_allclose((y_t * gy).sum(), (x * gx).sum(), rtol=1e-10)


@pytest.mark.parametrize("whole_rows", [0, 2, 3])
def test_convolution_forward_groups_of_chunks(monkeypatch, whole_rows):
    # One output row per chunk; without keep_col the patch matrices of up
    # to _WHOLE_BYTES (here 0, 2 or 3 rows: groups of 1, 2 or 3 chunks) are
    # built before their GEMMs. Every grouping gives the kept-matrix result.
    # (Single-threaded: a CPU team takes items of _ITEM_BYTES instead.)
    monkeypatch.setitem(_parallel._state, "team", None)
    rng = numpy.random.default_rng(7)
    x = rng.standard_normal((5, 4, 6, 7))
    W = rng.standard_normal((3, 4, 3, 3))
    row_bytes = 4 * 9 * 7 * 5 * x.itemsize
    monkeypatch.setattr(conv, "_CHUNK_BYTES", 1)
    monkeypatch.setattr(conv, "_WHOLE_BYTES", whole_rows * row_bytes)
    kept, cols = conv.convolution_forward(x, W, None, (1, 1), (1, 1), keep_col=True)
    assert isinstance(cols, conv.RowChunks)
    assert [(i, j) for i, j, _ in cols] == [(k, k + 1) for k in range(6)]
    y, none = conv.convolution_forward(x, W, None, (1, 1), (1, 1))
    assert none is None
    numpy.testing.assert_array_equal(y, kept)
    col, _ = _matrix_reference(x, (3, 3), (1, 1), (1, 1), False, None)
    expected = (W.reshape(3, -1) @ col).reshape(3, 5, 6, 7).swapaxes(0, 1)
    numpy.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", ["c_order", "channel_major", "batch_innermost"])
@pytest.mark.parametrize("pad", [0, 1])
def test_numpy_convolution_output_is_batch_innermost(layout, pad):
    # Whatever the input's memory order, the NumPy output lies in memory as
    # (c_O, *out_size, n), and the result is the same.
    rng = numpy.random.default_rng(8)
    x = rng.standard_normal((3, 4, 5, 6))
    if layout == "channel_major":
        x = numpy.ascontiguousarray(x.swapaxes(0, 1)).swapaxes(0, 1)
    elif layout == "batch_innermost":
        x = numpy.ascontiguousarray(x.transpose(1, 2, 3, 0)).transpose(3, 0, 1, 2)
    assert conv.is_batch_innermost(x) == (layout == "batch_innermost")
    W = rng.standard_normal((2, 4, 3, 2))
    y, _ = conv.convolution_forward(x, W, None, (1, 2), (pad, pad))
    assert conv.is_batch_innermost(y)
    col, out_size = _matrix_reference(x, (3, 2), (1, 2), (pad, pad), False, None)
    expected = (W.reshape(2, -1) @ col).reshape(2, 3, *out_size).swapaxes(0, 1)
    numpy.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)


def test_large_c_order_input_keeps_the_batch_chunked_path(monkeypatch):
    # Above _TRANSPOSE_BYTES a C-order input is not transposed: the output
    # has the channel axis outermost in memory; a batch-innermost input of
    # any size keeps its order.
    monkeypatch.setattr(conv, "_TRANSPOSE_BYTES", 0)
    rng = numpy.random.default_rng(10)
    x = rng.standard_normal((3, 4, 5, 6))
    W = rng.standard_normal((2, 4, 3, 3))
    y, _ = conv.convolution_forward(x, W, None, (1, 1), (1, 1))
    assert not conv.is_batch_innermost(y)
    assert y.swapaxes(0, 1).flags.c_contiguous
    xb = conv.as_batch_innermost(x).transpose(3, 0, 1, 2)
    yb, _ = conv.convolution_forward(xb, W, None, (1, 1), (1, 1))
    assert conv.is_batch_innermost(yb)
    numpy.testing.assert_allclose(yb, y, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("pval", [0, -numpy.inf])
def test_pad_spatial_keeps_a_batch_innermost_layout(pval):
    x = numpy.arange(2 * 3 * 4 * 5.0).reshape(3, 4, 5, 2).transpose(3, 0, 1, 2)
    y = conv.pad_spatial(x, (1, 0), (2, 1), pval)
    assert conv.is_batch_innermost(y)
    expected = numpy.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), constant_values=pval)
    numpy.testing.assert_array_equal(y, expected)


def test_deconvolution_of_a_batch_innermost_input_is_dense():
    # The scatter-add form on a batch-innermost input gives a dense
    # batch-innermost output (its padding cut off by a copy).
    rng = numpy.random.default_rng(9)
    gy = numpy.ascontiguousarray(rng.standard_normal((6, 5, 5, 3))).transpose(
        3, 0, 1, 2
    )
    W = rng.standard_normal((6, 2, 3, 3))
    gx = conv.deconvolution_forward(gy, W, None, (1, 1), (1, 1), (5, 5))
    assert conv.is_batch_innermost(gx)
    x = rng.standard_normal((3, 2, 5, 5))
    y, _ = conv.convolution_forward(x, W, None, (1, 1), (1, 1))
    numpy.testing.assert_allclose((y * gy).sum(), (x * gx).sum(), rtol=1e-10)


@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_grouped_matmul(groups, dtype):
    rng = numpy.random.default_rng(3)
    a = rng.standard_normal((6, 4)).astype(dtype)
    b = rng.standard_normal((6, 5)).astype(dtype)
    y = conv.grouped_matmul(a, b, groups, transa=True)
    assert y.dtype == dtype
    blocks = [
        a[g * 6 // groups : (g + 1) * 6 // groups].T.astype(numpy.float64)
        @ b[g * 6 // groups : (g + 1) * 6 // groups]
        for g in range(groups)
    ]
    numpy.testing.assert_allclose(y, numpy.concatenate(blocks), rtol=1e-2, atol=1e-2)
    y = conv.grouped_matmul(a, a, groups, transb=True)
    assert y.shape == (6, 6 // groups)


def test_parse_dilate_groups():
    assert conv.parse_dilate_groups({}, "f") == (1, 1)
    assert conv.parse_dilate_groups({"dilate": 2, "groups": 3}, "f") == (2, 3)
    with pytest.raises(ValueError, match="deterministic"):
        conv.parse_dilate_groups({"deterministic": True}, "f")
    with pytest.raises(TypeError, match=r"f\(\) got unexpected keyword argument"):
        conv.parse_dilate_groups({"foo": 1}, "f")


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    ("shape", "ksize", "pad", "dilate"),
    [
        ((3, 4, 9, 16), (3, 3), (1, 1), (1, 1)),
        ((2, 3, 7, 12), (3, 2), (0, 1), (1, 1)),
        ((4, 2, 10, 20), (5, 3), (2, 1), (1, 1)),
        ((2, 3, 9, 40), (3, 3), (2, 2), (2, 2)),
        ((1, 5, 6, 30), (2, 3), (0, 0), (1, 1)),
    ],
)
def test_shift_forward_matches_patch_matrices(
    monkeypatch, shift_calls, dtype, shape, ksize, pad, dilate
):
    # Without kept patch matrices, unit-stride 2-d convolutions are sums of
    # per-tap GEMMs accumulated by the BLAS; they equal the patch-matrix
    # result (the path that keeps them).
    if conv._blas.gemm_function(dtype) is None:
        pytest.skip("NumPy's BLAS exports no CBLAS gemm in this build")
    monkeypatch.setitem(_parallel._state, "team", None)  # see the next test
    calls = shift_calls
    rng = numpy.random.default_rng(11)
    x = rng.standard_normal(shape).astype(dtype)
    W = rng.standard_normal((5, shape[1], *ksize)).astype(dtype)
    b = rng.standard_normal(5).astype(dtype)
    y, cols = conv.convolution_forward(x, W, b, (1, 1), pad, dilate=dilate)
    assert cols is None
    assert len(calls) == 1
    assert conv.is_batch_innermost(y)
    kept, _ = conv.convolution_forward(
        x, W, b, (1, 1), pad, dilate=dilate, keep_col=True
    )
    assert len(calls) == 1
    tol = 1e-4 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y, kept, rtol=tol, atol=tol)


def test_shift_forward_is_skipped_where_padding_widens_rows_much():
    # 8-pixel rows padded to 10: a quarter more GEMM columns; patch matrices.
    x = numpy.zeros((2, 3, 8, 8), numpy.float32)
    assert not conv._shift_applies(x, (3, 3), (1, 1), (1, 1), 1, (8, 8))
    assert conv._shift_applies(
        numpy.zeros((2, 3, 16, 16), numpy.float32), (3, 3), (1, 1), (1, 1), 1, (16, 16)
    )
    assert not conv._shift_applies(
        numpy.zeros((2, 4, 16, 16), numpy.float32), (3, 3), (1, 1), (1, 1), 2, (16, 16)
    )


@pytest.fixture(params=[1, 2, 3], ids=["serial", "team2", "team3"])
def cpu_threads(request, cpu_team):
    """Runs the test without a CPU team or with a team of 2 or 3 threads."""
    cpu_team(request.param)
    return request.param


@pytest.fixture
def shift_calls(monkeypatch):
    """The argument tuples of every conv._shift_forward call (a spy)."""
    calls = []
    original = conv._shift_forward

    def spy(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(conv, "_shift_forward", spy)
    return calls


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    ("shape", "ksize", "stride", "pad", "groups"),
    [
        ((4, 6, 12, 10), (3, 3), (1, 1), (1, 1), 1),
        ((3, 4, 11, 9), (3, 2), (2, 1), (1, 0), 2),
        ((2, 3, 9, 8, 7), (2, 3, 3), (1, 1, 1), (1, 1, 1), 1),
    ],
)
def test_convolution_items_on_cpu_threads(
    monkeypatch, cpu_threads, dtype, shape, ksize, stride, pad, groups
):
    # Whatever the number of threads, the forward (with and without kept
    # patch matrices) and the weight gradient from what the forward kept
    # agree with patch matrices built in one piece; with a team, the items
    # hold one output row each here and the patch matrices are rebuilt for
    # the weight gradient.
    monkeypatch.setattr(conv, "_ITEM_BYTES", 1)
    rng = numpy.random.default_rng(12)
    x = rng.standard_normal(shape).astype(dtype)
    c_out = 4
    W = rng.standard_normal((c_out, shape[1] // groups, *ksize)).astype(dtype)
    y, cols = conv.convolution_forward(
        x, W, None, stride, pad, groups=groups, keep_col=True
    )
    assert isinstance(cols, conv.RowChunks)
    out_rows = y.shape[2]
    if cpu_threads > 1:
        assert [(i, j) for i, j, _ in cols] == [(r, r + 1) for r in range(out_rows)]
        assert all(col is None for _, _, col in cols)
    col, _ = _matrix_reference(x, ksize, stride, pad, False, None)
    w2 = W.reshape(groups, c_out // groups, -1)
    col_g = col.reshape(groups, -1, col.shape[1])
    expected = numpy.concatenate([w2[g] @ col_g[g] for g in range(groups)])
    expected = expected.reshape(c_out, shape[0], *y.shape[2:]).swapaxes(0, 1)
    tol = 1e-4 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y, expected, rtol=tol, atol=tol)
    y2, none = conv.convolution_forward(x, W, None, stride, pad, groups=groups)
    assert none is None
    numpy.testing.assert_allclose(y2, expected, rtol=tol, atol=tol)
    gy = rng.standard_normal(y.shape).astype(dtype)
    gW = conv.convolution_grad_weight(
        x, gy, ksize, stride, pad, groups=groups, cols=cols
    )
    gy2 = gy.swapaxes(0, 1).reshape(groups, c_out // groups, -1)
    expected_gW = numpy.concatenate(
        [gy2[g] @ col_g[g].T for g in range(groups)]
    ).reshape(c_out, -1)
    numpy.testing.assert_allclose(gW, expected_gW, rtol=tol, atol=10 * tol)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_per_tap_gemms_only_without_a_cpu_team(cpu_threads, shift_calls, dtype):
    # With a CPU team, patch matrices (copied and multiplied by each thread
    # in turn) replace the per-tap GEMMs; the result is the same.
    if conv._blas.gemm_function(dtype) is None:
        pytest.skip("NumPy's BLAS exports no CBLAS gemm in this build")
    rng = numpy.random.default_rng(13)
    x = rng.standard_normal((3, 5, 10, 16)).astype(dtype)
    W = rng.standard_normal((6, 5, 3, 3)).astype(dtype)
    b = rng.standard_normal(6).astype(dtype)
    y, _ = conv.convolution_forward(x, W, b, (1, 1), (1, 1))
    assert len(shift_calls) == (1 if cpu_threads == 1 else 0)
    col, _ = _matrix_reference(x, (3, 3), (1, 1), (1, 1), False, None)
    expected = (W.reshape(6, -1) @ col).reshape(6, 3, 10, 16).swapaxes(0, 1)
    expected = expected + b.reshape(1, -1, 1, 1)
    tol = 1e-4 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y, expected, rtol=tol, atol=tol)


def test_cpu_team_sets_the_blas_to_one_thread_and_back(monkeypatch, cpu_team):
    blas = cpu_team(2).blas
    x = numpy.ones((2, 3, 8, 8), numpy.float32)
    W = numpy.ones((2, 3, 3, 3), numpy.float32)
    monkeypatch.setattr(conv, "_ITEM_BYTES", 1)
    conv.convolution_forward(x, W, None, (1, 1), (1, 1), keep_col=True)
    assert blas.set_counts
    assert blas.set_counts[::2] == [1] * (len(blas.set_counts) // 2)
    assert blas.threads == 2


@pytest.mark.parametrize(
    ("shape", "ksize", "stride", "pad", "out_size"),
    [
        ((3, 6, 5, 5), (3, 3), (1, 1), (1, 1), (5, 5)),
        ((2, 4, 4, 3), (3, 2), (2, 1), (1, 0), (8, 4)),
    ],
)
def test_deconvolution_on_cpu_threads(
    monkeypatch, cpu_threads, shape, ksize, stride, pad, out_size
):
    # With or without a CPU team, the scatter-add form of a batch-innermost
    # input is the adjoint of the convolution, with a dense batch-innermost
    # output.
    monkeypatch.setattr(conv, "_ITEM_BYTES", 1)
    rng = numpy.random.default_rng(14)
    gy = numpy.ascontiguousarray(
        rng.standard_normal((shape[1], *shape[2:], shape[0]))
    ).transpose(3, 0, 1, 2)
    W = rng.standard_normal((shape[1], 5, *ksize))
    gx = conv.deconvolution_forward(gy, W, None, stride, pad, out_size)
    assert gx.shape == (shape[0], 5, *out_size)
    assert conv.is_batch_innermost(gx)
    x = rng.standard_normal(gx.shape)
    y, _ = conv.convolution_forward(x, W, None, stride, pad)
    assert y.shape == gy.shape
    numpy.testing.assert_allclose((y * gy).sum(), (x * gx).sum(), rtol=1e-10)
