"""The workloads' device plumbing (benchmarks/workloads), without a GPU or PyTorch."""

import importlib.util
import json
import pathlib
import sys
import types

import numpy
import pytest

WORKLOADS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "workloads"


def _load(name):
    # A workload module by path (it puts its folder on sys.path itself).
    spec = importlib.util.spec_from_file_location(name, WORKLOADS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_timing = _load("_timing")
lstm_lm_step = _load("lstm_lm_step")


def _fake_cupy():
    calls = []
    stream = types.SimpleNamespace(synchronize=lambda: calls.append("sync"))
    cuda = types.SimpleNamespace(get_current_stream=lambda: stream)
    module = types.ModuleType("cupy")
    module.cuda = cuda
    return module, calls


def test_synchronizer_waits_for_a_cupy_stream_only():
    assert _timing.synchronizer(types.SimpleNamespace(xp=numpy))() is None
    cupy, calls = _fake_cupy()
    sync = _timing.synchronizer(types.SimpleNamespace(xp=cupy))
    sync()
    assert calls == ["sync"]


def test_torch_device_maps_chainer_device_names(monkeypatch):
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(synchronize=object())
    monkeypatch.setitem(sys.modules, "torch", torch)
    name, sync = _timing.torch_device("@numpy")
    assert name == "cpu"
    assert sync() is None
    assert _timing.torch_device("@cupy:1") == ("cuda:1", torch.cuda.synchronize)
    with pytest.raises(ValueError, match="@numpy or @cupy:N"):
        _timing.torch_device("cuda:0")


@pytest.mark.parametrize("device", ["@numpy", "@cupy:0"])
def test_lm_workloads_pass_the_device_and_skip_the_floor_on_a_gpu(device, capsys):
    seen = {}

    def bench(steps, warmup, device):
        seen["bench"] = (steps, warmup, device)
        return {"step_ms": {"median": 1.0}}

    def floor(repeats):
        seen["floor"] = repeats
        return {"gemm_floor_ms": {"median": 2.0}}

    argv = ["--steps", "4", "--warmup", "1", "--device", device]
    lstm_lm_step.run_main(argv, "lstm_lm_step", bench, floor)
    record = json.loads(capsys.readouterr().out)
    assert seen["bench"] == (4, 1, device)
    if device == "@numpy":
        assert seen["floor"] == 3
        assert "device" not in record
    else:
        assert "floor" not in seen
        assert record["device"] == device
        assert "gemm_floor_ms" not in record
