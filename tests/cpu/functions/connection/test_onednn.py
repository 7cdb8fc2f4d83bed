"""chainer-cpu's oneDNN convolutions: the same results as its own engine."""

import collections
import importlib.metadata
import os
import subprocess
import sys
import threading

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer_cpu import _layout
from chainer_cpu import _onednn

ENGINES = ["onednn", "numpy"]


def _input(rng, shape, layout, dtype=numpy.float32):
    # ``shape`` (n, c, *spatial) stored C-order, batch-innermost or
    # channels-last.
    nd = len(shape) - 2
    if layout == "batch_innermost":
        buf = rng.standard_normal((*shape[1:], shape[0])).astype(dtype)
        return buf.transpose(nd + 1, *range(nd + 1))
    if layout == "channels_last":
        buf = rng.standard_normal((shape[0], *shape[2:], shape[1])).astype(dtype)
        return buf.transpose(0, nd + 1, *range(1, nd + 1))
    return rng.standard_normal(shape).astype(dtype)


def _is_channels_last(a):
    return a.transpose(0, *range(2, a.ndim), 1).flags.c_contiguous


def _conv_pass(engine, conv_choice, x, W, b, **kwargs):
    # Output and the three gradients of one forward and backward pass.
    conv_choice(engine)
    xv, Wv = chainer.Variable(x.copy()), chainer.Variable(W.copy())
    args = (xv, Wv) if b is None else (xv, Wv, chainer.Variable(b.copy()))
    y = F.convolution_nd(*args, **kwargs)
    y.grad = numpy.random.RandomState(9).standard_normal(y.shape).astype(y.dtype)
    y.backward()
    grads = [xv.grad, Wv.grad] + ([] if b is None else [args[2].grad])
    return [y.array, *grads]


CASES = [
    # (x shape, W shape, kwargs)
    ((3, 4, 9, 9), (6, 4, 3, 3), {"stride": 1, "pad": 1}),
    ((3, 4, 9, 9), (5, 4, 3, 3), {"stride": 2, "pad": 1}),
    ((3, 4, 10, 9), (5, 4, 3, 2), {"stride": (2, 3), "pad": (1, 0), "cover_all": True}),
    ((2, 4, 11, 11), (6, 4, 3, 3), {"pad": 2, "dilate": 2}),
    ((2, 6, 8, 8), (4, 3, 3, 3), {"pad": 1, "groups": 2}),
    ((2, 3, 7, 7), (5, 3, 1, 1), {}),
    ((3, 4, 20), (5, 4, 3), {"stride": 2, "pad": 1}),
    ((2, 3, 6, 5, 7), (4, 3, 3, 3, 2), {"pad": 1}),
]


@pytest.mark.parametrize(("x_shape", "w_shape", "kwargs"), CASES)
@pytest.mark.parametrize("layout", ["c", "batch_innermost", "channels_last"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("activations", ["batch_innermost", "channels_last"])
def test_forward_and_gradients_match_the_numpy_engine(
    x_shape, w_shape, kwargs, layout, bias, activations, conv_choice, cpu_plugin,
    cpu_team, monkeypatch,
):  # fmt: skip
    cpu_team(2)
    monkeypatch.setattr(_onednn, "ACTIVATIONS", activations)
    rng = numpy.random.RandomState(0)
    x = _input(rng, x_shape, layout)
    W = rng.standard_normal(w_shape).astype(numpy.float32)
    b = rng.standard_normal(w_shape[0]).astype(numpy.float32) if bias else None
    _onednn._plans.clear()
    got = _conv_pass("onednn", conv_choice, x, W, b, **kwargs)
    # The forward, input gradient and filter gradient ran on oneDNN.
    kinds = {key[0] for key, plan in _onednn._plans.items() if plan is not None}
    assert kinds == {"forward", "backward_data", "backward_weights"}
    expected = _conv_pass("numpy", conv_choice, x, W, b, **kwargs)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape
        assert g.dtype == e.dtype
        numpy.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)


def test_plans_are_kept_per_geometry(conv_choice, cpu_plugin):
    conv_choice("onednn")
    rng = numpy.random.RandomState(1)
    x = rng.standard_normal((2, 3, 8, 8)).astype(numpy.float32)
    W = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)
    _onednn._plans.clear()
    F.convolution_2d(x, W, pad=1)
    F.convolution_2d(x, W, pad=1)
    assert [key[0] for key in _onednn._plans] == ["forward"]
    plan = next(iter(_onednn._plans.values()))
    assert plan.implementation
    assert _onednn.version()[0].isdigit()
    assert _onednn.describe().startswith("oneDNN ")
    F.convolution_2d(x, W, pad=0)
    assert len(_onednn._plans) == 2


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float16])
def test_other_dtypes_take_the_numpy_engine(dtype, conv_choice, cpu_plugin):
    conv_choice("onednn")
    rng = numpy.random.RandomState(2)
    x = rng.standard_normal((2, 3, 6, 6)).astype(dtype)
    W = rng.standard_normal((4, 3, 3, 3)).astype(dtype)
    _onednn._plans.clear()
    y = F.convolution_2d(x, W, pad=1)
    assert not _onednn._plans
    assert y.dtype == dtype


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("kwargs", "outsize"),
    [
        ({"stride": 2, "pad": 1}, None),
        ({"stride": 2, "pad": 1}, (10, 10)),  # one more row and column
        ({"stride": 1, "pad": 0, "groups": 2}, None),
    ],
)
def test_deconvolution_matches_the_reference(
    engine, kwargs, outsize, conv_choice, cpu_plugin
):
    conv_choice(engine)
    rng = numpy.random.RandomState(3)
    x = rng.standard_normal((2, 4, 5, 5)).astype(numpy.float32)
    groups = kwargs.get("groups", 1)
    W = rng.standard_normal((4, 6 // groups, 3, 3)).astype(numpy.float32)
    b = rng.standard_normal(6).astype(numpy.float32)
    y = F.deconvolution_2d(x, W, b, outsize=outsize, **kwargs).array
    # The reference: every input pixel's filter-weighted patch added onto y.
    s, p = kwargs.get("stride", 1), kwargs.get("pad", 0)
    full = (5 - 1) * s + 3
    out = outsize or (full - 2 * p,) * 2
    big = numpy.zeros((2, 6, max(full, out[0] + p), max(full, out[1] + p)))
    cin, cout = 4 // groups, 6 // groups
    for g in range(groups):
        xg = x[:, g * cin : (g + 1) * cin]
        Wg = W[g * cin : (g + 1) * cin]
        for i in range(5):
            for j in range(5):
                big[
                    :, g * cout : (g + 1) * cout, i * s : i * s + 3, j * s : j * s + 3
                ] += numpy.einsum("nc,cokl->nokl", xg[:, :, i, j], Wg)
    expected = big[:, :, p : p + out[0], p : p + out[1]] + b[:, None, None]
    numpy.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("activations", ["batch_innermost", "channels_last"])
def test_outputs_and_input_gradients_take_the_activations_order(
    activations, conv_choice, cpu_plugin, monkeypatch
):
    conv_choice("onednn")
    monkeypatch.setattr(_onednn, "ACTIVATIONS", activations)
    is_expected = (
        _is_channels_last
        if activations == "channels_last"
        else _layout.is_batch_innermost
    )
    # The input gradient reaching a non-leaf input (leaves store theirs
    # C-contiguous).
    h = chainer.Variable(numpy.ones((2, 3, 6, 6), numpy.float32)) * 1
    W = numpy.ones((4, 3, 3, 3), numpy.float32)
    y = F.convolution_2d(h, W, pad=1)
    assert is_expected(y.array)
    numpy.testing.assert_array_equal(
        y.array[:, :, 2:4, 2:4], numpy.full((2, 4, 2, 2), 27.0)
    )
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward(retain_grad=True)
    assert is_expected(h.grad)
    numpy.testing.assert_array_equal(
        h.grad[:, :, 2:4, 2:4], numpy.full((2, 3, 2, 2), 36.0)
    )


def test_choice_from_the_environment(monkeypatch):
    monkeypatch.setitem(_onednn._state, "choice", None)
    monkeypatch.setenv("CHAINER_CPU_CONV", "numpy")
    assert _onednn.choice() == "numpy"
    monkeypatch.setitem(_onednn._state, "choice", None)
    monkeypatch.setenv("CHAINER_CPU_CONV", "mkldnn")
    with pytest.raises(ValueError, match="auto, onednn or numpy, not 'mkldnn'"):
        _onednn.choice()
    assert "error" in _onednn.describe()


def test_missing_library_names_the_extra(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    monkeypatch.setattr(
        _onednn, "_state", {"choice": None, "library": None, "loaded": False}
    )
    monkeypatch.setattr(_onednn, "problem", None)
    monkeypatch.setenv("CHAINER_CPU_CONV", "auto")
    assert _onednn.choice() == "numpy"
    assert "pip install 'chainer-cpu[onednn]'" in _onednn.problem
    assert "chainer-cpu[onednn]" in _onednn.describe()
    monkeypatch.setitem(_onednn._state, "choice", None)
    monkeypatch.setenv("CHAINER_CPU_CONV", "onednn")
    with pytest.raises(RuntimeError, match="CHAINER_CPU_CONV=onednn.*not installed"):
        _onednn.choice()


def _engines(clock, ran, onednn_seconds, own_seconds):
    def onednn():
        ran.append("onednn")
        clock[0] += onednn_seconds
        return "onednn result"

    def own():
        ran.append("own")
        clock[0] += own_seconds
        return "own result"

    return onednn, own


@pytest.mark.parametrize(("onednn_seconds", "winner"), [(2.0, "own"), (0.5, "onednn")])
def test_pick_races_the_engines_then_keeps_the_faster(
    onednn_seconds, winner, monkeypatch
):
    monkeypatch.setitem(_onednn._state, "choice", "race")
    monkeypatch.setattr(_onednn, "_races", collections.OrderedDict())
    clock = [0.0]
    monkeypatch.setattr(_onednn, "_clock", lambda: clock[0])
    ran = []
    onednn, own = _engines(clock, ran, onednn_seconds, 1.0)
    results = [_onednn.pick("geometry", onednn, own) for _ in range(9)]
    trials = 2 * _onednn.TRIALS
    assert ran[:trials] == ["onednn", "own"] * _onednn.TRIALS
    assert ran[trials:] == [winner] * (9 - trials)
    assert results[-1] == f"{winner} result"
    assert _onednn._races["geometry"] == ("own" if winner == "own" else "onednn")
    # Another geometry races on its own.
    _onednn.pick("other", onednn, own)
    assert ran[-1] == "onednn"


def test_pick_without_a_race(monkeypatch):
    monkeypatch.setattr(_onednn, "_races", collections.OrderedDict())
    ran = []
    onednn, own = _engines([0.0], ran, 5.0, 1.0)
    monkeypatch.setitem(_onednn._state, "choice", "onednn")
    assert _onednn.pick("geometry", onednn, own) == "onednn result"

    def unsupported():
        raise _onednn.Unsupported("no primitive")

    monkeypatch.setitem(_onednn._state, "choice", "race")
    assert _onednn.pick("unsupported", unsupported, own) == "own result"
    assert _onednn._races["unsupported"] == "own"
    assert _onednn.pick("unsupported", unsupported, own) == "own result"


_FORK_SCRIPT = """
import os, sys
import numpy
import chainer.functions as F
from chainer import plugins
from chainer_cpu import _onednn, _plugin
plugins.register(_plugin, name="cpu")
_onednn._state["choice"] = "onednn"
x = numpy.random.RandomState(0).standard_normal((8, 16, 16, 16)).astype("f")
W = numpy.random.RandomState(1).standard_normal((16, 16, 3, 3)).astype("f")
y0 = F.convolution_2d(x, W, pad=1).array
pid = os.fork()
if pid == 0:
    import faulthandler
    faulthandler.dump_traceback_later(60, exit=True)  # a hung child ends itself
    y = F.convolution_2d(x, W, pad=1).array
    ok = numpy.allclose(y, y0, atol=1e-4) and _onednn.choice() == "numpy"
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_uses_the_own_engine(conv_choice):
    # GNU OpenMP's threads do not survive fork: the child of a process that
    # ran oneDNN on two threads hung in its next convolution.
    conv_choice("onednn")  # skips where oneDNN is not usable
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "CHAINER_DISABLED_PLUGINS": ""}
    done = subprocess.run(
        [sys.executable, "-c", _FORK_SCRIPT], env=env, timeout=120, check=False
    )
    assert done.returncode == 0


def test_convolutions_from_several_threads(conv_choice, cpu_plugin):
    # Each thread runs oneDNN on its own stream; results stay exact.
    conv_choice("onednn")
    rng = numpy.random.RandomState(6)
    x = rng.standard_normal((4, 8, 12, 12)).astype(numpy.float32)
    W = rng.standard_normal((8, 8, 3, 3)).astype(numpy.float32)
    expected = F.convolution_2d(x, W, pad=1).array
    results = []

    def work():
        for _ in range(20):
            results.append(F.convolution_2d(x, W, pad=1).array)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 60
    for y in results:
        numpy.testing.assert_array_equal(y, expected)


def test_plans_and_races_are_bounded(conv_choice, cpu_plugin, monkeypatch):
    conv_choice("onednn")
    monkeypatch.setattr(_onednn, "MAX_PLANS", 2)
    monkeypatch.setattr(_onednn, "MAX_RACES", 3)
    _onednn._plans.clear()
    rng = numpy.random.RandomState(7)
    W = rng.standard_normal((4, 3, 3)).astype(numpy.float32)
    for length in (10, 11, 12, 13):  # a 1-d convolution over new lengths
        x = rng.standard_normal((2, 3, length)).astype(numpy.float32)
        y = F.convolution_1d(x, W, pad=1).array
        padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1)))
        expected = sum(
            numpy.einsum("ncl,oc->nol", padded[:, :, k : k + length], W[:, :, k])
            for k in range(3)
        )
        numpy.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
    assert len(_onednn._plans) == 2
    assert [key[1][0][2] for key in _onednn._plans] == [12, 13]  # x's length
    monkeypatch.setattr(_onednn, "_races", collections.OrderedDict())
    monkeypatch.setitem(_onednn._state, "choice", "race")
    for key in range(5):
        _onednn.pick(key, lambda: 1, lambda: 2)
    assert list(_onednn._races) == [2, 3, 4]
