import numpy
import pytest

import chainer
from chainer import backend
from chainer import initializers


def test_default_dtype_follows_config():
    a = initializers.generate_array(initializers.One(), (2, 3), numpy)
    assert a.dtype == numpy.float32
    assert a.shape == (2, 3)
    numpy.testing.assert_array_equal(a, 1)
    with chainer.using_config("dtype", numpy.float16):
        assert initializers.generate_array(initializers.Zero(), 4, numpy).dtype == (
            numpy.float16
        )
        assert initializers._default_dtype() == numpy.float16
    with chainer.using_config("dtype", chainer.mixed16):
        a = initializers.generate_array(initializers.Zero(), 2, numpy)
        assert a.dtype == numpy.float16


def test_dtype_sources():
    a = initializers.generate_array(initializers.Zero(numpy.float64), (2,), numpy)
    assert a.dtype == numpy.float64
    a = initializers.generate_array(initializers.Zero(), (2,), numpy, dtype="f2")
    assert a.dtype == numpy.float16
    a = initializers.generate_array(
        initializers.Zero(numpy.float64), (2,), numpy, dtype=numpy.float64
    )
    assert a.dtype == numpy.float64


def test_dtype_mismatch():
    with pytest.raises(ValueError, match="dtype mismatch"):
        initializers.generate_array(
            initializers.Zero(numpy.float64), (2,), numpy, dtype=numpy.float32
        )


def test_device_argument():
    a = initializers.generate_array(
        initializers.One(), (2,), numpy, device=backend.CpuDevice()
    )
    assert isinstance(a, numpy.ndarray)
    a = initializers.generate_array(initializers.One(), (2,), numpy, device="@numpy")
    numpy.testing.assert_array_equal(a, [1, 1])


def test_xp_device_mismatch():
    class FakeXp:
        __name__ = "fakexp"

    with pytest.raises(ValueError, match="inconsistent"):
        initializers.generate_array(initializers.One(), (2,), FakeXp(), device="@numpy")


def test_not_callable():
    with pytest.raises(TypeError, match="initializer must be callable"):
        initializers.generate_array(3.0, (2,), numpy)


def test_get_initializer():
    assert isinstance(initializers._get_initializer(None), initializers.LeCunNormal)
    const = initializers._get_initializer(2.0)
    assert isinstance(const, initializers.Constant)
    assert const.fill_value == 2.0
    arr = numpy.ones(3)
    assert initializers._get_initializer(arr).fill_value is arr
    assert isinstance(
        initializers._get_initializer(numpy.float32(1)), initializers.Constant
    )
    init = initializers.HeNormal()
    assert initializers._get_initializer(init) is init
    with pytest.raises(TypeError, match="invalid type of initializer"):
        initializers._get_initializer("he")


def test_public_names():
    names = {
        "Constant",
        "DownsamplingConvFilter",
        "GlorotNormal",
        "GlorotUniform",
        "HeNormal",
        "HeUniform",
        "Identity",
        "LeCunNormal",
        "LeCunUniform",
        "NaN",
        "Normal",
        "One",
        "Orthogonal",
        "Uniform",
        "UpsamplingDeconvFilter",
        "Zero",
        "generate_array",
    }
    assert names <= set(dir(initializers))


def test_parameter_uses_initializers():
    p = chainer.Parameter(initializers.Constant(3.0), (2, 2))
    numpy.testing.assert_array_equal(p.array, 3)
    lazy = chainer.Parameter(initializers.HeNormal(dtype=numpy.float64))
    assert lazy.dtype == numpy.float64
    lazy.initialize((3, 4))
    assert lazy.array.shape == (3, 4)
