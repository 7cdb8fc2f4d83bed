import inspect
import subprocess
import sys
import textwrap
import unittest

import numpy
import pytest

import chainer
from chainer import backend
from chainer import testing


@testing.inject_backend_tests(["test_device"], [{}, {"use_cuda": True}])
class TestInjected(unittest.TestCase):
    def test_device(self, backend_config):
        assert isinstance(backend_config, testing.BackendConfig)
        if backend_config.use_cuda:
            expected = backend.get_device("@cupy:0")
        else:
            expected = backend.CpuDevice()
        assert backend_config.device == expected
        with backend_config:
            assert chainer.config.use_cudnn == "never"

    def test_plain(self):
        # Methods not named in method_names are left as they are: no
        # backend_config parameter is injected into them.
        params = inspect.signature(type(self).test_plain).parameters
        assert list(params) == ["self"]


@testing.inject_backend_tests(None, testing.product({"use_cudnn": ["never", "always"]}))
class TestPytestStyleInjected:
    def test_config(self, backend_config):
        assert backend_config.use_cudnn in ("never", "always")


@testing.inject_backend_tests(None, [{}])
@testing.parameterize({"k": 1}, {"k": 2})
class TestInjectAfterParameterize(unittest.TestCase):
    def test_k(self, backend_config):
        assert self.k in (1, 2)
        assert backend_config.xp is numpy


_CPU = testing.BackendConfig({}).get_func_str()
_GPU = testing.BackendConfig({"use_cuda": True}).get_func_str()


def _marks(method):
    return [m.name for m in getattr(method, "pytestmark", [])]


def test_inject_after_parameterize_expands_every_class():
    names = sorted(k for k in globals() if k.startswith("TestInjectAfterParameterize_"))
    assert names == [
        f"TestInjectAfterParameterize_param_0_{{k=1}}_{_CPU}",
        f"TestInjectAfterParameterize_param_1_{{k=2}}_{_CPU}",
    ]
    for name in names:
        assert callable(globals()[name].test_k)


def test_one_class_per_configuration():
    # Chainer 7: class <Name>_<config.get_func_str()> per configuration; with
    # method_names, the other methods run once in a class keeping the name.
    assert not isinstance(TestInjected, type)
    base = globals()["TestInjected"]
    assert base.cases[0][0] == "TestInjected"
    plain = base.cases[0][1]
    assert plain.test_device is None
    assert callable(plain.test_plain)
    cpu = globals()[f"TestInjected_{_CPU}"]
    gpu = globals()[f"TestInjected_{_GPU}"]
    assert callable(cpu.test_device)
    assert callable(gpu.test_device)
    # The per-configuration classes leave the other methods out.
    assert cpu.test_plain is None
    assert gpu.test_plain is None
    assert list(inspect.signature(cpu.test_device).parameters) == ["self"]
    names = sorted(k for k in globals() if k.startswith("TestPytestStyleInjected_"))
    always = _CPU.replace("use_cudnn_never", "use_cudnn_always")
    assert set(names) == {
        f"TestPytestStyleInjected_{_CPU}",
        f"TestPytestStyleInjected_{always}",
    }


def test_gpu_config_is_marked_and_skipped_without_cuda():
    from chainer.backends import cuda

    cls = globals()[f"TestInjected_{_GPU}"]
    assert "gpu" in _marks(cls.test_device)
    assert "gpu" not in _marks(globals()[f"TestInjected_{_CPU}"].test_device)
    if not cuda.available:
        with pytest.raises(unittest.SkipTest, match="CUDA"):
            cls("test_device").test_device()


def test_configuration_markers():
    def marks(params):
        config = testing.BackendConfig(params)
        names = set()
        for mark in config.get_pytest_marks():

            def test_stub():
                pass

            names.update(_marks(mark(test_stub)))
        return sorted(names - {"skip", "skipif"})

    assert marks({}) == []
    assert marks({"use_cuda": True}) == ["gpu"]
    assert marks({"use_cuda": True, "use_cudnn": "always"}) == ["cudnn", "gpu"]
    assert marks({"use_ideep": "always"}) == ["ideep"]
    assert marks({"use_chainerx": True, "chainerx_device": "native:0"}) == ["chainerx"]
    assert marks({"use_chainerx": True, "chainerx_device": "cuda:0"}) == [
        "chainerx",
        "gpu",
    ]


def test_markers_deselect_variants(tmp_path):
    (tmp_path / "test_variants.py").write_text(
        textwrap.dedent(
            """
            import unittest
            from chainer import testing

            @testing.inject_backend_tests(
                None,
                [{}, {"use_ideep": "always"}, {"use_cuda": True},
                 {"use_chainerx": True, "chainerx_device": "native:0"}])
            class TestX(unittest.TestCase):
                def test_a(self, backend_config):
                    pass
            """
        )
    )
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            *("-m", "not ideep and not gpu and not chainerx", "test_variants.py"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed, 3 deselected" in proc.stdout


def test_backend_config_defaults_and_repr():
    config = testing.BackendConfig({})
    assert config.use_cuda is False
    assert config.use_cudnn == "never"
    assert config.xp is numpy
    assert config.get_func_str() == (
        "use_chainerx_false__chainerx_device_None__use_cuda_false__"
        "cuda_device_None__use_cudnn_never__cudnn_deterministic_false__"
        "autotune_false__cudnn_fast_batch_normalization_false__use_ideep_never"
    )
    assert config.get_pytest_marks() == []
    assert config.skip_reason() is None
    assert repr(config).startswith("<BackendConfig use_chainerx=False")
    x = numpy.ones(2)
    assert config.get_array(x) is x
    assert config.get_array((x, [x])) == (x, [x])


def test_backend_config_cuda_fields():
    config = testing.BackendConfig({"use_cuda": True, "use_cudnn": "always"})
    assert config.cuda_device == 0
    assert "__use_cuda_true__cuda_device_0__use_cudnn_always__" in config.get_func_str()
    assert len(config.get_pytest_marks()) == 2


@testing.inject_backend_tests(None, [{"autotune": True}])
@testing.inject_backend_tests(None, [{}, {"use_cudnn": "always"}])
class TestStackedInjection(unittest.TestCase):
    def test_pair(self, backend_config0, backend_config1):
        # The innermost decorator's configuration comes first.
        assert backend_config0.autotune is False
        assert backend_config1.autotune is True


def test_stacked_injections_pass_one_configuration_each():
    names = sorted(k for k in globals() if k.startswith("TestStackedInjection_"))
    assert len(names) == 2
    auto = testing.BackendConfig({"autotune": True}).get_func_str()
    for name in names:
        assert name.endswith(f"_{auto}")
        cls = globals()[name]
        assert list(inspect.signature(cls.test_pair).parameters) == ["self"]
        cls("test_pair").test_pair()


def test_backend_config_context_restores_config():
    config = testing.BackendConfig({"autotune": True})
    before = chainer.config.autotune
    with config:
        assert chainer.config.autotune is True
    assert chainer.config.autotune == before


def test_unsupported_backends_are_skipped():
    chx = testing.BackendConfig({"use_chainerx": True, "chainerx_device": "native:0"})
    assert "ChainerX" in chx.skip_reason()
    ideep = testing.BackendConfig({"use_ideep": "always"})
    assert "iDeep" in ideep.skip_reason()


def test_bad_input():
    with pytest.raises(TypeError, match="dict"):
        testing.BackendConfig([])
    with pytest.raises(ValueError, match="not defined"):
        testing.BackendConfig({"use_tpu": True})
    with pytest.raises(ValueError, match="chainerx_device"):
        testing.BackendConfig({"use_chainerx": True})
    with pytest.raises(TypeError, match="method_names"):
        testing.inject_backend_tests("test_x", [{}])
    with pytest.raises(TypeError, match="list of dicts"):
        testing.inject_backend_tests(None, {})

    class Case(unittest.TestCase):
        pass

    with pytest.raises(ValueError, match="no test method"):
        testing.inject_backend_tests(["test_missing"], [{}])(Case)
