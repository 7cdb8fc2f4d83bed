"""chainer-cpu's SGD and MomentumSGD kernels: registered, equal to the rules."""

import numpy
import pytest

import chainer
from chainer import plugins
from chainer.optimizers import momentum_sgd as core_momentum
from chainer.optimizers import sgd as core_sgd
from chainer_cpu import _mkl
from chainer_cpu.optimizers import sgd as cpu_sgd

_RULES = {
    "sgd": (core_sgd.SGDRule, "sgd"),
    "momentum": (core_momentum.MomentumSGDRule, "momentum_sgd"),
}


@pytest.mark.parametrize("name", sorted(_RULES))
def test_registered_for_numpy(cpu_plugin, name):
    rule_class, kernel = _RULES[name]
    assert plugins.get_kernel(rule_class, "numpy") is getattr(cpu_sgd, kernel)


def _run(name, shape, dtype, lr=0.1, make_grad=None, steps=3):
    # The same steps through the rule's own update and through the kernel.
    rule_class, kernel = _RULES[name]
    rng = numpy.random.RandomState(0)
    data = rng.standard_normal(shape).astype(dtype)
    pairs = []
    for _ in range(2):
        param = chainer.Parameter(data.copy())
        rule = rule_class(lr=lr)
        rule.update(param)  # no gradient yet: creates the state only
        pairs.append((rule, param))
    (ref_rule, ref_param), (rule, param) = pairs
    for _ in range(steps):
        grad = rng.standard_normal(shape).astype(dtype)
        if make_grad is not None:
            grad = make_grad(grad)
        ref_param.grad = grad.copy(order="K")
        param.grad = grad.copy(order="K")
        ref_rule.update_core_cpu(ref_param)
        getattr(cpu_sgd, kernel)(rule, param)
    return ref_rule, ref_param, rule, param


def _velocity(rule):
    return rule.state.get("v")


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(_RULES))
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("lr", [0.1, numpy.float64(0.1), numpy.float32(0.1), 1])
def test_blocked_numpy_update_equals_the_rule(
    gemm_choice, cpu_team, monkeypatch, threads, name, dtype, lr
):
    # Without MKL: the rule's operations block by block (more than two
    # blocks and a partial last one), bit for bit, whatever the type of lr,
    # on the calling thread or split among a team's threads.
    gemm_choice("numpy")
    cpu_team(threads)
    monkeypatch.setattr(cpu_sgd, "PARALLEL_MIN", 0 if threads > 1 else 1 << 62)
    block = cpu_sgd.block_elements(numpy.dtype(dtype).itemsize)
    ref_rule, ref_param, rule, param = _run(name, (3, block + 5), dtype, lr)
    numpy.testing.assert_array_equal(param.array, ref_param.array)
    if name == "momentum":
        numpy.testing.assert_array_equal(_velocity(rule), _velocity(ref_rule))


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(_RULES))
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_mkl_update_agrees_with_the_rule(
    gemm_choice, cpu_team, monkeypatch, threads, name, dtype
):
    # With MKL: one axpby pass per array (per range of a team's thread); a
    # fused multiply-add may round the last place differently from the
    # rule's two operations (of the operands' size, which the data's bounds:
    # about 4 for these values).
    gemm_choice("mkl")
    cpu_team(threads)
    monkeypatch.setattr(cpu_sgd, "PARALLEL_MIN", 0 if threads > 1 else 1 << 62)
    assert _mkl.axpby_function(dtype) is not None
    ref_rule, ref_param, rule, param = _run(name, (300, 70), dtype, lr=0.3)
    eps = numpy.finfo(dtype).eps
    tol = {"rtol": 4 * eps, "atol": 4 * eps * numpy.abs(ref_param.array).max()}
    numpy.testing.assert_allclose(param.array, ref_param.array, **tol)
    if name == "momentum":
        numpy.testing.assert_allclose(_velocity(rule), _velocity(ref_rule), **tol)


@pytest.mark.parametrize("engine", ["numpy", "mkl"])
@pytest.mark.parametrize("name", sorted(_RULES))
@pytest.mark.parametrize(
    ("shape", "dtype", "make_grad"),
    [
        ((10, 10), numpy.float32, None),  # small
        ((200, 100), numpy.float16, None),
        ((200, 100), numpy.float32, numpy.asfortranarray),
    ],
    ids=["small", "float16", "strided-gradient"],
)
def test_other_parameters_run_the_rule_itself(
    gemm_choice, engine, name, shape, dtype, make_grad
):
    gemm_choice(engine)
    _, ref_param, _, param = _run(name, shape, dtype, make_grad=make_grad)
    numpy.testing.assert_array_equal(param.array, ref_param.array)


@pytest.mark.parametrize("engine", ["numpy", "mkl"])
@pytest.mark.parametrize("name", sorted(_RULES))
def test_optimizer_update_takes_the_kernel(cpu_plugin, gemm_choice, engine, name):
    gemm_choice(engine)
    optimizer = (
        chainer.optimizers.SGD(lr=0.1)
        if name == "sgd"
        else chainer.optimizers.MomentumSGD(lr=0.1, momentum=0.5)
    )
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(numpy.ones((200, 100), numpy.float32))
    optimizer.setup(link)
    for _ in range(2):
        link.w.grad = numpy.full((200, 100), 2.0, numpy.float32)
        optimizer.update()
    # SGD: 1 - 0.2 - 0.2; momentum: v = -0.2, then -0.1 - 0.2 = -0.3.
    expected = 0.6 if name == "sgd" else 0.5
    numpy.testing.assert_allclose(link.w.array, expected, rtol=1e-6)


@pytest.mark.parametrize("engine", ["numpy", "mkl"])
@pytest.mark.parametrize("name", sorted(_RULES))
def test_large_parameters_split_among_the_team(
    gemm_choice, cpu_team, team_runs, monkeypatch, engine, name
):
    # At PARALLEL_MIN elements and above, every thread of the team updates
    # its own part; below it the calling thread updates all of it.
    gemm_choice(engine)
    cpu_team(2)
    block = cpu_sgd.block_elements(4)  # the NumPy path splits by blocks
    monkeypatch.setattr(cpu_sgd, "PARALLEL_MIN", 3 * block)
    _run(name, (3, block), numpy.float32, steps=1)
    assert team_runs
    assert min(team_runs) >= 2
    team_runs.clear()
    _run(name, (3, block - 1), numpy.float32, steps=1)
    assert team_runs == []
