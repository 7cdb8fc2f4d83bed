"""chainer-cpu's plugin: what it registers, and the core hooks it takes over."""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import plugins
from chainer.functions.connection import convolution_2d
from chainer.functions.connection import convolution_nd
from chainer.functions.connection import deconvolution_2d
from chainer.functions.connection import deconvolution_nd
from chainer.utils import _parallel as core_cpu
from chainer_cpu import _onednn
from chainer_cpu import _parallel
from chainer_cpu.functions.connection import convolution_nd as cpu_conv
from chainer_cpu.functions.connection import deconvolution_nd as cpu_deconv


@pytest.mark.parametrize(
    ("node_class", "kernel"),
    [
        (convolution_nd.ConvolutionND, cpu_conv.convolution),
        (convolution_2d.Convolution2DFunction, cpu_conv.convolution),
        (convolution_nd.ConvolutionNDGradW, cpu_conv.convolution_grad_weight),
        (deconvolution_nd.DeconvolutionND, cpu_deconv.deconvolution),
        (deconvolution_2d.Deconvolution2DFunction, cpu_deconv.deconvolution),
    ],
)
def test_kernels_registered_for_numpy(cpu_plugin, node_class, kernel):
    assert plugins.get_kernel(node_class, "numpy") is kernel


def test_the_plugin_is_listed_with_its_version(cpu_plugin):
    (info,) = [p for p in plugins.list_plugins() if p.name == "cpu"]
    assert info.version == "7.9.0"


def test_convolution_runs_the_kernel_only_while_registered(cpu_plugin, monkeypatch):
    ran = []
    for module, name in [(cpu_conv, "convolution_forward"), (_onednn, "forward")]:
        engine = getattr(module, name)

        def spy(*args, engine=engine, **kwargs):
            ran.append(engine.__module__)
            return engine(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((3, 4, 6, 6)).astype(numpy.float32)
    W = rng.standard_normal((6, 2, 3, 3)).astype(numpy.float32)
    fast = F.convolution_2d(x, W, pad=1, groups=2).array
    assert len(ran) == 1  # one engine of the kernel
    plugins.unregister("cpu")
    try:
        reference = F.convolution_2d(x, W, pad=1, groups=2).array
    finally:
        plugins.register(cpu_plugin, name="cpu")
    assert len(ran) == 1
    numpy.testing.assert_allclose(fast, reference, rtol=1e-5, atol=1e-5)


def test_core_hooks_reach_the_plugin(cpu_plugin, monkeypatch):
    monkeypatch.setitem(_parallel._state, "configured", False)
    monkeypatch.setitem(_parallel._state, "team", None)
    monkeypatch.setitem(_parallel._state, "governor", None)
    monkeypatch.setenv("CHAINER_CPU_PARALLEL", "off")
    core_cpu.engage()
    assert _parallel._state["configured"] is True
    assert core_cpu.describe_threads().startswith("off (CHAINER_CPU_PARALLEL); GEMM: ")


def test_core_hooks_without_the_plugin():
    assert "cpu" not in {p.name for p in plugins.list_plugins()}
    assert "chainer-cpu plugin is not loaded" in core_cpu.describe_threads()
    core_cpu.engage()  # the retention only; no error


def test_a_training_step_engages_the_plugin(cpu_plugin, monkeypatch):
    monkeypatch.setitem(_parallel._state, "configured", False)
    monkeypatch.setitem(_parallel._state, "team", None)
    monkeypatch.setitem(_parallel._state, "governor", None)
    monkeypatch.setenv("CHAINER_CPU_PARALLEL", "off")
    model = chainer.links.Linear(3, 2)
    optimizer = chainer.optimizers.SGD()
    optimizer.setup(model)
    x = numpy.ones((2, 3), numpy.float32)
    optimizer.update(lambda: F.sum(model(x)))
    assert _parallel._state["configured"] is True
