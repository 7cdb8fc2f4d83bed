"""chainer-cpu's max pooling kernels: registered, run, and equal to the reference.

The reference is the catalogue node's own ``forward`` (and its gradient
node's); the kernel path is the public function with the plugin registered.
Inputs come C-contiguous, batch-innermost (as NumPy convolution outputs lie),
channels-last (as oneDNN's ``nhwc`` convolution outputs lie) and
non-contiguous, in float16/32/64.
"""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer import plugins
from chainer.functions.pooling import max_pooling_2d
from chainer.functions.pooling import max_pooling_nd
from chainer_cpu import _layout
from chainer_cpu.functions.pooling import max_pooling_nd as cpu_max
from chainer_cpu.functions.pooling import pooling_nd as cpu_pool

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
_LAYOUTS = ["c_order", "batch_innermost", "channels_last", "channel_major", "strided"]
# (shape, ksize, stride, pad, cover_all)
_GEOMETRIES = [
    ((3, 2, 6, 8), (2, 2), None, (0, 0), True),
    ((4, 3, 7, 9), (3, 3), (2, 2), (1, 1), True),
    ((2, 2, 5, 6), (3, 2), (1, 2), (1, 0), False),
    ((3, 2, 9), (3,), (2,), (1,), True),
    ((2, 2, 4, 3, 5), (2, 1, 3), (2, 1, 2), (1, 0, 1), False),
]


def _distinct(shape, dtype, seed=0):
    # Distinct values, far enough apart for float16 and gradient checks.
    size = int(numpy.prod(shape))
    perm = numpy.random.RandomState(seed).permutation(size).reshape(shape)
    return ((perm - size / 2) / max(1, size // 64)).astype(dtype)


def _is_channels_last(a):
    # Checked on the strides: the memory is (n, *spatial, c).
    return a.transpose(0, *range(2, a.ndim), 1).flags.c_contiguous


@pytest.fixture
def calls(monkeypatch):
    """Records the kernels' window passes (their own helpers)."""
    seen = []
    for name in ("reduce_windows", "scatter_windows"):
        original = getattr(cpu_pool, name)

        def wrapper(*args, _original=original, _name=name, **kwargs):
            seen.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(cpu_pool, name, wrapper)
    return seen


@pytest.mark.parametrize(
    ("node_class", "kernel"),
    [
        (max_pooling_nd.MaxPoolingND, cpu_max.max_pooling),
        (max_pooling_2d.MaxPooling2D, cpu_max.max_pooling),
        (max_pooling_nd.MaxPoolingNDGrad, cpu_max.max_pooling_grad),
    ],
)
def test_registered_for_numpy(cpu_plugin, node_class, kernel):
    assert plugins.get_kernel(node_class, "numpy") is kernel


def test_the_kernels_run_only_while_registered(cpu_plugin, calls):
    x = chainer.Variable(_distinct((2, 3, 6, 6), numpy.float32))
    y = F.max_pooling_2d(x, 2)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert calls == ["reduce_windows", "scatter_windows"]
    plugins.unregister("cpu")
    try:
        y = F.max_pooling_2d(x, 2)
        y.grad = numpy.ones_like(y.array)
        y.backward()
    finally:
        plugins.register(cpu_plugin, name="cpu")
    assert calls == ["reduce_windows", "scatter_windows"]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize(("shape", "ksize", "stride", "pad", "cover_all"), _GEOMETRIES)
def test_kernels_match_the_reference(
    cpu_plugin, calls, dtype, layout, shape, ksize, stride, pad, cover_all, as_layout
):
    x = as_layout(_distinct(shape, dtype), layout)
    ref = max_pooling_nd.MaxPoolingND(len(ksize), ksize, stride, pad, cover_all)
    (y_ref,) = ref.forward((numpy.ascontiguousarray(x),))
    gy = _distinct(y_ref.shape, dtype, seed=1)
    (gx_ref,) = max_pooling_nd.MaxPoolingNDGrad(ref).forward((gy,))

    xv = chainer.Variable(x)
    y, indexes = F.max_pooling_nd(xv, ksize, stride, pad, cover_all, True)
    assert calls == ["reduce_windows"]
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, y_ref)
    numpy.testing.assert_array_equal(indexes, ref.indexes)
    y.grad = gy
    y.backward()
    assert calls == ["reduce_windows", "scatter_windows"]
    assert xv.grad.dtype == dtype
    numpy.testing.assert_array_equal(xv.grad, gx_ref)


@pytest.mark.parametrize("layout", ["c_order", "channel_major", "strided"])
@pytest.mark.parametrize("pad", [0, 1])
def test_other_layouts_give_c_order(cpu_plugin, layout, pad, as_layout):
    x = chainer.Variable(as_layout(_distinct((3, 4, 6, 8), numpy.float32), layout))
    h = x * 1 if layout == "c_order" else x
    y = F.max_pooling_2d(h, 3, 2, pad=pad)
    assert y.array.flags.c_contiguous
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.flags.c_contiguous


@pytest.mark.parametrize("gy_layout", _LAYOUTS)
@pytest.mark.parametrize("pad", [0, 1])
def test_batch_innermost_input_keeps_its_layout(cpu_plugin, pad, gy_layout, as_layout):
    # NumPy convolution outputs lie in memory as (c, h, w, n); pooling keeps
    # that order for its output and its input gradient, with the values of
    # a C-order input, whatever the order of the output gradient (a linear
    # layer after the pooling gives a C-order one).
    x = as_layout(_distinct((5, 3, 6, 8), numpy.float32), "batch_innermost")
    xv = chainer.Variable(x)
    h = xv * 1  # an inner node: its gradient is stored as computed
    assert _layout.is_batch_innermost(h.array)
    y = F.max_pooling_2d(h, 3, 2, pad=pad)
    assert _layout.is_batch_innermost(y.array)
    gy = as_layout(_distinct(y.shape, numpy.float32, seed=3), gy_layout)
    y.grad = gy
    y.backward(retain_grad=True)
    assert _layout.is_batch_innermost(h.grad)
    xc = chainer.Variable(numpy.ascontiguousarray(x))
    yc = F.max_pooling_2d(xc, 3, 2, pad=pad)
    yc.grad = gy
    yc.backward()
    numpy.testing.assert_array_equal(y.array, yc.array)
    numpy.testing.assert_array_equal(xv.grad, xc.grad)


def test_indexes_are_found_only_when_needed(cpu_plugin):
    # Inference pays for the maxima alone; the argmax is found on first use,
    # with the reference's compact dtype.
    node = max_pooling_nd.MaxPoolingND(2, 2)
    x = _distinct((2, 2, 4, 4), numpy.float32)
    node.apply((x,))
    ref = max_pooling_nd.MaxPoolingND(2, 2)
    ref.forward((x,))
    assert node.compact_indexes().dtype == ref.compact_indexes().dtype == numpy.uint8
    numpy.testing.assert_array_equal(node.compact_indexes(), ref.compact_indexes())


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("layout", _LAYOUTS)
def test_gradients_on_the_kernel_path(cpu_plugin, calls, dtype, layout, as_layout):
    x = as_layout(_distinct((3, 2, 5, 6), dtype), layout)
    ggx = _distinct(x.shape, dtype, seed=2)
    tol = {"atol": 5e-2, "rtol": 5e-2} if dtype == numpy.float16 else {}

    def f(x):
        return F.max_pooling_2d(x, 3, 2, pad=1)

    gy = _distinct(f(x).shape, dtype, seed=1)
    del calls[:]

    gradient_check.check_backward(f, x, gy, dtype=numpy.float64, eps=1e-3, **tol)
    gradient_check.check_double_backward(
        f, x, gy, ggx, dtype=numpy.float64, eps=1e-3, **tol
    )
    assert "reduce_windows" in calls
    assert "scatter_windows" in calls


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("layout", ["c_order", "batch_innermost", "channels_last"])
@pytest.mark.parametrize(("shape", "ksize", "stride", "pad", "cover_all"), _GEOMETRIES)
def test_gradient_split_on_cpu_threads(
    cpu_team,
    monkeypatch,
    threads,
    layout,
    shape,
    ksize,
    stride,
    pad,
    cover_all,
    as_layout,
):
    team = cpu_team(threads)
    monkeypatch.setattr(cpu_pool, "PARALLEL_BYTES", 1)
    x = as_layout(_distinct(shape, numpy.float32), layout)
    ref = max_pooling_nd.MaxPoolingND(len(ksize), ksize, stride, pad, cover_all)
    (y_ref,) = ref.forward((numpy.ascontiguousarray(x),))
    gy = _distinct(y_ref.shape, numpy.float32, seed=1)
    (gx_ref,) = max_pooling_nd.MaxPoolingNDGrad(ref).forward((gy,))
    node = max_pooling_nd.MaxPoolingND(len(ksize), ksize, stride, pad, cover_all)
    (y,) = cpu_max.max_pooling(node, (x,))
    numpy.testing.assert_array_equal(y, y_ref)
    (gx,) = cpu_max.max_pooling_grad(max_pooling_nd.MaxPoolingNDGrad(node), (gy,))
    numpy.testing.assert_array_equal(gx, gx_ref)
    if shape[1] > 1:
        assert team.helpers


# (shape, ksize, stride, pad, cover_all): VGG's 2x2 windows, odd sizes,
# overlapping windows, padding and cover_all, 1-d and 3-d.
_CHANNELS_LAST_GEOMETRIES = [
    ((4, 8, 8, 6), (2, 2), (2, 2), (0, 0), False),
    ((3, 5, 7, 9), (2, 2), (2, 2), (0, 0), True),
    ((3, 5, 7, 9), (2, 2), (2, 2), (0, 0), False),
    ((2, 3, 7, 5), (3, 3), (1, 1), (1, 1), False),
    ((2, 4, 9, 8), (3, 2), (2, 3), (1, 0), True),
    ((1, 6, 5, 5), (3, 3), (2, 2), (1, 1), True),
    ((3, 4, 11), (3,), (2,), (1,), True),
    ((2, 3, 5, 4, 6), (2, 2, 3), (2, 1, 2), (1, 0, 1), False),
]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    ("shape", "ksize", "stride", "pad", "cover_all"), _CHANNELS_LAST_GEOMETRIES
)
def test_channels_last_input_keeps_its_layout(
    dtype, shape, ksize, stride, pad, cover_all, as_layout
):
    # oneDNN's nhwc convolutions give channels-last outputs: pooling keeps
    # that order for its output, its argmax and its input gradient, with the
    # values of the reference on a C-order input, whatever the order of gy.
    x = as_layout(_distinct(shape, dtype), "channels_last")
    ref = max_pooling_nd.MaxPoolingND(len(ksize), ksize, stride, pad, cover_all)
    (y_ref,) = ref.forward((numpy.ascontiguousarray(x),))
    node = max_pooling_nd.MaxPoolingND(len(ksize), ksize, stride, pad, cover_all)
    (y,) = cpu_max.max_pooling(node, (x,))
    assert y.dtype == dtype
    assert _is_channels_last(y)
    assert not y.flags.c_contiguous
    numpy.testing.assert_array_equal(y, y_ref)
    idx = node.compact_indexes()
    assert _is_channels_last(idx)
    numpy.testing.assert_array_equal(idx, ref.compact_indexes())
    for gy_layout in _LAYOUTS:
        gy = as_layout(_distinct(y_ref.shape, dtype, seed=1), gy_layout)
        (gx_ref,) = max_pooling_nd.MaxPoolingNDGrad(ref).forward(
            (numpy.ascontiguousarray(gy),)
        )
        (gx,) = cpu_max.max_pooling_grad(max_pooling_nd.MaxPoolingNDGrad(node), (gy,))
        assert gx.dtype == dtype
        assert gx.shape == x.shape
        assert gx.strides == x.strides, gy_layout
        numpy.testing.assert_array_equal(gx, gx_ref)


@pytest.mark.parametrize("gy_layout", ["c_order", "channels_last"])
@pytest.mark.parametrize("pad", [0, 1])
def test_channels_last_through_the_functions(
    cpu_plugin, calls, pad, gy_layout, as_layout
):
    # As in a VGG step on nhwc convolutions: ReLU, pooling, and a C-order
    # gradient from the linear layer after the pooling (or a channels-last
    # one from a convolution).
    x = as_layout(_distinct((4, 6, 8, 8), numpy.float32), "channels_last")
    xv = chainer.Variable(x)
    a = xv * 1  # inner nodes: their gradients are stored as computed
    h = F.relu(a)
    assert _is_channels_last(h.array)
    y = F.max_pooling_2d(h, 2, 2, pad=pad)
    assert calls == ["reduce_windows"]
    assert _is_channels_last(y.array)
    y.grad = as_layout(_distinct(y.shape, numpy.float32, seed=3), gy_layout)
    y.backward(retain_grad=True)
    assert calls == ["reduce_windows", "scatter_windows"]
    assert _is_channels_last(h.grad)
    assert _is_channels_last(a.grad)
    xc = chainer.Variable(numpy.ascontiguousarray(x))
    yc = F.max_pooling_2d(F.relu(xc), 2, 2, pad=pad)
    yc.grad = numpy.ascontiguousarray(y.grad)
    yc.backward()
    numpy.testing.assert_array_equal(y.array, yc.array)
    numpy.testing.assert_array_equal(xv.grad, xc.grad)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    ("shape", "ksize", "stride", "pad", "cover_all"), _CHANNELS_LAST_GEOMETRIES
)
def test_channels_last_split_by_image_on_cpu_threads(
    cpu_team,
    monkeypatch,
    threads,
    dtype,
    shape,
    ksize,
    stride,
    pad,
    cover_all,
    as_layout,
):
    team = cpu_team(threads)
    monkeypatch.setattr(cpu_pool, "PARALLEL_BYTES", 1)
    parts = []
    scatter = cpu_pool.scatter_windows

    def recording(g, *args):
        parts.append(g.shape[:2])
        return scatter(g, *args)

    monkeypatch.setattr(cpu_pool, "scatter_windows", recording)
    x = as_layout(_distinct(shape, dtype), "channels_last")
    ref = max_pooling_nd.MaxPoolingND(len(ksize), ksize, stride, pad, cover_all)
    (y_ref,) = ref.forward((numpy.ascontiguousarray(x),))
    node = max_pooling_nd.MaxPoolingND(len(ksize), ksize, stride, pad, cover_all)
    (y,) = cpu_max.max_pooling(node, (x,))
    numpy.testing.assert_array_equal(y, y_ref)
    assert _is_channels_last(y)
    for gy_layout in ["c_order", "channels_last"]:
        gy = as_layout(_distinct(y_ref.shape, dtype, seed=1), gy_layout)
        (gx_ref,) = max_pooling_nd.MaxPoolingNDGrad(ref).forward(
            (numpy.ascontiguousarray(gy),)
        )
        del parts[:]
        (gx,) = cpu_max.max_pooling_grad(max_pooling_nd.MaxPoolingNDGrad(node), (gy,))
        numpy.testing.assert_array_equal(gx, gx_ref)
        assert gx.strides == x.strides
        n, c = shape[:2]
        if n > 1:  # whole images per thread
            assert [p[1] for p in parts] == [c] * len(parts)
            assert sum(p[0] for p in parts) == n
            assert len(parts) == min(threads, n)
        else:  # the channels of the one image
            assert sum(p[1] for p in parts) == c
            assert len(parts) == min(threads, c)
    if team is not None:
        assert team.helpers
