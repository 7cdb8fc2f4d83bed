"""chainer-cpu's ReLU kernel: registered, and equal to NumPy's maximum on any layout."""

import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import plugins
from chainer.functions.activation import relu
from chainer_cpu.functions.activation import relu as cpu_relu


def test_registered_for_numpy(cpu_plugin):
    assert plugins.get_kernel(relu.ReLU, "numpy") is cpu_relu.relu


def _batch_innermost(a):
    return numpy.ascontiguousarray(a.transpose(1, 2, 3, 0)).transpose(3, 0, 1, 2)


def _channels_last(a):
    return numpy.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)


def _is_channels_last(a):
    return a.transpose(0, 2, 3, 1).flags.c_contiguous


def _inputs():
    # Inputs of the row-wise path for large dense arrays, and ones it skips.
    rng = numpy.random.RandomState(0)
    base = rng.standard_normal((4, 3, 65, 89)).astype(numpy.float32)
    base[0, 0, 0, :3] = [numpy.nan, -0.0, numpy.inf]
    return {
        "small": base[:1, :1, :3, :4].copy(),
        "small_float16": base[:1, :1, :3, :4].astype(numpy.float16),
        "large_float16": base.astype(numpy.float16),
        "c_order": base,
        "f_order": numpy.asfortranarray(base),
        "channel_major": numpy.ascontiguousarray(base.swapaxes(0, 1)).swapaxes(0, 1),
        "batch_innermost": _batch_innermost(base),
        "channels_last": _channels_last(base),
        "padded_view": numpy.pad(base, ((0, 0), (0, 0), (1, 1), (1, 1)))[
            :, :, 1:-1, 1:-1
        ],
        "reversed": base[:, :, ::-1],
        "float64": base.astype(numpy.float64),
        "exact_rows": rng.standard_normal(4 * cpu_relu.ROW).astype(numpy.float32),
        "rows_and_a_tail": rng.standard_normal(4 * cpu_relu.ROW + 5).astype(
            numpy.float64
        ),
    }


@pytest.mark.parametrize("name", sorted(_inputs()))
def test_kernel_matches_maximum(name):
    x = _inputs()[name]
    node = relu.ReLU()
    (y,) = cpu_relu.relu(node, (x,))
    expected = numpy.maximum(x, 0)
    assert y.dtype == x.dtype
    assert y.shape == x.shape
    numpy.testing.assert_array_equal(y, expected)
    # Signed zeros and NaN as numpy.maximum gives them.
    numpy.testing.assert_array_equal(numpy.signbit(y), numpy.signbit(expected))
    # The output is retained for the backward mask, as forward does.
    assert node._output_indexes_to_retain == (0,)


@pytest.mark.parametrize(
    "name", ["channel_major", "batch_innermost", "channels_last", "f_order"]
)
def test_large_dense_output_keeps_the_input_memory_order(name):
    x = _inputs()[name]
    (y,) = cpu_relu.relu(relu.ReLU(), (x,))
    assert y.strides == x.strides


def test_is_dense():
    x = numpy.zeros((3, 4, 5), numpy.float32)
    assert cpu_relu.is_dense(x.transpose(2, 0, 1))
    assert not cpu_relu.is_dense(x[:, :, ::2])
    assert not cpu_relu.is_dense(x[:, 1:])


def test_relu_uses_the_kernel_only_while_registered(cpu_plugin, monkeypatch):
    calls = []

    def counting(*args, **kwargs):
        calls.append(args[0].shape)
        return numpy.maximum(*args, **kwargs)

    monkeypatch.setattr(cpu_relu, "_maximum", counting)
    x = numpy.ones((2, 3), numpy.float32)
    relu.relu(x)
    assert calls == [(2, 3)]
    plugins.unregister("cpu")
    try:
        relu.relu(x)
    finally:
        plugins.register(cpu_plugin, name="cpu")
    assert calls == [(2, 3)]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("layout", ["c_order", "batch_innermost", "channels_last"])
def test_gradients_through_the_kernel(cpu_plugin, dtype, layout):
    rng = numpy.random.RandomState(2)
    x = rng.uniform(-1, 1, (4, 3, 64, 64)).astype(dtype)
    x[abs(x) < 0.1] = 0.5
    if layout == "batch_innermost":
        x = _batch_innermost(x)
    elif layout == "channels_last":
        x = _channels_last(x)
    v = chainer.Variable(x)
    y = relu.relu(v)
    y.grad = numpy.ones(y.shape, dtype)
    y.backward()
    numpy.testing.assert_array_equal(v.grad, (x > 0).astype(dtype))
    small = x[:2, :2, :3, :3]
    tol = {
        numpy.float16: {"atol": 5e-3, "rtol": 5e-2, "dtype": numpy.float64},
        numpy.float32: {"atol": 1e-4, "rtol": 1e-3},
        numpy.float64: {},
    }[dtype]
    gradient_check.check_backward(
        relu.relu, small, rng.uniform(-1, 1, small.shape).astype(dtype), **tol
    )
    gradient_check.check_double_backward(
        relu.relu,
        small,
        rng.uniform(-1, 1, small.shape).astype(dtype),
        rng.uniform(-1, 1, small.shape).astype(dtype),
        **tol,
    )


def test_grad_kernel_registered_for_numpy(cpu_plugin):
    assert plugins.get_kernel(relu.ReLUGrad, "numpy") is cpu_relu.relu_grad


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_grad_kernel_matches_the_reference(dtype):
    y = numpy.array([[numpy.nan, -0.0, 0.0], [1.5, 2.0, 0.0]], dtype)
    gy = numpy.array([[1.0, 2.0, numpy.inf], [numpy.nan, -3.0, 4.0]], dtype)
    node = relu.ReLUGrad(y)
    with numpy.errstate(invalid="ignore"):  # inf * 0, as the product gives it
        (expected,) = node.forward((gy,))
        (gx,) = cpu_relu.relu_grad(node, (gy,))
    assert gx.dtype == expected.dtype == dtype
    numpy.testing.assert_array_equal(gx, expected)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize(
    "layout", ["c_order", "batch_innermost", "channels_last", "f_order"]
)
def test_large_passes_on_cpu_threads_match_the_reference(cpu_team, threads, layout):
    team = cpu_team(threads)
    base = _inputs()[layout]  # 69,420 elements: 4 whole rows and a tail
    x = numpy.concatenate([base] * 4)  # above PARALLEL_MIN
    if layout == "batch_innermost":
        x = _batch_innermost(x)
    elif layout == "channels_last":
        x = _channels_last(x)
    elif layout == "f_order":
        x = numpy.asfortranarray(x)
    assert x.size >= cpu_relu.PARALLEL_MIN
    node = relu.ReLU()
    (y,) = cpu_relu.relu(node, (x,))
    numpy.testing.assert_array_equal(y, numpy.maximum(x, 0))
    assert y.strides == x.strides
    rng = numpy.random.RandomState(5)
    gy = numpy.empty_like(y)
    gy[...] = rng.standard_normal(y.shape)
    (gx,) = cpu_relu.relu_grad(relu.ReLUGrad(y), (gy,))
    numpy.testing.assert_array_equal(gx, gy * (y > 0))
    if team is not None:
        assert team.helpers  # the team's threads took part


def test_grad_of_differently_laid_out_arrays_on_cpu_threads(cpu_team):
    cpu_team(2)
    y = numpy.maximum(numpy.random.RandomState(6).standard_normal((8, 4, 96, 96)), 0)
    gy = numpy.asfortranarray(numpy.ones_like(y))
    assert cpu_relu._relu_grad_parts(gy, y) is None
    (gx,) = cpu_relu.relu_grad(relu.ReLUGrad(y), (gy,))
    numpy.testing.assert_array_equal(gx, (y > 0).astype(y.dtype))
    assert gx.flags.c_contiguous  # y's order


_ORDERS = {
    "c_order": numpy.ascontiguousarray,
    "channels_last": _channels_last,
    "batch_innermost": _batch_innermost,
    "f_order": numpy.asfortranarray,
}


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    ("y_order", "gy_order"),
    [
        ("channels_last", "c_order"),
        ("channels_last", "batch_innermost"),
        ("c_order", "channels_last"),
        ("batch_innermost", "channels_last"),
        ("channels_last", "f_order"),
    ],
)
@pytest.mark.parametrize(
    ("shape", "block_bytes"),
    [
        ((64, 32, 16, 16), None),  # above PARALLEL_MIN: split among threads
        ((9, 7, 13, 11), 20000),  # odd sizes, blocks of 2-4 images
        ((3, 9, 23, 31), 1),  # blocks of one image
    ],
)
def test_grad_in_two_memory_orders_takes_that_of_y(
    cpu_team, monkeypatch, threads, dtype, y_order, gy_order, shape, block_bytes
):
    # Channels-last ReLU outputs meet gradients in other orders (C order
    # from a linear layer, for instance): the gradient is computed in y's
    # order, block by block, with the reference's values.
    team = cpu_team(threads)
    if block_bytes is not None:
        monkeypatch.setattr(cpu_relu, "BLOCK_BYTES", block_bytes)
    rng = numpy.random.RandomState(7)
    x = rng.standard_normal(shape).astype(dtype)
    x.flat[:5] = [numpy.nan, -0.0, 0.0, numpy.inf, -numpy.inf]
    y = _ORDERS[y_order](numpy.maximum(x, 0))
    gy = _ORDERS[gy_order](rng.standard_normal(shape).astype(dtype))
    gy.flat[5:9] = [numpy.nan, numpy.inf, -numpy.inf, -1.0]
    assert gy.size >= cpu_relu.REORDER_MIN
    with numpy.errstate(invalid="ignore"):  # inf * 0, as the product gives it
        (expected,) = relu.ReLUGrad(y).forward((gy,))
        (gx,) = cpu_relu.relu_grad(relu.ReLUGrad(y), (gy,))
    assert gx.dtype == dtype
    assert gx.strides == y.strides
    numpy.testing.assert_array_equal(gx, expected)
    numpy.testing.assert_array_equal(numpy.signbit(gx), numpy.signbit(expected))
    if team is not None and gy.size >= cpu_relu.PARALLEL_MIN:
        assert team.helpers


def test_small_grads_in_two_memory_orders_take_the_reference_path(monkeypatch):
    def fail(*args):
        raise AssertionError("reordered")

    monkeypatch.setattr(cpu_relu, "_relu_grad_reordered", fail)
    y = _channels_last(numpy.maximum(numpy.random.rand(2, 4, 8, 8) - 0.5, 0))
    gy = numpy.ones(y.shape)
    assert gy.size < cpu_relu.REORDER_MIN
    (gx,) = cpu_relu.relu_grad(relu.ReLUGrad(y), (gy,))
    numpy.testing.assert_array_equal(gx, (y > 0).astype(y.dtype))
