"""chainer-cpu's average pooling kernels: registered, run, and equal to the reference.

The reference is the catalogue node's own ``forward`` (and its gradient
node's); the kernel path is the public function with the plugin registered.
"""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer import plugins
from chainer.functions.pooling import average_pooling_2d
from chainer.functions.pooling import average_pooling_nd
from chainer_cpu import _layout
from chainer_cpu.functions.pooling import average_pooling_nd as cpu_avg
from chainer_cpu.functions.pooling import pooling_nd as cpu_pool

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
_LAYOUTS = ["c_order", "batch_innermost", "channels_last", "channel_major", "strided"]
# (shape, ksize, stride, pad, pad_value)
_GEOMETRIES = [
    ((3, 2, 6, 8), (2, 2), None, (0, 0), 0),
    ((4, 3, 7, 9), (3, 3), (2, 2), (1, 1), 0),
    ((2, 2, 5, 6), (3, 2), (1, 2), (1, 1), None),
    ((3, 2, 9), (3,), (2,), (1,), None),
    ((2, 2, 4, 3, 5), (2, 1, 3), (2, 1, 2), (1, 0, 1), 0),
]


def _input(shape, dtype, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _is_channels_last(a):
    # Checked on the strides: the memory is (n, *spatial, c).
    return a.transpose(0, *range(2, a.ndim), 1).flags.c_contiguous


@pytest.fixture
def calls(monkeypatch):
    """Records the kernels' window passes (their own helpers)."""
    seen = []
    for name in ("reduce_windows", "spread_windows"):
        original = getattr(cpu_pool, name)

        def wrapper(*args, _original=original, _name=name, **kwargs):
            seen.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(cpu_pool, name, wrapper)
    return seen


@pytest.mark.parametrize(
    ("node_class", "kernel"),
    [
        (average_pooling_nd.AveragePoolingND, cpu_avg.average_pooling),
        (average_pooling_2d.AveragePooling2D, cpu_avg.average_pooling),
        (average_pooling_nd.AveragePoolingNDGrad, cpu_avg.average_pooling_grad),
    ],
)
def test_registered_for_numpy(cpu_plugin, node_class, kernel):
    assert plugins.get_kernel(node_class, "numpy") is kernel


def test_the_kernels_run_only_while_registered(cpu_plugin, calls):
    x = chainer.Variable(_input((2, 3, 6, 6), numpy.float32))
    y = F.average_pooling_2d(x, 2)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert calls == ["reduce_windows", "spread_windows"]
    plugins.unregister("cpu")
    try:
        y = F.average_pooling_2d(x, 2)
        y.grad = numpy.ones_like(y.array)
        y.backward()
    finally:
        plugins.register(cpu_plugin, name="cpu")
    assert calls == ["reduce_windows", "spread_windows"]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize(("shape", "ksize", "stride", "pad", "pad_value"), _GEOMETRIES)
def test_kernels_match_the_reference(
    cpu_plugin, calls, dtype, layout, shape, ksize, stride, pad, pad_value, as_layout
):
    x = as_layout(_input(shape, dtype), layout)
    ref = average_pooling_nd.AveragePoolingND(
        len(ksize), ksize, stride, pad, False, pad_value
    )
    (y_ref,) = ref.forward((numpy.ascontiguousarray(x),))
    gy = as_layout(_input(y_ref.shape, dtype, seed=1), layout)
    (gx_ref,) = average_pooling_nd.AveragePoolingNDGrad(ref).forward(
        (numpy.ascontiguousarray(gy),)
    )

    xv = chainer.Variable(x)
    y = F.average_pooling_nd(xv, ksize, stride, pad, pad_value)
    assert calls == ["reduce_windows"]
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, y_ref)
    y.grad = gy
    y.backward()
    assert calls == ["reduce_windows", "spread_windows"]
    assert xv.grad.dtype == dtype
    numpy.testing.assert_array_equal(xv.grad, gx_ref)


@pytest.mark.parametrize("pad", [0, 1])
def test_batch_innermost_arrays_keep_their_layout(cpu_plugin, pad, as_layout):
    x = as_layout(_input((5, 3, 6, 8), numpy.float32), "batch_innermost")
    xv = chainer.Variable(x)
    h = xv * 1  # an inner node: its gradient is stored as computed
    y = F.average_pooling_2d(h, 3, 2, pad=pad)
    assert _layout.is_batch_innermost(y.array)
    y.grad = as_layout(_input(y.shape, numpy.float32, seed=3), "batch_innermost")
    y.backward(retain_grad=True)
    assert _layout.is_batch_innermost(h.grad)
    # C-order gradients stay C-order.
    y = F.average_pooling_2d(h, 3, 2, pad=pad)
    y.grad = numpy.ascontiguousarray(y.array)
    h.grad = None
    y.backward(retain_grad=True)
    assert h.grad.flags.c_contiguous


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("pad_value", [0, None])
def test_gradients_on_the_kernel_path(
    cpu_plugin, calls, dtype, layout, pad_value, as_layout
):
    x = as_layout(_input((3, 2, 5, 6), dtype), layout)
    ggx = _input(x.shape, dtype, seed=2)
    tol = {"atol": 5e-2, "rtol": 5e-2} if dtype == numpy.float16 else {}

    def f(x):
        return F.average_pooling_nd(x, 3, 2, pad=1, pad_value=pad_value)

    gy = _input(f(x).shape, dtype, seed=1)
    del calls[:]
    gradient_check.check_backward(f, x, gy, dtype=numpy.float64, **tol)
    gradient_check.check_double_backward(f, x, gy, ggx, dtype=numpy.float64, **tol)
    assert "reduce_windows" in calls
    assert "spread_windows" in calls


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("pad", [0, 1])
def test_channels_last_arrays_keep_their_layout(cpu_plugin, dtype, pad, as_layout):
    x = as_layout(_input((5, 3, 7, 8), dtype), "channels_last")
    ref = average_pooling_nd.AveragePoolingND(2, 3, 2, pad, False, 0)
    (y_ref,) = ref.forward((numpy.ascontiguousarray(x),))
    xv = chainer.Variable(x)
    h = xv * 1  # an inner node: its gradient is stored as computed
    y = F.average_pooling_2d(h, 3, 2, pad=pad)
    assert _is_channels_last(y.array)
    numpy.testing.assert_array_equal(y.array, y_ref)
    gy = as_layout(_input(y.shape, dtype, seed=3), "channels_last")
    (gx_ref,) = average_pooling_nd.AveragePoolingNDGrad(ref).forward(
        (numpy.ascontiguousarray(gy),)
    )
    y.grad = gy
    y.backward(retain_grad=True)
    assert _is_channels_last(h.grad)
    numpy.testing.assert_array_equal(h.grad, gx_ref)


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("layout", ["c_order", "batch_innermost", "channels_last"])
@pytest.mark.parametrize(("shape", "ksize", "stride", "pad", "pad_value"), _GEOMETRIES)
def test_gradient_split_on_cpu_threads(
    cpu_team,
    monkeypatch,
    threads,
    layout,
    shape,
    ksize,
    stride,
    pad,
    pad_value,
    as_layout,
):
    team = cpu_team(threads)
    monkeypatch.setattr(cpu_pool, "PARALLEL_BYTES", 1)
    x = as_layout(_input(shape, numpy.float32), layout)
    ref = average_pooling_nd.AveragePoolingND(
        len(ksize), ksize, stride, pad, False, pad_value
    )
    (y_ref,) = ref.forward((numpy.ascontiguousarray(x),))
    gy = as_layout(_input(y_ref.shape, numpy.float32, seed=1), layout)
    (gx_ref,) = average_pooling_nd.AveragePoolingNDGrad(ref).forward(
        (numpy.ascontiguousarray(gy),)
    )
    node = average_pooling_nd.AveragePoolingND(
        len(ksize), ksize, stride, pad, False, pad_value
    )
    (y,) = cpu_avg.average_pooling(node, (x,))
    numpy.testing.assert_array_equal(y, y_ref)
    (gx,) = cpu_avg.average_pooling_grad(
        average_pooling_nd.AveragePoolingNDGrad(node), (gy,)
    )
    numpy.testing.assert_array_equal(gx, gx_ref)
    if layout == "channels_last":
        assert _is_channels_last(y)
        assert gx.strides == x.strides
    assert team.helpers
