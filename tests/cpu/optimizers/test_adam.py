"""chainer-cpu's blocked Adam kernel: registered, equal to the rule's own update.

Without MKL the blocked update repeats the rule's NumPy operations bit for
bit; with MKL, ``cblas_?axpby`` fuses the updates of ``m``, ``v`` and the
parameter into one pass each, which rounds differently.
"""

import numpy
import pytest

import chainer
from chainer import optimizers
from chainer import plugins
from chainer import primitive_ops
from chainer.optimizers import adam as core_adam
from chainer_cpu.optimizers import adam as cpu_adam


def test_registered_for_numpy(cpu_plugin):
    assert plugins.get_kernel(core_adam.AdamRule, "numpy") is cpu_adam.adam


def _pair(shape, dtype, seed, **hyperparams):
    # Two identical (rule, param) pairs, one step already taken by neither.
    rng = numpy.random.RandomState(seed)
    data = rng.standard_normal(shape).astype(dtype)
    pairs = []
    for _ in range(2):
        param = chainer.Parameter(data.copy())
        rule = core_adam.AdamRule(**hyperparams)
        rule.update(param)  # no gradient yet: creates the state only
        pairs.append((rule, param))
    return pairs, rng


def _steps(pairs, rng, shape, dtype, n=3):
    (ref_rule, ref_param), (rule, param) = pairs
    for t in range(1, n + 1):
        grad = rng.standard_normal(shape).astype(dtype)
        for r, p in pairs:
            r.t = t
            p.grad = grad.copy()
        ref_rule.update_core_cpu(ref_param)
        cpu_adam.adam(rule, param)
    return ref_rule, ref_param, rule, param


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    "hyperparams",
    [{}, {"eta": 0.5}, {"weight_decay_rate": 0.01}, {"alpha": 0.01, "eps": 1e-6}],
)
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_blocked_update_equals_the_reference(
    dtype, hyperparams, threads, cpu_team, gemm_choice
):
    # More than two blocks and a partial last one, on a team of ``threads``
    # (each thread with its own scratch row).
    gemm_choice("numpy")
    cpu_team(threads)
    block = cpu_adam.block_elements(numpy.dtype(dtype).itemsize)
    shape = (3, 2 * block + 7)
    pairs, rng = _pair(shape, dtype, 0, **hyperparams)
    ref_rule, ref_param, rule, param = _steps(pairs, rng, shape, dtype)
    assert cpu_adam._blocked(rule, param) is not None
    numpy.testing.assert_array_equal(param.array, ref_param.array)
    for key in ("m", "v"):
        numpy.testing.assert_array_equal(rule.state[key], ref_rule.state[key])


def _assert_close(actual, expected, dtype, ulps=8):
    # Within a few units in the last place of the array's scale.
    eps = numpy.finfo(dtype).eps
    scale = numpy.abs(expected).max()
    numpy.testing.assert_allclose(
        actual, expected, rtol=ulps * eps, atol=ulps * eps * scale
    )


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    "hyperparams",
    [
        {},
        {"eta": 0.5, "weight_decay_rate": 0.01},
        {"alpha": 0.01, "eps": 0.5},  # eps as large as sqrt(v): it must count
        {"beta1": 0.5, "beta2": 0.7},
    ],
)
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_mkl_update_agrees_with_the_reference(
    dtype, hyperparams, threads, cpu_team, gemm_choice
):
    gemm_choice("mkl")
    assert cpu_adam._mkl_axpby(numpy.dtype(dtype), 10) is not None
    cpu_team(threads)
    block = cpu_adam.block_elements(numpy.dtype(dtype).itemsize)
    shape = (3, 2 * block + 7)
    pairs, rng = _pair(shape, dtype, 4, **hyperparams)
    start = pairs[1][1].array.copy()
    ref_rule, ref_param, rule, param = _steps(pairs, rng, shape, dtype, n=4)
    assert cpu_adam._blocked(rule, param) is not None
    _assert_close(param.array, ref_param.array, dtype)
    for key in ("m", "v"):
        _assert_close(rule.state[key], ref_rule.state[key], dtype)
    # The steps moved the parameters far more than the tolerance.
    moved = numpy.median(numpy.abs(param.array - start))
    assert moved > 1e3 * numpy.finfo(dtype).eps * numpy.abs(start).max()


@pytest.mark.parametrize(
    ("case", "hyperparams", "dtype", "shape"),
    [
        ("amsgrad", {"amsgrad": True}, numpy.float32, None),
        ("adabound", {"adabound": True}, numpy.float32, None),
        ("float16", {"eps": 1e-4}, numpy.float16, None),
        ("small", {}, numpy.float32, (10, 10)),
    ],
)
@pytest.mark.parametrize("engine", ["numpy", "mkl"])
def test_other_updates_run_the_rule_itself(
    case, hyperparams, dtype, shape, engine, gemm_choice
):
    gemm_choice(engine)
    if shape is None:
        shape = (3, cpu_adam.block_elements(numpy.dtype(dtype).itemsize))
    pairs, rng = _pair(shape, dtype, 1, **hyperparams)
    _, ref_param, rule, param = _steps(pairs, rng, shape, dtype)
    assert cpu_adam._blocked(rule, param) is None
    numpy.testing.assert_array_equal(param.array, ref_param.array)


def test_non_contiguous_state_runs_the_rule_itself():
    shape = (3, cpu_adam.block_elements(4))
    (rule, param) = _pair(shape, numpy.float32, 2)[0][1]
    param.grad = numpy.ones(shape, numpy.float32)
    rule.state["m"] = numpy.asfortranarray(rule.state["m"])
    assert cpu_adam._blocked(rule, param) is None


def test_block_follows_the_reported_l2(monkeypatch):
    monkeypatch.setattr(cpu_adam._machine, "cache_bytes", lambda level: 2 << 20)
    assert cpu_adam.block_elements(4) == (2 << 20) // 40
    monkeypatch.setattr(cpu_adam._machine, "cache_bytes", lambda level: 1024)
    assert cpu_adam.block_elements(4) == 4096


def _train(steps=3):
    rng = numpy.random.RandomState(3)
    model = chainer.Link()
    with model.init_scope():
        model.W = chainer.Parameter(rng.standard_normal((300, 400)).astype("f"))
        model.b = chainer.Parameter(rng.standard_normal(400).astype("f"))
    opt = optimizers.Adam(weight_decay_rate=0.001)
    opt.setup(model)
    for _ in range(steps):
        model.cleargrads()
        loss = primitive_ops.sum(model.W * model.W) + primitive_ops.sum(
            model.b * model.b
        )
        loss.backward()
        opt.update()
    return model.W.array, model.b.array


@pytest.mark.parametrize("engine", ["numpy", "mkl"])
def test_optimizer_uses_the_kernel_only_while_registered(
    cpu_plugin, monkeypatch, gemm_choice, engine
):
    gemm_choice(engine)
    calls = []
    original = cpu_adam._blocked

    def spy(rule, param):
        found = original(rule, param)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(cpu_adam, "_blocked", spy)
    fast = _train()
    assert calls.count(True) == 3  # W, each step; b is small
    plugins.unregister("cpu")
    try:
        calls.clear()
        reference = _train()
    finally:
        plugins.register(cpu_plugin, name="cpu")
    assert calls == []
    for a, b in zip(fast, reference, strict=True):
        if engine == "numpy":
            numpy.testing.assert_array_equal(a, b)
        else:
            _assert_close(a, b, numpy.float32)
