"""The workloads' device plumbing (benchmarks/workloads), without a GPU or PyTorch."""

import importlib.util
import json
import pathlib
import re
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


def _gpu_bench_jobs():
    # The ``jobs`` of ``.ci/gpu bench``: ``script args...`` strings.
    text = (WORKLOADS.parents[1] / ".ci" / "gpu").read_text(encoding="utf-8")
    block = text.split("local jobs=(", 1)[1].split(")", 1)[0]
    return [line.strip().strip('"') for line in block.splitlines() if line.strip()]


def _with_imports(name):
    # A workload's source and that of the workload modules it imports (the
    # LM workloads and the PyTorch twins reuse their command lines).
    source = (WORKLOADS / name).read_text(encoding="utf-8")
    for module in re.findall(r"^import (\w+)", source, re.M):
        path = WORKLOADS / f"{module}.py"
        if path.is_file() and module != "_timing":
            source += _with_imports(path.name)
    return source


def test_gpu_bench_jobs_name_workloads_that_take_their_arguments():
    # A GPU lease is short: a renamed workload or option must fail here.
    jobs = _gpu_bench_jobs()
    assert len(jobs) == 4
    convnet = _load("convnet_step")
    for job in jobs:
        script, *args = job.split()
        options = [a for a in args if a.startswith("--")] + ["--device"]
        for name in (script, "torch_" + script):
            source = _with_imports(name)
            for option in options:
                assert f'"{option}"' in source, (name, option)
        positional = [a for a in args if not a.startswith("-") and not a.isdigit()]
        assert set(positional) <= set(convnet.ARCHS)
