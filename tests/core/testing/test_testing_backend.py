import inspect
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


def test_inject_after_parameterize_expands_every_class():
    names = sorted(k for k in globals() if k.startswith("TestInjectAfterParameterize_"))
    assert len(names) == 2
    for name in names:
        cls = globals()[name]
        assert cls.test_k is None
        assert callable(cls.test_k__cpu)


def test_injected_methods():
    assert TestInjected.test_device is None
    assert callable(TestInjected.test_device__cpu)
    assert callable(TestInjected.test_device__use_cuda_true__cuda_device_0)
    assert callable(TestInjected.test_plain)
    names = [n for n in dir(TestPytestStyleInjected) if n.startswith("test_config__")]
    assert names == ["test_config__cpu", "test_config__use_cudnn_always"]


def test_gpu_config_is_marked_and_skipped_without_cuda():
    from chainer.backends import cuda

    method = TestInjected.test_device__use_cuda_true__cuda_device_0
    assert "gpu" in [m.name for m in method.pytestmark]
    if not cuda.available:
        with pytest.raises(unittest.SkipTest, match="CUDA"):
            method(TestInjected("test_plain"))


def test_backend_config_defaults_and_repr():
    config = testing.BackendConfig({})
    assert config.use_cuda is False
    assert config.use_cudnn == "never"
    assert config.xp is numpy
    assert config.get_func_str() == "cpu"
    assert config.get_pytest_marks() == []
    assert config.skip_reason() is None
    assert repr(config).startswith("<BackendConfig use_chainerx=False")
    x = numpy.ones(2)
    assert config.get_array(x) is x
    assert config.get_array((x, [x])) == (x, [x])


def test_backend_config_cuda_fields():
    config = testing.BackendConfig({"use_cuda": True, "use_cudnn": "always"})
    assert config.cuda_device == 0
    assert config.get_func_str() == "use_cuda_true__cuda_device_0__use_cudnn_always"
    assert len(config.get_pytest_marks()) == 1


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
