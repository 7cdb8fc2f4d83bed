"""Module paths of Chainer 7 that chainer-core provides, with Chainer's names."""

import importlib
import subprocess
import sys
import typing
import warnings

import numpy
import pytest

import chainer
from chainer import _environment_check
from chainer import _version
from chainer import memory_layouts
from chainer import types

# -- paths -------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "chainer._backend",
        "chainer._backprop_utils",
        "chainer._environment_check",
        "chainer._version",
        "chainer.backends._chainerx",
        "chainer.backends._cpu",
        "chainer.backends.intel64",
        "chainer.cuda",
        "chainer.types",
        "chainer.warnings",
        "chainer.memory_layouts",
        "chainer.function_hooks.debug_print",
        "chainer.dataset.tabular._with_converter",
        "chainer.utils.argument",
        "chainer.utils.array",
        "chainer.utils.cache",
        "chainer.utils.conv_nd",
        "chainer.utils.conv_nd_kernel",
        "chainer.utils.error",
        "chainer.utils.experimental",
        "chainer.utils.imgproc",
        "chainer.utils.meta",
        "chainer.utils.nondeterministic",
        "chainer.utils.precision",
        "chainer.utils.walker_alias",
        "chainer.utils._collections",
        "chainerx",
    ],
)
def test_module_path_imports(path):
    module = importlib.import_module(path)
    assert module is sys.modules[path]


@pytest.mark.parametrize(
    "code",
    [
        "import chainer.cuda; chainer.cuda.get_device_from_id",
        "from chainer import cuda; cuda.get_device_from_id",
        "import chainer; chainer.cuda.get_device_from_id",
    ],
)
def test_chainer_cuda_is_backends_cuda_in_a_fresh_process(code):
    code += (
        "\nimport chainer, sys\n"
        "assert chainer.cuda is chainer.backends.cuda\n"
        "assert sys.modules['chainer.cuda'] is chainer.backends.cuda\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


def test_lazy_attributes_of_chainer():
    for name in ("types", "warnings", "memory_layouts", "_backend", "_backprop_utils"):
        assert getattr(chainer, name) is importlib.import_module(f"chainer.{name}")
    assert chainer.backends.intel64 is importlib.import_module(
        "chainer.backends.intel64"
    )


def test_basic_math_attribute():
    if importlib.util.find_spec("chainer.functions") is None:
        with pytest.raises(AttributeError, match="chainer-links"):
            chainer.basic_math  # noqa: B018
        assert not hasattr(chainer, "basic_math")
    else:
        from chainer.functions.math import basic_math

        assert chainer.basic_math is basic_math


def test_basic_math_without_chainer_links_names_the_distribution():
    code = (
        "import sys\n"
        "sys.modules['chainer.functions'] = None\n"
        "import chainer\n"
        "print(hasattr(chainer, 'basic_math'))\n"
        "try:\n"
        "    chainer.basic_math\n"
        "except AttributeError as e:\n"
        "    print(type(e).__name__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "AttributeError"]


# -- _version and _environment_check -------------------------------------------


def test_version():
    assert chainer.__version__ == _version.__version__
    assert all("packages" in dep for dep in _version._optional_dependencies)


def test_environment_check_runs_quietly_here():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _environment_check.check()


def test_version_specifier_comparison():
    assert _environment_check._satisfies("13.1.0", ">=13.0.0")
    assert not _environment_check._satisfies("12.3.0", ">=13.0.0")
    assert _environment_check._satisfies("7.8.1", ">=7.7.0,<8.0.0")
    assert not _environment_check._satisfies("8.0.0rc1", ">=7.7.0,<8.0.0")


def test_environment_check_warns_about_an_unsupported_version(monkeypatch):
    from importlib import metadata

    monkeypatch.setattr(
        _version,
        "_optional_dependencies",
        [{"name": "NumPy", "packages": ["numpy"], "specifier": ">=99", "help": "x"}],
    )
    with pytest.warns(
        UserWarning, match=r"NumPy \(numpy\) version .* may not be compatible"
    ):
        _environment_check._check_optional_dependencies()
    monkeypatch.setenv("CHAINER_WARN_VERSION_MISMATCH", "0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _environment_check._check_optional_dependencies()
    assert metadata.version("numpy")


# -- types, warnings, memory_layouts -------------------------------------------


def test_types():
    assert types.Shape == typing.Tuple[int, ...]  # noqa: UP006
    assert str in typing.get_args(types.DeviceSpec)
    assert types.AbstractInitializer in typing.get_args(types.InitializerSpec)


def test_performance_warning():
    assert issubclass(chainer.warnings.PerformanceWarning, RuntimeWarning)


def test_memory_layouts():
    assert memory_layouts.CUDNN_CHANNEL_FIRST_X is None
    assert memory_layouts.CUDNN_CHANNEL_LAST_X != memory_layouts.CUDNN_CHANNEL_LAST_W
    x = numpy.zeros((2, 3, 4, 5))
    raw = memory_layouts._transpose_array(x, None, memory_layouts.CUDNN_CHANNEL_LAST_X)
    assert raw.shape == (2, 4, 5, 3)
    back = memory_layouts._transpose_array(
        raw, memory_layouts.CUDNN_CHANNEL_LAST_X, None
    )
    assert back.shape == x.shape
    assert memory_layouts.get_semantic_shape(
        raw, assumed_layout=memory_layouts.CUDNN_CHANNEL_LAST_X
    ) == (2, 3, 4, 5)
    assert memory_layouts.get_raw_shape(chainer.Variable(x)) == x.shape
    assert memory_layouts.get_cudnn_tensor_layout_x(None) == "CUDNN_TENSOR_NCHW"
    with pytest.raises(ValueError, match="unknown memory layout"):
        memory_layouts.get_cudnn_tensor_layout_w("NHWC")


# -- names in existing modules -----------------------------------------------


def test_hdf5_available_flag():
    from chainer.serializers import hdf5

    assert hdf5._available is (importlib.util.find_spec("h5py") is not None)


def test_hdf5_available_is_false_without_h5py(monkeypatch):
    from chainer.serializers import hdf5

    monkeypatch.setitem(sys.modules, "h5py", None)
    assert hdf5._available is False
    with pytest.raises(RuntimeError, match="h5py"):
        hdf5.HDF5Serializer(None)


def test_check_is_initializer_like():
    from chainer import initializers

    for ok in (None, initializers.Zero(), lambda a: None, numpy.ones(2), 1.5):
        initializers._check_is_initializer_like(ok)
    with pytest.raises(TypeError, match="Initializer is of wrong type"):
        initializers._check_is_initializer_like(object())
    with pytest.raises(TypeError, match="Initializer is of wrong type"):
        initializers._check_is_initializer_like([1, 2])


def test_debug_print_module_and_with_converter():
    from chainer.dataset.tabular import _asmode
    from chainer.dataset.tabular import _with_converter
    from chainer.function_hooks import debug_print

    assert debug_print.PrintHook is chainer.function_hooks.PrintHook
    assert _with_converter._WithConverter is _asmode._WithConverter
