"""chainer-cpu's NumPy convolution engine against the patch-matrix definition.

The kernels of ``chainer_cpu.functions.connection.convolution_nd`` and
``.deconvolution_nd`` on every path: whole batch or chunks, batch-innermost or
batch-chunked, per-tap GEMMs, and items on a CPU team of any width.
"""

import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer.functions.connection import convolution_2d
from chainer.utils import conv
from chainer_cpu import _blas
from chainer_cpu import _layout
from chainer_cpu import _parallel
from chainer_cpu.functions.connection import convolution_nd as cpu_conv
from chainer_cpu.functions.connection import deconvolution_nd as cpu_deconv


@pytest.fixture(autouse=True)
def _own_engine(conv_choice):
    # These tests are about chainer-cpu's own engine: float32 convolutions
    # take it even where oneDNN is installed (test_onednn.py tests that).
    conv_choice("numpy")


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
    col, out_size = _layout.im2col_matrix(x, ksize, stride, pad, cover_all, dilate)
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
    monkeypatch.setattr(_layout, "CHUNK_BYTES", chunk_bytes)
    monkeypatch.setattr(_layout, "WHOLE_BYTES", 0)
    monkeypatch.setattr(cpu_conv, "_TRANSPOSE_BYTES", 1 << 30 if batch_innermost else 0)
    rng = numpy.random.default_rng(4)
    n, c = shape[:2]
    x = rng.standard_normal(shape)
    W = rng.standard_normal((6, c // groups, *ksize))
    b = rng.standard_normal(6)
    y, cols = cpu_conv.convolution_forward(
        x, W, b, stride, pad, cover_all, dilate, groups, keep_col=True
    )
    assert isinstance(cols, cpu_conv.RowChunks) == batch_innermost
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
        gW = cpu_conv.convolution_grad_weight_array(
            x, gy, ksize, stride, pad, cover_all, dilate, groups, kept
        )
        numpy.testing.assert_allclose(gW, expected_gW, rtol=1e-10, atol=1e-10)

    W_t = rng.standard_normal((6, c // groups, *ksize))
    gx = cpu_deconv.deconvolution_forward(
        gy, W_t, None, stride, pad, shape[2:], dilate, groups
    )
    assert gx.shape == shape
    y_t, _ = cpu_conv.convolution_forward(
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
    monkeypatch.setattr(_layout, "CHUNK_BYTES", 1)
    monkeypatch.setattr(_layout, "WHOLE_BYTES", whole_rows * row_bytes)
    kept, cols = cpu_conv.convolution_forward(x, W, None, (1, 1), (1, 1), keep_col=True)
    assert isinstance(cols, cpu_conv.RowChunks)
    assert [(i, j) for i, j, _ in cols] == [(k, k + 1) for k in range(6)]
    y, none = cpu_conv.convolution_forward(x, W, None, (1, 1), (1, 1))
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
    assert _layout.is_batch_innermost(x) == (layout == "batch_innermost")
    W = rng.standard_normal((2, 4, 3, 2))
    y, _ = cpu_conv.convolution_forward(x, W, None, (1, 2), (pad, pad))
    assert _layout.is_batch_innermost(y)
    col, out_size = _matrix_reference(x, (3, 2), (1, 2), (pad, pad), False, None)
    expected = (W.reshape(2, -1) @ col).reshape(2, 3, *out_size).swapaxes(0, 1)
    numpy.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)


def test_large_c_order_input_keeps_the_batch_chunked_path(monkeypatch):
    # Above _TRANSPOSE_BYTES a C-order input is not transposed: the output
    # has the channel axis outermost in memory; a batch-innermost input of
    # any size keeps its order.
    monkeypatch.setattr(cpu_conv, "_TRANSPOSE_BYTES", 0)
    rng = numpy.random.default_rng(10)
    x = rng.standard_normal((3, 4, 5, 6))
    W = rng.standard_normal((2, 4, 3, 3))
    y, _ = cpu_conv.convolution_forward(x, W, None, (1, 1), (1, 1))
    assert not _layout.is_batch_innermost(y)
    assert y.swapaxes(0, 1).flags.c_contiguous
    xb = _layout.as_batch_innermost(x).transpose(3, 0, 1, 2)
    yb, _ = cpu_conv.convolution_forward(xb, W, None, (1, 1), (1, 1))
    assert _layout.is_batch_innermost(yb)
    numpy.testing.assert_allclose(yb, y, rtol=1e-12, atol=1e-12)


def test_deconvolution_of_a_batch_innermost_input_is_dense():
    # The scatter-add form on a batch-innermost input gives a dense
    # batch-innermost output (its padding cut off by a copy).
    rng = numpy.random.default_rng(9)
    gy = numpy.ascontiguousarray(rng.standard_normal((6, 5, 5, 3))).transpose(
        3, 0, 1, 2
    )
    W = rng.standard_normal((6, 2, 3, 3))
    gx = cpu_deconv.deconvolution_forward(gy, W, None, (1, 1), (1, 1), (5, 5))
    assert _layout.is_batch_innermost(gx)
    x = rng.standard_normal((3, 2, 5, 5))
    y, _ = cpu_conv.convolution_forward(x, W, None, (1, 1), (1, 1))
    numpy.testing.assert_allclose((y * gy).sum(), (x * gx).sum(), rtol=1e-10)


@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_grouped_matmul(groups, dtype):
    rng = numpy.random.default_rng(3)
    a = rng.standard_normal((6, 4)).astype(dtype)
    b = rng.standard_normal((6, 5)).astype(dtype)
    y = _layout.grouped_matmul(a, b, groups, transa=True)
    assert y.dtype == dtype
    blocks = [
        a[g * 6 // groups : (g + 1) * 6 // groups].T.astype(numpy.float64)
        @ b[g * 6 // groups : (g + 1) * 6 // groups]
        for g in range(groups)
    ]
    numpy.testing.assert_allclose(y, numpy.concatenate(blocks), rtol=1e-2, atol=1e-2)
    y = _layout.grouped_matmul(a, a, groups, transb=True)
    assert y.shape == (6, 6 // groups)


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
    if _blas.gemm_function(dtype) is None:
        pytest.skip("NumPy's BLAS exports no CBLAS gemm in this build")
    monkeypatch.setitem(_parallel._state, "team", None)  # see the next test
    calls = shift_calls
    rng = numpy.random.default_rng(11)
    x = rng.standard_normal(shape).astype(dtype)
    W = rng.standard_normal((5, shape[1], *ksize)).astype(dtype)
    b = rng.standard_normal(5).astype(dtype)
    y, cols = cpu_conv.convolution_forward(x, W, b, (1, 1), pad, dilate=dilate)
    assert cols is None
    assert len(calls) == 1
    assert _layout.is_batch_innermost(y)
    kept, _ = cpu_conv.convolution_forward(
        x, W, b, (1, 1), pad, dilate=dilate, keep_col=True
    )
    assert len(calls) == 1
    tol = 1e-4 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(y, kept, rtol=tol, atol=tol)


def test_shift_forward_is_skipped_where_padding_widens_rows_much():
    # 8-pixel rows padded to 10: a quarter more GEMM columns; patch matrices.
    x = numpy.zeros((2, 3, 8, 8), numpy.float32)
    assert not cpu_conv._shift_applies(x, (3, 3), (1, 1), (1, 1), 1, (8, 8))
    assert cpu_conv._shift_applies(
        numpy.zeros((2, 3, 16, 16), numpy.float32), (3, 3), (1, 1), (1, 1), 1, (16, 16)
    )
    assert not cpu_conv._shift_applies(
        numpy.zeros((2, 4, 16, 16), numpy.float32), (3, 3), (1, 1), (1, 1), 2, (16, 16)
    )


@pytest.fixture(params=[1, 2, 3], ids=["serial", "team2", "team3"])
def cpu_threads(request, cpu_team):
    """Runs the test without a CPU team or with a team of 2 or 3 threads."""
    cpu_team(request.param)
    return request.param


@pytest.fixture
def shift_calls(monkeypatch):
    """The argument tuples of every cpu_conv._shift_forward call (a spy)."""
    calls = []
    original = cpu_conv._shift_forward

    def spy(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(cpu_conv, "_shift_forward", spy)
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
    monkeypatch.setattr(cpu_conv, "_ITEM_BYTES", 1)
    rng = numpy.random.default_rng(12)
    x = rng.standard_normal(shape).astype(dtype)
    c_out = 4
    W = rng.standard_normal((c_out, shape[1] // groups, *ksize)).astype(dtype)
    y, cols = cpu_conv.convolution_forward(
        x, W, None, stride, pad, groups=groups, keep_col=True
    )
    assert isinstance(cols, cpu_conv.RowChunks)
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
    y2, none = cpu_conv.convolution_forward(x, W, None, stride, pad, groups=groups)
    assert none is None
    numpy.testing.assert_allclose(y2, expected, rtol=tol, atol=tol)
    gy = rng.standard_normal(y.shape).astype(dtype)
    gW = cpu_conv.convolution_grad_weight_array(
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
    if _blas.gemm_function(dtype) is None:
        pytest.skip("NumPy's BLAS exports no CBLAS gemm in this build")
    rng = numpy.random.default_rng(13)
    x = rng.standard_normal((3, 5, 10, 16)).astype(dtype)
    W = rng.standard_normal((6, 5, 3, 3)).astype(dtype)
    b = rng.standard_normal(6).astype(dtype)
    y, _ = cpu_conv.convolution_forward(x, W, b, (1, 1), (1, 1))
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
    monkeypatch.setattr(cpu_conv, "_ITEM_BYTES", 1)
    cpu_conv.convolution_forward(x, W, None, (1, 1), (1, 1), keep_col=True)
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
    monkeypatch.setattr(cpu_conv, "_ITEM_BYTES", 1)
    rng = numpy.random.default_rng(14)
    gy = numpy.ascontiguousarray(
        rng.standard_normal((shape[1], *shape[2:], shape[0]))
    ).transpose(3, 0, 1, 2)
    W = rng.standard_normal((shape[1], 5, *ksize))
    gx = cpu_deconv.deconvolution_forward(gy, W, None, stride, pad, out_size)
    assert gx.shape == (shape[0], 5, *out_size)
    assert _layout.is_batch_innermost(gx)
    x = rng.standard_normal(gx.shape)
    y, _ = cpu_conv.convolution_forward(x, W, None, stride, pad)
    assert y.shape == gy.shape
    numpy.testing.assert_allclose((y * gy).sum(), (x * gx).sum(), rtol=1e-10)


# Through the catalogue's functions, with the plugin registered.


@pytest.mark.parametrize("groups", [1, 2])
def test_batch_chunks_give_the_same_results(cpu_plugin, monkeypatch, groups):
    # One image per patch-matrix chunk versus the whole batch at once.
    rng = numpy.random.RandomState(5)
    x = rng.uniform(-1, 1, (3, 4, 5, 6))
    W = rng.uniform(-1, 1, (6, 4 // groups, 3, 3))
    b = rng.uniform(-1, 1, 6)
    gy = rng.uniform(-1, 1, (3, 6, 3, 6))

    def run():
        xv, Wv, bv = (chainer.Variable(a.copy()) for a in (x, W, b))
        y = convolution_2d.convolution_2d(
            xv, Wv, bv, stride=(2, 1), pad=1, groups=groups
        )
        y.grad = gy
        y.backward()
        return y.array, xv.grad, Wv.grad, bv.grad

    whole = run()
    monkeypatch.setattr(_layout, "CHUNK_BYTES", 1)
    monkeypatch.setattr(_layout, "WHOLE_BYTES", 0)
    for a, e in zip(run(), whole, strict=True):
        numpy.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)
    gradient_check.check_double_backward(
        lambda x, W: convolution_2d.convolution_2d(x, W, pad=1, groups=groups),
        (x, W),
        rng.uniform(-1, 1, (3, 6, 5, 6)),
        (rng.uniform(-1, 1, x.shape), rng.uniform(-1, 1, W.shape)),
    )


def test_patch_matrices_are_kept_only_with_backprop(cpu_plugin):
    # The weight gradient reuses the forward's patch matrices; without
    # backprop nothing would use them, so they are not kept.
    x = numpy.ones((2, 3, 5, 5), numpy.float32)
    W = numpy.ones((4, 3, 3, 3), numpy.float32)
    node = convolution_2d.Convolution2DFunction(pad=1)
    node.apply((x, W))
    assert node.patches is not None
    node = convolution_2d.Convolution2DFunction(pad=1)
    with chainer.no_backprop_mode():
        node.apply((x, W))
    assert node.patches is None
