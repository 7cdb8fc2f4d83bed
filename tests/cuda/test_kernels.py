"""chainer-cuda's fused kernels against the array-module (xp) path, on a GPU.

Every override registered by ``register_kernels`` is checked three ways:
called directly against the node's own ``forward`` on the same CuPy arrays
(same outputs, same retained inputs/outputs), through the graph on
``@cupy:0`` against the CPU (forward, backward, double backward), and, for
update rules, optimizer steps on GPU against the same steps on CPU. Each test
also asserts that the override ran. Run with
``python -m pytest -m gpu tests/cuda``.
"""

import math

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import function_node
from chainer import optimizers
from chainer import plugins
from chainer.backends import cuda
from chainer.functions.activation import clipped_relu
from chainer.functions.activation import elu
from chainer.functions.activation import hard_sigmoid
from chainer.functions.activation import leaky_relu
from chainer.functions.activation import lstm
from chainer.functions.activation import prelu
from chainer.functions.activation import relu
from chainer.functions.activation import sigmoid
from chainer.functions.activation import softplus
from chainer.functions.activation import swish
from chainer.functions.activation import tanh
from chainer.functions.connection import convolution_2d
from chainer.functions.connection import convolution_nd
from chainer.functions.connection import deconvolution_2d
from chainer.functions.connection import deconvolution_nd
from chainer.functions.pooling import average_pooling_2d
from chainer.functions.pooling import average_pooling_nd
from chainer.functions.pooling import max_pooling_2d
from chainer.functions.pooling import max_pooling_nd

pytestmark = pytest.mark.gpu

_TOL = {
    numpy.float16: {"rtol": 5e-3, "atol": 5e-3},
    numpy.float32: {"rtol": 1e-5, "atol": 1e-6},
    numpy.float64: {"rtol": 1e-12, "atol": 1e-14},
}
_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _close(actual, expected, dtype, scale=1.0):
    tol = {k: v * scale for k, v in _TOL[dtype].items()}
    numpy.testing.assert_allclose(
        cuda.to_cpu(actual).astype(numpy.float64),
        cuda.to_cpu(expected).astype(numpy.float64),
        **tol,
    )


@pytest.fixture
def dev(gpu):
    return chainer.get_device("@cupy:0")


@pytest.fixture
def count_kernel(monkeypatch, gpu):
    """Wraps the registered kernel of a class so that its calls are counted."""

    def wrap(cls):
        key = (cls, "cupy")
        assert key in function_node._kernel_overrides, key
        kernel = plugins.get_kernel(cls, "cupy")
        calls = []

        def counting(*args):
            calls.append(args)
            return kernel(*args)

        monkeypatch.setitem(function_node._kernel_overrides, key, counting)
        return calls

    return wrap


def test_kernels_are_registered(gpu):
    from chainer_cuda._kernels import activation
    from chainer_cuda._kernels import optimizers as opt_kernels

    assert plugins.get_kernel(relu.ReLU, "cupy") is activation.relu
    assert plugins.get_kernel(optimizers.adam.AdamRule, "cupy") is opt_kernels.adam
    assert len([k for k in plugins.names("kernels") if k[1] == "cupy"]) == 43


# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------

_ACTIVATIONS = [
    ("relu", relu.ReLU, F.relu, relu.ReLU),
    ("sigmoid", sigmoid.Sigmoid, F.sigmoid, sigmoid.Sigmoid),
    ("tanh", tanh.Tanh, F.tanh, tanh.Tanh),
    (
        "clipped_relu",
        clipped_relu.ClippedReLU,
        lambda x: F.clipped_relu(x, 0.75),
        lambda: clipped_relu.ClippedReLU(0.75),
    ),
    (
        "leaky_relu",
        leaky_relu.LeakyReLU,
        lambda x: F.leaky_relu(x, 0.2),
        lambda: leaky_relu.LeakyReLU(0.2),
    ),
    (
        "leaky_relu_zero_slope",
        leaky_relu.LeakyReLU,
        lambda x: F.leaky_relu(x, 0.0),
        lambda: leaky_relu.LeakyReLU(0.0),
    ),
    (
        "leaky_relu_negative_slope",
        leaky_relu.LeakyReLU,
        lambda x: F.leaky_relu(x, -0.3),
        lambda: leaky_relu.LeakyReLU(-0.3),
    ),
    ("elu", elu.ELU, F.elu, elu.ELU),
    ("elu_alpha", elu.ELU, lambda x: F.elu(x, 0.3), lambda: elu.ELU(0.3)),
    ("softplus", softplus.Softplus, F.softplus, softplus.Softplus),
    (
        "softplus_beta",
        softplus.Softplus,
        lambda x: F.softplus(x, 3.0),
        lambda: softplus.Softplus(3.0),
    ),
    (
        "softplus_small_beta",
        softplus.Softplus,
        lambda x: F.softplus(x, 0.1),
        lambda: softplus.Softplus(0.1),
    ),
    (
        "hard_sigmoid",
        hard_sigmoid.HardSigmoid,
        F.hard_sigmoid,
        hard_sigmoid.HardSigmoid,
    ),
]


def _input(shape, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    x = rng.uniform(-2, 2, shape)
    # Keep away from the kinks, where finite values of either side are fine
    # but CPU and GPU may round to different sides.
    x[numpy.abs(x) < 0.05] = 0.3
    x[numpy.abs(x - 0.75) < 0.05] = 0.5
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    ("name", "cls", "func", "make"), _ACTIVATIONS, ids=[a[0] for a in _ACTIVATIONS]
)
def test_activation_kernel_matches_forward(gpu, name, cls, func, make, dtype):
    x = gpu.asarray(_input((3, 4), dtype))
    kernel = plugins.get_kernel(cls, "cupy")
    node_k, node_f = make(), make()
    out_k = kernel(node_k, (x,))
    out_f = node_f.forward((x,))
    assert type(out_k) is tuple
    assert len(out_k) == len(out_f)
    for a, b in zip(out_k, out_f, strict=True):
        assert isinstance(a, gpu.ndarray)
        assert a.dtype == b.dtype
        assert a.shape == b.shape
        _close(a, b, dtype)
    assert node_k._input_indexes_to_retain == node_f._input_indexes_to_retain
    assert node_k._output_indexes_to_retain == node_f._output_indexes_to_retain


def _first_and_second_order(func, x_np, gy_np, ggx_np, device):
    x = chainer.Variable(device.send(x_np))
    y = func(x)
    (gx,) = chainer.grad(
        [y], [x], grad_outputs=[device.send(gy_np)], enable_double_backprop=True
    )
    (ggx,) = chainer.grad([gx], [x], grad_outputs=[device.send(ggx_np)])
    ggx_array = None if ggx is None else ggx.array
    return y.array, gx.array, ggx_array


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    ("name", "cls", "func", "make"), _ACTIVATIONS, ids=[a[0] for a in _ACTIVATIONS]
)
def test_activation_graph_on_gpu_matches_cpu(
    dev, count_kernel, name, cls, func, make, dtype
):
    calls = count_kernel(cls)
    grad_calls = count_kernel(relu.ReLUGrad) if cls is relu.ReLU else None
    x = _input((2, 3, 4), dtype, seed=1)
    gy = _input((2, 3, 4), dtype, seed=2)
    ggx = _input((2, 3, 4), dtype, seed=3)
    cpu = _first_and_second_order(func, x, gy, ggx, chainer.get_device("@numpy"))
    assert calls == []
    gpu_result = _first_and_second_order(func, x, gy, ggx, dev)
    assert len(calls) == 1
    if grad_calls is not None:
        assert len(grad_calls) >= 1
    for a, b in zip(gpu_result, cpu, strict=True):
        if b is None:
            assert a is None
        else:
            # float16: the GPU computes transcendental functions in float.
            _close(a, b, dtype, scale=2.0)


def test_relu_keeps_nan_like_maximum(gpu):
    x = gpu.asarray(numpy.array([numpy.nan, -1.0, 2.0], numpy.float32))
    (y,) = plugins.get_kernel(relu.ReLU, "cupy")(relu.ReLU(), (x,))
    numpy.testing.assert_array_equal(cuda.to_cpu(y), [numpy.nan, 0.0, 2.0])


@pytest.mark.parametrize(
    ("cls", "x"),
    [
        (elu.ELU, [numpy.nan, -numpy.inf, -1.0, 0.0, 2.0]),
        (
            softplus.Softplus,
            [numpy.nan, -numpy.inf, -200.0, 0.0, 200.0, numpy.inf],
        ),
        (hard_sigmoid.HardSigmoid, [numpy.nan, -9.0, -2.5, 0.0, 2.5, 9.0]),
    ],
)
@pytest.mark.parametrize("dtype", _DTYPES)
def test_activation_kernels_on_special_values(gpu, cls, x, dtype):
    # NaN propagates and the extremes neither overflow nor differ from forward.
    x = gpu.asarray(numpy.array(x, dtype))
    (y_k,) = plugins.get_kernel(cls, "cupy")(cls(), (x,))
    (y_f,) = cls().forward((x,))
    numpy.testing.assert_allclose(
        cuda.to_cpu(y_k).astype(numpy.float64),
        cuda.to_cpu(y_f).astype(numpy.float64),
        **_TOL[dtype],
    )


# Activations with a parameter broadcast after the batch axis: (name, class,
# function, x shape, parameter shape).
_PARAM_ACTIVATIONS = [
    ("swish", swish.Swish, F.swish, (3, 4, 2), (4,)),
    ("swish_2d_beta", swish.Swish, F.swish, (3, 4, 2), (4, 2)),
    ("swish_scalar_beta", swish.Swish, F.swish, (3, 4), ()),
    ("prelu", prelu.PReLUFunction, F.prelu, (3, 4, 2), (4,)),
    ("prelu_2d_W", prelu.PReLUFunction, F.prelu, (3, 4, 2), (4, 2)),
    ("prelu_scalar_W", prelu.PReLUFunction, F.prelu, (3, 4), ()),
]
_PARAM_IDS = [a[0] for a in _PARAM_ACTIVATIONS]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    ("name", "cls", "func", "x_shape", "p_shape"), _PARAM_ACTIVATIONS, ids=_PARAM_IDS
)
def test_param_activation_kernel_matches_forward(
    gpu, name, cls, func, x_shape, p_shape, dtype
):
    x = gpu.asarray(_input(x_shape, dtype))
    p = gpu.asarray(_input(p_shape, dtype, seed=4))
    node_k, node_f = cls(), cls()
    out_k = plugins.get_kernel(cls, "cupy")(node_k, (x, p))
    out_f = node_f.forward((x, p))
    assert type(out_k) is tuple
    assert len(out_k) == len(out_f) == 1
    assert isinstance(out_k[0], gpu.ndarray)
    assert out_k[0].dtype == out_f[0].dtype
    assert out_k[0].shape == out_f[0].shape == x_shape
    _close(out_k[0], out_f[0], dtype)
    assert node_k._input_indexes_to_retain == node_f._input_indexes_to_retain
    assert node_k._output_indexes_to_retain == node_f._output_indexes_to_retain


def _param_first_and_second_order(func, arrays, device):
    x_np, p_np, gy_np, ggx_np, ggp_np = arrays
    x = chainer.Variable(device.send(x_np))
    p = chainer.Variable(device.send(p_np))
    y = func(x, p)
    gx, gp = chainer.grad(
        [y], [x, p], grad_outputs=[device.send(gy_np)], enable_double_backprop=True
    )
    second = chainer.grad(
        [gx, gp],
        [x, p],
        grad_outputs=[device.send(ggx_np), device.send(ggp_np)],
    )
    return [y.array, gx.array, gp.array] + [
        None if g is None else g.array for g in second
    ]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    ("name", "cls", "func", "x_shape", "p_shape"), _PARAM_ACTIVATIONS, ids=_PARAM_IDS
)
def test_param_activation_graph_on_gpu_matches_cpu(
    dev, count_kernel, name, cls, func, x_shape, p_shape, dtype
):
    calls = count_kernel(cls)
    arrays = (
        _input(x_shape, dtype, seed=1),
        _input(p_shape, dtype, seed=2),
        _input(x_shape, dtype, seed=3),
        _input(x_shape, dtype, seed=4),
        _input(p_shape, dtype, seed=5),
    )
    cpu = _param_first_and_second_order(func, arrays, chainer.get_device("@numpy"))
    assert calls == []
    gpu_result = _param_first_and_second_order(func, arrays, dev)
    assert len(calls) == 1
    for a, b in zip(gpu_result, cpu, strict=True):
        if b is None:
            assert a is None
        else:
            # The parameter's gradients sum over the batch: float16 rounds more.
            _close(a, b, dtype, scale=4.0)


def test_kernels_accept_non_contiguous_input(dev, count_kernel):
    calls = count_kernel(sigmoid.Sigmoid)
    x = _input((4, 6), numpy.float32).T
    y_gpu = F.sigmoid(dev.send(x))
    assert len(calls) == 1
    _close(y_gpu.array, F.sigmoid(x).array, numpy.float32)


# ---------------------------------------------------------------------------
# LSTM
# ---------------------------------------------------------------------------

_LSTM_SHAPES = [
    ((3, 4), (3, 16)),
    ((5, 4), (3, 16)),  # batch of x smaller than the state's
    ((3, 4, 2), (3, 16, 2)),  # trailing axes
]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(("c_shape", "x_shape"), _LSTM_SHAPES)
def test_lstm_kernels_match_forward(gpu, c_shape, x_shape, dtype):
    c_prev = gpu.asarray(_input(c_shape, dtype, seed=4))
    x = gpu.asarray(_input(x_shape, dtype, seed=5))
    node_k, node_f = lstm.LSTM(), lstm.LSTM()
    out_k = plugins.get_kernel(lstm.LSTM, "cupy")(node_k, (c_prev, x))
    out_f = node_f.forward((c_prev, x))
    for a, b in zip(out_k, out_f, strict=True):
        assert a.shape == b.shape
        assert a.dtype == b.dtype
        _close(a, b, dtype)
    _close(node_k._gates, node_f._gates, dtype)
    _close(node_k._tanh_c, node_f._tanh_c, dtype)
    assert node_k._gates.shape == node_f._gates.shape
    assert node_k._input_indexes_to_retain == node_f._input_indexes_to_retain
    assert node_k._output_indexes_to_retain == node_f._output_indexes_to_retain

    c = out_f[0]
    gc = gpu.asarray(_input(c_shape, dtype, seed=6))
    gh = gpu.asarray(_input((x_shape[0], *c_shape[1:]), dtype, seed=7))
    inputs = (c_prev, x, c, gc, gh)
    grad_k = lstm.LSTMGrad(node_f._gates, node_f._tanh_c)
    grad_f = lstm.LSTMGrad(node_f._gates, node_f._tanh_c)
    out_k = plugins.get_kernel(lstm.LSTMGrad, "cupy")(grad_k, inputs)
    out_f = grad_f.forward(inputs)
    for a, b in zip(out_k, out_f, strict=True):
        assert a.shape == b.shape
        assert a.dtype == b.dtype
        _close(a, b, dtype)
    assert grad_k._input_indexes_to_retain == grad_f._input_indexes_to_retain


def _lstm_grads(c_np, x_np, wc, wh, gg_c, gg_x, device):
    c_prev = chainer.Variable(device.send(c_np))
    x = chainer.Variable(device.send(x_np))
    c, h = F.lstm(c_prev, x)
    loss = F.sum(c * device.send(wc)) + F.sum(h * device.send(wh))
    gc_prev, gx = chainer.grad([loss], [c_prev, x], enable_double_backprop=True)
    second = F.sum(gc_prev * device.send(gg_c)) + F.sum(gx * device.send(gg_x))
    ggc_prev, ggx = chainer.grad([second], [c_prev, x])
    return [c.array, h.array, gc_prev.array, gx.array, ggc_prev.array, ggx.array]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(("c_shape", "x_shape"), _LSTM_SHAPES)
def test_lstm_graph_on_gpu_matches_cpu(dev, count_kernel, c_shape, x_shape, dtype):
    forward_calls = count_kernel(lstm.LSTM)
    backward_calls = count_kernel(lstm.LSTMGrad)
    h_shape = (x_shape[0], *c_shape[1:])
    args = (
        _input(c_shape, dtype, seed=8),
        _input(x_shape, dtype, seed=9),
        _input(c_shape, dtype, seed=10),
        _input(h_shape, dtype, seed=11),
        _input(c_shape, dtype, seed=12),
        _input(x_shape, dtype, seed=13),
    )
    cpu = _lstm_grads(*args, chainer.get_device("@numpy"))
    gpu_result = _lstm_grads(*args, dev)
    for a, b in zip(gpu_result, cpu, strict=True):
        _close(a, b, dtype, scale=10.0)
    assert len(forward_calls) == 1
    # The second grad reaches x and c_prev through c, the LSTM's output, so
    # LSTM.backward (hence LSTMGrad) runs once per grad call.
    assert len(backward_calls) == 2


# ---------------------------------------------------------------------------
# Optimizer update rules
# ---------------------------------------------------------------------------

_OPTIMIZERS = [
    ("sgd", lambda: optimizers.SGD(lr=0.1)),
    ("momentum_sgd", lambda: optimizers.MomentumSGD(lr=0.1, momentum=0.8)),
    ("nesterov_ag", lambda: optimizers.NesterovAG(lr=0.1, momentum=0.8)),
    ("adam", lambda: optimizers.Adam()),
    ("adam_amsgrad", lambda: optimizers.Adam(amsgrad=True)),
    ("adam_adabound", lambda: optimizers.Adam(adabound=True, final_lr=0.05)),
    ("adam_amsbound", lambda: optimizers.Adam(amsgrad=True, adabound=True)),
    (
        "adam_decay_eta",
        lambda: optimizers.Adam(alpha=0.01, weight_decay_rate=0.1, eta=0.5),
    ),
    ("rmsprop", lambda: optimizers.RMSprop(lr=0.01)),
    ("rmsprop_eps_inside", lambda: optimizers.RMSprop(lr=0.01, eps_inside_sqrt=True)),
    ("ada_grad", lambda: optimizers.AdaGrad(lr=0.01)),
    ("ada_delta", lambda: optimizers.AdaDelta()),
    (
        "corrected_momentum_sgd",
        lambda: optimizers.CorrectedMomentumSGD(lr=0.1, momentum=0.8),
    ),
    ("rmsprop_graves", lambda: optimizers.RMSpropGraves(lr=0.01)),
    (
        "rmsprop_graves_options",
        lambda: optimizers.RMSpropGraves(lr=0.05, alpha=0.5, momentum=0.3, eps=1e-2),
    ),
    ("smorms3", lambda: optimizers.SMORMS3(lr=0.01)),
    ("smorms3_large_lr", lambda: optimizers.SMORMS3(lr=0.5, eps=1e-3)),
    # Four steps: the first is undamped (rho_1 = 1), the others damped.
    ("msvag", lambda: optimizers.MSVAG(lr=0.1)),
    (
        "msvag_decay_eta",
        lambda: optimizers.MSVAG(lr=0.1, beta=0.5, eta=0.5, weight_decay_rate=0.1),
    ),
    ("msvag_beta_zero", lambda: optimizers.MSVAG(lr=0.1, beta=0.0)),
]


def _run_steps(make_optimizer, device, dtype, steps=4):
    model = L.Linear(3, 2)
    rng = numpy.random.default_rng(0)
    model.W.array[...] = rng.uniform(-1, 1, (2, 3))
    model.b.array[...] = rng.uniform(-1, 1, 2)
    for param in model.params():
        param.array = param.array.astype(dtype)
    model.to_device(device)
    optimizer = make_optimizer()
    optimizer.setup(model)
    for _step in range(steps):
        for param in model.params():
            grad = rng.uniform(-1, 1, param.shape).astype(dtype)
            param.grad = device.send(grad)
        optimizer.update()
    params = {name: p.array for name, p in model.namedparams()}
    states = {
        (name, key): value
        for name, p in model.namedparams()
        for key, value in p.update_rule.state.items()
    }
    return params, states


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(("name", "make"), _OPTIMIZERS, ids=[o[0] for o in _OPTIMIZERS])
def test_update_rule_kernel_matches_cpu(dev, count_kernel, name, make, dtype):
    rule_class = type(make().create_update_rule())
    calls = count_kernel(rule_class)
    cpu_params, cpu_states = _run_steps(make, chainer.get_device("@numpy"), dtype)
    assert calls == []
    gpu_params, gpu_states = _run_steps(make, dev, dtype)
    # Two parameters, four steps.
    assert len(calls) == 8
    assert set(gpu_states) == set(cpu_states)
    for key, expected in cpu_params.items():
        assert isinstance(gpu_params[key], dev.xp.ndarray)
        _close(gpu_params[key], expected, dtype, scale=10.0)
    for key, expected in cpu_states.items():
        _close(gpu_states[key], expected, dtype, scale=10.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda: optimizers.SGD(lr=0.1),
        lambda: optimizers.MomentumSGD(lr=0.1),
        lambda: optimizers.Adam(eps=1e-3),
        lambda: optimizers.AdaGrad(lr=0.01, eps=1e-3),
        lambda: optimizers.CorrectedMomentumSGD(lr=0.1),
        lambda: optimizers.RMSpropGraves(lr=0.01, eps=1e-2),
        lambda: optimizers.SMORMS3(lr=0.01, eps=1e-3),
        lambda: optimizers.MSVAG(lr=0.1),
        lambda: optimizers.MSVAG(lr=0.1, eta=0.5, weight_decay_rate=0.1),
    ],
)
def test_update_rule_kernel_float16(dev, count_kernel, make):
    calls = count_kernel(type(make().create_update_rule()))
    cpu_params, cpu_states = _run_steps(
        make, chainer.get_device("@numpy"), numpy.float16
    )
    gpu_params, gpu_states = _run_steps(make, dev, numpy.float16)
    assert len(calls) == 8
    for key, expected in cpu_params.items():
        assert gpu_params[key].dtype == numpy.float16
        _close(gpu_params[key], expected, numpy.float16, scale=2.0)
    for key, expected in cpu_states.items():
        assert gpu_states[key].dtype == numpy.float16
        _close(gpu_states[key], expected, numpy.float16, scale=2.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda: optimizers.Adam(),
        lambda: optimizers.RMSprop(),
    ],
)
def test_update_rule_kernel_checks_eps(dev, make):
    # As on the CPU, only Adam and RMSprop reject an eps that is zero in
    # float16 (Chainer's behaviour).
    with pytest.raises(ValueError, match="too small"):
        _run_steps(make, dev, numpy.float16, steps=1)


def test_update_rule_without_grad_is_left_alone(dev):
    # The kernels assume a gradient: UpdateRule.update_core checks for one
    # before it hands the parameter to the override.
    param = chainer.Parameter(dev.xp.ones(3, dtype=numpy.float32))
    rule = optimizers.SGD(lr=0.1).create_update_rule()
    rule.update_core(param)
    numpy.testing.assert_array_equal(cuda.to_cpu(param.array), numpy.ones(3))


# ---------------------------------------------------------------------------
# Softmax family and batch normalization
# ---------------------------------------------------------------------------


def _state(node, names):
    return {n: getattr(node, n) for n in names}


def _check_same(out_k, out_f, dtype):
    assert len(out_k) == len(out_f)
    for a, b in zip(out_k, out_f, strict=True):
        assert a.dtype == b.dtype
        assert a.shape == b.shape
        _close(a, b, dtype, scale=2.0)


def _same_retained(node_k, node_f):
    assert node_k._input_indexes_to_retain == node_f._input_indexes_to_retain
    assert node_k._output_indexes_to_retain == node_f._output_indexes_to_retain


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_kernels_match_forward(gpu, name, axis, dtype):
    from chainer.functions.activation import log_softmax
    from chainer.functions.activation import softmax

    cls = softmax.Softmax if name == "softmax" else log_softmax.LogSoftmax
    x = gpu.asarray(_input((3, 5, 4), dtype))
    node_k, node_f = cls(axis), cls(axis)
    out_k = plugins.get_kernel(cls, "cupy")(node_k, (x,))
    out_f = node_f.forward((x,))
    _check_same(out_k, out_f, dtype)
    _same_retained(node_k, node_f)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("axis", [1, -1])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_graph_on_gpu_matches_cpu(dev, count_kernel, name, axis, dtype):
    from chainer.functions.activation import log_softmax
    from chainer.functions.activation import softmax

    cls = softmax.Softmax if name == "softmax" else log_softmax.LogSoftmax
    f = getattr(F, name)
    calls = count_kernel(cls)
    x = _input((2, 3, 4), dtype, seed=1)
    gy = _input((2, 3, 4), dtype, seed=2)
    ggx = _input((2, 3, 4), dtype, seed=3)

    def func(v):
        return f(v, axis=axis)

    cpu = _first_and_second_order(func, x, gy, ggx, chainer.get_device("@numpy"))
    gpu_result = _first_and_second_order(func, x, gy, ggx, dev)
    assert len(calls) >= 1
    for a, b in zip(gpu_result, cpu, strict=True):
        _close(a, b, dtype, scale=4.0)


_SCE_STATE = ("y", "_labels", "_coeff", "_row_weight", "soft_target")


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("ignore", [False, True])
@pytest.mark.parametrize("normalize", [True, False])
def test_softmax_cross_entropy_kernel_matches_forward(gpu, ignore, normalize, dtype):
    from chainer.functions.loss import softmax_cross_entropy as sce

    x = gpu.asarray(_input((6, 5), dtype))
    t = numpy.array([0, 4, 2, 1, 3, 2], numpy.int32)
    if ignore:
        t[[1, 4]] = -1
    t = gpu.asarray(t)
    node_k = sce.SoftmaxCrossEntropy(normalize=normalize)
    node_f = sce.SoftmaxCrossEntropy(normalize=normalize)
    out_k = plugins.get_kernel(sce.SoftmaxCrossEntropy, "cupy")(node_k, (x, t))
    out_f = node_f.forward((x, t))
    _check_same(out_k, out_f, dtype)
    _same_retained(node_k, node_f)
    for name in _SCE_STATE:
        a, b = getattr(node_k, name), getattr(node_f, name)
        if isinstance(b, gpu.ndarray):
            assert a.dtype == b.dtype
            _close(a, b, dtype, scale=2.0)
        else:
            assert a == b
    # The gradient node's kernel against its own forward.
    gy = gpu.asarray(numpy.array(0.7, dtype))
    grad_k = sce.SoftmaxCrossEntropyGradNoDoubleBackprop(node_k, node_k.y, t)
    grad_f = sce.SoftmaxCrossEntropyGradNoDoubleBackprop(node_f, node_f.y, t)
    kernel = plugins.get_kernel(sce.SoftmaxCrossEntropyGradNoDoubleBackprop, "cupy")
    _check_same(kernel(grad_k, (x, gy)), grad_f.forward((x, gy)), dtype)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    "kwargs", [{}, {"ignore_label": 2}, {"reduce": "no"}, {"cache_score": False}]
)
def test_softmax_cross_entropy_graph_on_gpu_matches_cpu(
    dev, count_kernel, kwargs, dtype
):
    from chainer.functions.loss import softmax_cross_entropy as sce

    calls = count_kernel(sce.SoftmaxCrossEntropy)
    grad_calls = count_kernel(sce.SoftmaxCrossEntropyGradNoDoubleBackprop)
    x_np = _input((4, 3), dtype)
    t_np = numpy.array([0, 2, 1, 2], numpy.int32)
    results = []
    for device in (chainer.get_device("@numpy"), dev):
        x = chainer.Variable(device.send(x_np))
        loss = F.softmax_cross_entropy(x, device.send(t_np), **kwargs)
        loss = F.sum(loss)
        # On CuPy even a plain backward goes through the gradient node (and
        # its kernel); only NumPy computes the gradient without the node.
        loss.backward()
        results.append((loss.array, x.grad))
    assert len(calls) == 1
    if not kwargs:
        assert len(grad_calls) == 1
    for a, b in zip(results[1], results[0], strict=True):
        _close(a, b, dtype, scale=4.0)


_BN_SHAPES = [((5, 3), None), ((4, 3, 2, 3), None), ((4, 3, 2), (0, 2)), ((6, 2, 3), 0)]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(("shape", "axis"), _BN_SHAPES)
def test_batch_normalization_kernels_match_forward(gpu, shape, axis, dtype):
    from chainer.functions.normalization import batch_normalization as bn

    x = gpu.asarray(_input(shape, dtype))
    if axis is None:
        cshape = shape[1:2]
    else:
        ax = (axis,) if isinstance(axis, int) else axis
        cshape = tuple(s for i, s in enumerate(shape) if i not in ax)
    gamma = gpu.asarray(_input(cshape, dtype, seed=4))
    beta = gpu.asarray(_input(cshape, dtype, seed=5))
    stats = [gpu.zeros(cshape, dtype), gpu.ones(cshape, dtype)]
    stats_f = [s.copy() for s in stats]
    node_k = bn.BatchNormalization(mean=stats[0], var=stats[1], axis=axis)
    node_f = bn.BatchNormalization(mean=stats_f[0], var=stats_f[1], axis=axis)
    out_k = plugins.get_kernel(bn.BatchNormalization, "cupy")(node_k, (x, gamma, beta))
    out_f = node_f.forward((x, gamma, beta))
    _check_same(out_k, out_f, dtype)
    _same_retained(node_k, node_f)
    assert node_k.axis == node_f.axis
    for a, b in [(node_k.mean, node_f.mean), (node_k.inv_std, node_f.inv_std)]:
        assert a.dtype == b.dtype
        _close(a, b, dtype)
    for a, b in zip(stats, stats_f, strict=True):
        _close(a, b, dtype)
    # The gradient node.
    gy = gpu.asarray(_input(shape, dtype, seed=6))
    g_k = bn.BatchNormalizationGrad(node_k.axis, node_k.mean, node_k.inv_std)
    g_f = bn.BatchNormalizationGrad(node_f.axis, node_f.mean, node_f.inv_std)
    kernel = plugins.get_kernel(bn.BatchNormalizationGrad, "cupy")
    _check_same(kernel(g_k, (x, gamma, gy)), g_f.forward((x, gamma, gy)), dtype)
    _same_retained(g_k, g_f)
    _close(g_k._ggamma, g_f._ggamma, dtype, scale=2.0)
    _close(g_k._gbeta, g_f._gbeta, dtype, scale=2.0)
    # Fixed batch normalization.
    mean = gpu.asarray(_input(cshape, dtype, seed=7))
    var = gpu.asarray(numpy.abs(_input(cshape, dtype, seed=8)) + 0.5).astype(dtype)
    f_k = bn.FixedBatchNormalization(axis=axis)
    f_f = bn.FixedBatchNormalization(axis=axis)
    kernel = plugins.get_kernel(bn.FixedBatchNormalization, "cupy")
    inputs = (x, gamma, beta, mean, var)
    _check_same(kernel(f_k, inputs), f_f.forward(inputs), dtype)
    _same_retained(f_k, f_f)
    _close(f_k.inv_std, f_f.inv_std, dtype)
    assert f_k._full == f_f._full


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("fixed", [False, True])
def test_batch_normalization_graph_on_gpu_matches_cpu(dev, count_kernel, fixed, dtype):
    from chainer.functions.normalization import batch_normalization as bn

    cls = bn.FixedBatchNormalization if fixed else bn.BatchNormalization
    calls = count_kernel(cls)
    grad_calls = None if fixed else count_kernel(bn.BatchNormalizationGrad)
    x_np = _input((4, 3, 2, 2), dtype)
    params = [_input((3,), dtype, seed=s) for s in (4, 5, 6)]
    params.append(numpy.abs(_input((3,), dtype, seed=7)) + dtype(0.5))
    gy_np = _input((4, 3, 2, 2), dtype, seed=8)
    results = []
    for device in (chainer.get_device("@numpy"), dev):
        x = chainer.Variable(device.send(x_np))
        gamma = chainer.Variable(device.send(params[0]))
        beta = chainer.Variable(device.send(params[1]))
        if fixed:
            y = F.fixed_batch_normalization(
                x, gamma, beta, device.send(params[2]), device.send(params[3])
            )
        else:
            y = F.batch_normalization(x, gamma, beta)
        y.grad = device.send(gy_np)
        y.backward()
        results.append((y.array, x.grad, gamma.grad, beta.grad))
    assert len(calls) == 1
    if grad_calls is not None:
        assert len(grad_calls) == 1
    for a, b in zip(results[1], results[0], strict=True):
        _close(a, b, dtype, scale=4.0)


# ---------------------------------------------------------------------------
# Convolution and pooling
# ---------------------------------------------------------------------------

# GEMMs and window sums add in another order than the CPU path, and float16
# results round once on the GPU where the CPU rounds per tap.
_CONV_TOL = {numpy.float16: 3e-2, numpy.float32: 1e-4, numpy.float64: 1e-10}


def _close_conv(actual, expected, dtype, scale=1.0):
    if expected is None:
        assert actual is None
        return
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    tol = _CONV_TOL[dtype] * scale
    numpy.testing.assert_allclose(
        cuda.to_cpu(actual).astype(numpy.float64),
        cuda.to_cpu(expected).astype(numpy.float64),
        rtol=tol,
        atol=tol,
    )


# (x shape, W shape, stride, pad, cover_all, dilate, groups, bias)
_CONV_CONFIGS = [
    ((2, 4, 7, 6), (6, 4, 3, 2), 1, 0, False, 1, 1, True),
    ((1, 3, 5, 5), (4, 3, 3, 3), 2, 1, True, 1, 1, False),
    ((2, 4, 9, 8), (6, 2, 3, 3), (2, 3), (1, 2), True, (2, 1), 2, True),
    ((3, 6, 6, 7), (6, 2, 1, 1), 1, 0, False, 1, 3, True),
    ((1, 2, 4, 4), (2, 1, 2, 2), 3, 2, True, 1, 2, False),
    ((2, 3, 10, 9), (5, 3, 3, 2), (3, 2), (0, 1), False, (2, 3), 1, True),
    ((2, 3, 11), (4, 3, 3), 2, 1, True, 1, 1, True),
    ((1, 4, 4, 5, 3), (4, 2, 2, 3, 2), (1, 2, 1), (1, 0, 1), False, (2, 1, 2), 2, True),
]
_CONV_IDS = [
    "plain",
    "batch1-stride2-cover_all",
    "dilate-groups-cover_all",
    "pointwise-groups3",
    "pad-over-kernel",
    "dilate-stride",
    "1d",
    "3d",
]


def _conv_inputs(xp, config, dtype):
    x_shape, w_shape, *_, bias = config
    arrays = [_input(x_shape, dtype), _input(w_shape, dtype, seed=1)]
    if bias:
        arrays.append(_input(w_shape[:1], dtype, seed=2))
    return tuple(xp.asarray(a) for a in arrays)


def _conv_node(config):
    x_shape, _, stride, pad, cover_all, dilate, groups, _ = config
    return convolution_nd.ConvolutionND(
        len(x_shape) - 2, stride, pad, cover_all, dilate, groups
    )


def _deconv_node(conv_node, outsize):
    # The transpose of a convolution node's geometry.
    return deconvolution_nd.DeconvolutionND(
        conv_node.ndim, conv_node.stride, conv_node.pad, outsize,
        conv_node.dilate, conv_node.groups,
    )  # fmt: skip


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("config", _CONV_CONFIGS, ids=_CONV_IDS)
def test_convolution_kernels_match_forward(gpu, config, dtype):
    inputs = _conv_inputs(gpu, config, dtype)
    x, W = inputs[:2]
    node_k, node_f = _conv_node(config), _conv_node(config)
    out_k = plugins.get_kernel(convolution_nd.ConvolutionND, "cupy")(node_k, inputs)
    out_f = node_f.forward(inputs)
    for a, b in zip(out_k, out_f, strict=True):
        _close_conv(a, b, dtype)
    _same_retained(node_k, node_f)
    # The patch matrix has the CPU path's layout (one chunk at these sizes).
    ((start, stop, col_k),) = node_k._cols
    ((_, _, col_f),) = node_f._cols
    assert (start, stop) == (0, x.shape[0])
    numpy.testing.assert_array_equal(cuda.to_cpu(col_k), cuda.to_cpu(col_f))

    # The weight gradient, with the kept patches and with rebuilt ones.
    gy = gpu.asarray(_input(out_f[0].shape, dtype, seed=3))

    def grad_node(cols):
        return convolution_nd.ConvolutionNDGradW(
            node_f.ndim, node_f.stride, node_f.pad, node_f.cover_all,
            node_f.dilate, node_f.groups, W.shape, W.dtype, cols,
        )  # fmt: skip

    kernel = plugins.get_kernel(convolution_nd.ConvolutionNDGradW, "cupy")
    for cols in (node_k._cols, None):
        g_k, g_f = grad_node(cols), grad_node(None)
        out_k = kernel(g_k, (x, gy))
        out_f = g_f.forward((x, gy))
        for a, b in zip(out_k, out_f, strict=True):
            _close_conv(a, b, dtype)
        _same_retained(g_k, g_f)
        assert g_k._cols is None

    # The input gradient: the transposed convolution back to x's size, and
    # with its default output size.
    kernel = plugins.get_kernel(deconvolution_nd.DeconvolutionND, "cupy")
    b = gpu.asarray(_input(x.shape[1:2], dtype, seed=4))
    for outsize, deconv_inputs in [(x.shape[2:], (gy, W)), (None, (gy, W, b))]:
        d_k = _deconv_node(node_f, outsize)
        d_f = _deconv_node(node_f, outsize)
        out_k = kernel(d_k, deconv_inputs)
        out_f = d_f.forward(deconv_inputs)
        for y_k, y_f in zip(out_k, out_f, strict=True):
            _close_conv(y_k, y_f, dtype)
        assert d_k.cover_all == d_f.cover_all
        _same_retained(d_k, d_f)


def _grads_to_second_order(func, arrays, device, seed=20):
    # y = func(*arrays), its gradients for all inputs, and the gradients of
    # a random combination of those (double backprop).
    rng = numpy.random.default_rng(seed)
    xs = [chainer.Variable(device.send(a)) for a in arrays]
    y = func(*xs)
    gy = rng.uniform(-1, 1, y.shape).astype(y.dtype)
    gxs = chainer.grad(
        [y], xs, grad_outputs=[device.send(gy)], enable_double_backprop=True
    )
    second = None
    for g in gxs:
        gg = device.send(rng.uniform(-1, 1, g.shape).astype(g.dtype))
        term = F.sum(g * gg)
        second = term if second is None else second + term
    ggxs = chainer.grad([second], xs)
    return [
        y.array,
        *(g.array for g in gxs),
        *(None if g is None else g.array for g in ggxs),
    ]


def _conv_func(config):
    x_shape, _, stride, pad, cover_all, dilate, groups, _ = config
    if len(x_shape) == 4:
        return lambda *v: F.convolution_2d(
            *v, stride=stride, pad=pad, cover_all=cover_all, dilate=dilate,
            groups=groups,
        )  # fmt: skip
    return lambda *v: F.convolution_nd(*v, stride, pad, cover_all, dilate, groups)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("config", _CONV_CONFIGS, ids=_CONV_IDS)
def test_convolution_graph_on_gpu_matches_cpu(dev, count_kernel, config, dtype):
    is_2d = len(config[0]) == 4
    calls = count_kernel(
        convolution_2d.Convolution2DFunction if is_2d else convolution_nd.ConvolutionND
    )
    grad_w_calls = count_kernel(convolution_nd.ConvolutionNDGradW)
    deconv_calls = count_kernel(deconvolution_nd.DeconvolutionND)
    arrays = _conv_inputs(numpy, config, dtype)
    func = _conv_func(config)
    cpu = _grads_to_second_order(func, arrays, chainer.get_device("@numpy"))
    assert calls == []
    gpu_result = _grads_to_second_order(func, arrays, dev)
    assert len(calls) == 1
    assert len(grad_w_calls) >= 1
    assert len(deconv_calls) >= 1
    for a, b in zip(gpu_result, cpu, strict=True):
        _close_conv(a, b, dtype, scale=2.0)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    ("x_shape", "w_shape", "stride", "pad", "outsize", "dilate", "groups"),
    [
        ((2, 4, 3, 4), (4, 3, 3, 3), 2, 1, None, 1, 1),
        ((1, 4, 3, 4), (4, 2, 3, 2), (2, 3), (1, 0), (6, 11), 1, 2),
        ((2, 3, 5, 4), (3, 2, 2, 3), 1, 0, None, (2, 1), 1),
        ((2, 2, 4, 4), (2, 3, 3, 3), 1, 1, None, 1, 1),
    ],
    ids=["stride2", "outsize-groups", "dilate", "as-convolution"],
)
def test_deconvolution_graph_on_gpu_matches_cpu(
    dev, count_kernel, x_shape, w_shape, stride, pad, outsize, dilate, groups, dtype
):
    calls = count_kernel(deconvolution_2d.Deconvolution2DFunction)
    conv_calls = count_kernel(convolution_nd.ConvolutionND)
    arrays = (
        _input(x_shape, dtype),
        _input(w_shape, dtype, seed=1),
        _input((w_shape[1] * groups,), dtype, seed=2),
    )

    def func(*v):
        return F.deconvolution_2d(
            *v, stride=stride, pad=pad, outsize=outsize, dilate=dilate, groups=groups
        )

    cpu = _grads_to_second_order(func, arrays, chainer.get_device("@numpy"))
    gpu_result = _grads_to_second_order(func, arrays, dev)
    assert len(calls) == 1
    assert len(conv_calls) >= 1
    for a, b in zip(gpu_result, cpu, strict=True):
        _close_conv(a, b, dtype, scale=2.0)


def test_convolution_double_backward_gradient_check(dev, count_kernel):
    calls = count_kernel(convolution_2d.Convolution2DFunction)
    rng = numpy.random.default_rng(30)
    x = rng.uniform(-1, 1, (2, 4, 6, 5))
    W = rng.uniform(-1, 1, (6, 2, 3, 2))
    gy = rng.uniform(-1, 1, (2, 6, 4, 4))
    ggx = rng.uniform(-1, 1, x.shape)
    ggW = rng.uniform(-1, 1, W.shape)

    def func(x, W):
        return F.convolution_2d(x, W, stride=2, pad=1, cover_all=True, groups=2)

    chainer.gradient_check.check_double_backward(
        func,
        (dev.send(x), dev.send(W)),
        dev.send(gy),
        (dev.send(ggx), dev.send(ggW)),
        atol=1e-6,
        rtol=1e-5,
    )
    assert len(calls) >= 1


def test_convolution_with_four_spatial_axes_falls_back(dev, count_kernel):
    calls = count_kernel(convolution_nd.ConvolutionND)
    arrays = (
        _input((1, 2, 3, 3, 2, 3), numpy.float32),
        _input((2, 2, 2, 2, 1, 2), numpy.float32, seed=1),
    )

    def func(x, W):
        return F.convolution_nd(x, W, pad=1)

    cpu = _grads_to_second_order(func, arrays, chainer.get_device("@numpy"))
    gpu_result = _grads_to_second_order(func, arrays, dev)
    assert len(calls) == 1
    for a, b in zip(gpu_result, cpu, strict=True):
        _close_conv(a, b, numpy.float32)


# (x shape, ksize, stride, pad, cover_all)
_POOL_CONFIGS = [
    ((2, 3, 7, 6), 3, 2, 1, True),
    ((1, 2, 5, 5), 2, None, 0, False),
    ((2, 2, 6, 7), (3, 2), (1, 2), (1, 1), True),
    ((1, 1, 4, 4), 1, 1, 0, False),
    ((2, 2, 5, 6), 3, 1, 2, False),
    ((1, 2, 19, 18), 17, 2, 1, True),
    ((2, 2, 9), 3, 2, 1, True),
    ((1, 2, 5, 4, 3), (2, 3, 2), (2, 1, 1), (1, 1, 0), True),
]
_POOL_IDS = [
    "overlap-cover_all",
    "disjoint",
    "rect",
    "k1",
    "pad2",
    "289-taps",
    "1d",
    "3d",
]


def _distinct(shape, dtype, seed=0):
    # Distinct values (no ties for the argmax), exact in float16.
    rng = numpy.random.default_rng(seed)
    values = rng.permutation(math.prod(shape)).reshape(shape) % 2048
    return (values - 1024).astype(dtype) / 8


def _pool_nodes(config, kind, pad_value=0):
    x_shape, ksize, stride, pad, cover_all = config
    ndim = len(x_shape) - 2
    if kind == "max":
        return [
            max_pooling_nd.MaxPoolingND(ndim, ksize, stride, pad, cover_all)
            for _ in range(2)
        ]
    return [
        average_pooling_nd.AveragePoolingND(
            ndim, ksize, stride, pad, cover_all, pad_value
        )
        for _ in range(2)
    ]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("config", _POOL_CONFIGS, ids=_POOL_IDS)
def test_max_pooling_kernels_match_forward(gpu, config, dtype):
    x = gpu.asarray(_distinct(config[0], dtype))
    node_k, node_f = _pool_nodes(config, "max")
    out_k = plugins.get_kernel(max_pooling_nd.MaxPoolingND, "cupy")(node_k, (x,))
    out_f = node_f.forward((x,))
    _check_same(out_k, out_f, dtype)
    _same_retained(node_k, node_f)
    for name in ("_in_size", "_out_size", "_pad_hi", "_disjoint"):
        assert getattr(node_k, name) == getattr(node_f, name), name
    idx_k, idx_f = node_k._compact_indexes(), node_f._compact_indexes()
    assert idx_k.dtype == idx_f.dtype
    numpy.testing.assert_array_equal(cuda.to_cpu(idx_k), cuda.to_cpu(idx_f))
    assert node_k.indexes.dtype == numpy.int64

    gy = gpu.asarray(_input(out_f[0].shape, dtype, seed=1))
    g_k = max_pooling_nd.MaxPoolingNDGrad(node_k)
    g_f = max_pooling_nd.MaxPoolingNDGrad(node_f)
    kernel = plugins.get_kernel(max_pooling_nd.MaxPoolingNDGrad, "cupy")
    _check_same(kernel(g_k, (gy,)), g_f.forward((gy,)), dtype)

    ggx = gpu.asarray(_input(x.shape, dtype, seed=2))
    w_k = max_pooling_nd.MaxPoolingNDWithIndexes(node_k)
    w_f = max_pooling_nd.MaxPoolingNDWithIndexes(node_f)
    kernel = plugins.get_kernel(max_pooling_nd.MaxPoolingNDWithIndexes, "cupy")
    _check_same(kernel(w_k, (ggx,)), w_f.forward((ggx,)), dtype)


def test_max_pooling_kernel_nan_and_infinity(gpu):
    x = _distinct((2, 2, 5, 5), numpy.float32)
    x[0, 0, 1, 1] = numpy.nan
    x[0, 1] = -numpy.inf
    x[1, 0, :2, :2] = numpy.inf
    x = gpu.asarray(x)
    node_k = max_pooling_2d.MaxPooling2D(3, 2, 1, True)
    node_f = max_pooling_2d.MaxPooling2D(3, 2, 1, True)
    (y_k,) = plugins.get_kernel(max_pooling_2d.MaxPooling2D, "cupy")(node_k, (x,))
    (y_f,) = node_f.forward((x,))
    numpy.testing.assert_array_equal(cuda.to_cpu(y_k), cuda.to_cpu(y_f))
    numpy.testing.assert_array_equal(
        cuda.to_cpu(node_k.indexes), cuda.to_cpu(node_f.indexes)
    )


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("pad_value", [0, None])
@pytest.mark.parametrize("config", _POOL_CONFIGS, ids=_POOL_IDS)
def test_average_pooling_kernels_match_forward(gpu, config, pad_value, dtype):
    x = gpu.asarray(_input(config[0], dtype))
    node_k, node_f = _pool_nodes(config, "average", pad_value)
    kernel = plugins.get_kernel(average_pooling_nd.AveragePoolingND, "cupy")
    out_f = node_f.forward((x,))
    _check_same(kernel(node_k, (x,)), out_f, dtype)
    _same_retained(node_k, node_f)
    gy = gpu.asarray(_input(out_f[0].shape, dtype, seed=1))
    g_k = average_pooling_nd.AveragePoolingNDGrad(node_k)
    g_f = average_pooling_nd.AveragePoolingNDGrad(node_f)
    kernel = plugins.get_kernel(average_pooling_nd.AveragePoolingNDGrad, "cupy")
    _check_same(kernel(g_k, (gy,)), g_f.forward((gy,)), dtype)


def _pool_grads(func, x_np, device, seed=40):
    # y, gx, and the second-order gradients for x and (through gx) for gy.
    rng = numpy.random.default_rng(seed)
    x = chainer.Variable(device.send(x_np))
    y = func(x)
    gy = chainer.Variable(device.send(rng.uniform(-1, 1, y.shape).astype(y.dtype)))
    (gx,) = chainer.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    ggx = device.send(rng.uniform(-1, 1, gx.shape).astype(gx.dtype))
    ggx_x, ggx_gy = chainer.grad([F.sum(gx * ggx)], [x, gy])
    return [
        y.array,
        gx.array,
        None if ggx_x is None else ggx_x.array,
        ggx_gy.array,
    ]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize(
    ("kind", "cls", "grad_cls"),
    [
        ("max", max_pooling_2d.MaxPooling2D, max_pooling_nd.MaxPoolingNDGrad),
        (
            "average",
            average_pooling_2d.AveragePooling2D,
            average_pooling_nd.AveragePoolingNDGrad,
        ),
        (
            "average_nd_no_pad",
            average_pooling_nd.AveragePoolingND,
            average_pooling_nd.AveragePoolingNDGrad,
        ),
    ],
)
@pytest.mark.parametrize("config", _POOL_CONFIGS[:3], ids=_POOL_IDS[:3])
def test_pooling_graph_on_gpu_matches_cpu(
    dev, count_kernel, config, kind, cls, grad_cls, dtype
):
    x_shape, ksize, stride, pad, cover_all = config
    calls = count_kernel(cls)
    grad_calls = count_kernel(grad_cls)
    if kind == "max":
        with_indexes = count_kernel(max_pooling_nd.MaxPoolingNDWithIndexes)

        def func(x):
            return F.max_pooling_2d(x, ksize, stride, pad, cover_all)

    elif kind == "average":

        def func(x):
            return F.average_pooling_2d(x, ksize, stride, pad)

    else:

        def func(x):
            return F.average_pooling_nd(x, ksize, stride, pad, pad_value=None)

    x = _distinct(x_shape, dtype)
    cpu = _pool_grads(func, x, chainer.get_device("@numpy"))
    gpu_result = _pool_grads(func, x, dev)
    assert len(calls) >= 1
    assert len(grad_calls) >= 1
    if kind == "max":
        assert len(with_indexes) == 1
    for a, b in zip(gpu_result, cpu, strict=True):
        _close_conv(a, b, dtype)


def test_max_pooling_return_indices_on_gpu(dev, count_kernel):
    calls = count_kernel(max_pooling_2d.MaxPooling2D)
    x = _distinct((2, 3, 7, 6), numpy.float32)
    y_cpu, idx_cpu = F.max_pooling_2d(x, 3, 2, 1, return_indices=True)
    y_gpu, idx_gpu = F.max_pooling_2d(dev.send(x), 3, 2, 1, return_indices=True)
    assert len(calls) == 1
    assert idx_gpu.dtype == idx_cpu.dtype == numpy.int64
    numpy.testing.assert_array_equal(cuda.to_cpu(idx_gpu), idx_cpu)
    numpy.testing.assert_array_equal(cuda.to_cpu(y_gpu.array), y_cpu.array)
    # upsampling_2d reads the indexes of the node.
    up_cpu = F.upsampling_2d(y_cpu, idx_cpu, 3, 2, 1, outsize=(7, 6))
    up_gpu = F.upsampling_2d(y_gpu, idx_gpu, 3, 2, 1, outsize=(7, 6))
    numpy.testing.assert_array_equal(cuda.to_cpu(up_gpu.array), up_cpu.array)
