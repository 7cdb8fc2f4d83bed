import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import initializers
from chainer import testing
from chainer.links.activation import maxout
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _maxout(x, W, b):
    out_size, pool_size, in_size = W.shape
    y = x.reshape(len(x), -1) @ W.reshape(-1, in_size).T
    if b is not None:
        y = y + b.reshape(-1)
    return y.reshape(len(x), out_size, pool_size).max(axis=2)


def _make(dtype, in_size=4, out_size=3, pool_size=2, nobias=False):
    W = numpy.random.uniform(-1, 1, (out_size, pool_size, in_size)).astype(dtype)
    b = None if nobias else numpy.random.uniform(-1, 1, (out_size, pool_size))
    with chainer.using_config("dtype", dtype):
        link = maxout.Maxout(in_size, out_size, pool_size, W, b)
    return link, W, b


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("nobias", [False, True])
@pytest.mark.parametrize("x_shape", [(5, 4), (5, 2, 2)])
def test_forward(dtype, nobias, x_shape):
    link, W, b = _make(dtype, nobias=nobias)
    x = numpy.random.uniform(-1, 1, x_shape).astype(dtype)
    y = link(x)
    assert y.shape == (5, 3)
    assert y.dtype == dtype
    expected = _maxout(x.astype("d"), W.astype("d"), b)
    tol = 1e-2 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize("nobias", [False, True])
def test_backward(nobias):
    link, _, _ = _make(numpy.float64, nobias=nobias)
    x = numpy.random.uniform(-1, 1, (5, 4))
    params = (link.linear.W,) if nobias else (link.linear.W, link.linear.b)
    gy = numpy.random.uniform(-1, 1, (5, 3))
    gradient_check.check_backward(link, x, gy, params=params, atol=1e-5, rtol=1e-4)


def test_parameters_keep_the_maxout_layout():
    link, W, b = _make(numpy.float32)
    assert link.out_size == 3
    assert link.pool_size == 2
    numpy.testing.assert_array_equal(link.linear.W.array, W.reshape(6, 4))
    testing.assert_allclose(link.linear.b.array, b.reshape(6))


def test_default_bias_is_zero():
    link = maxout.Maxout(4, 3, 2)
    assert link.linear.W.shape == (6, 4)
    numpy.testing.assert_array_equal(link.linear.b.array, numpy.zeros(6, "f"))
    assert maxout.Maxout(4, 3, 2, initial_bias=None).linear.b is None


def test_initializers_see_maxout_shapes():
    shapes = []

    def init_w(array):
        shapes.append(array.shape)
        array[...] = numpy.arange(array.size).reshape(array.shape)

    link = maxout.Maxout(4, 3, 2, initialW=init_w, initial_bias=initializers.One())
    assert shapes == [(3, 2, 4)]
    numpy.testing.assert_array_equal(
        link.linear.W.array, numpy.arange(24).reshape(6, 4)
    )
    numpy.testing.assert_array_equal(link.linear.b.array, numpy.ones(6))


def test_lazy_in_size():
    link = maxout.Maxout(None, 3, 2, initialW=initializers.One())
    y = link(numpy.ones((2, 5), numpy.float32))
    assert link.linear.W.shape == (6, 5)
    numpy.testing.assert_array_equal(y.array, numpy.full((2, 3), 5, "f"))


def test_bad_initial_arrays():
    with pytest.raises(ValueError, match="initialW.shape"):
        maxout.Maxout(4, 3, 2, initialW=numpy.zeros((6, 4), "f"))
    with pytest.raises(ValueError, match="initial_bias.shape"):
        maxout.Maxout(4, 3, 2, initial_bias=numpy.zeros(6, "f"))
    with pytest.raises(TypeError, match="initialW"):
        maxout.Maxout(4, 3, 2, initialW="zeros")


def test_wrong_input_size_is_invalid():
    link = maxout.Maxout(4, 3, 2)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 5), numpy.float32))


def test_serialization_round_trip():
    src, _, _ = _make(numpy.float32)
    dst = maxout.Maxout(4, 3, 2)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.linear.W.array, src.linear.W.array)
    numpy.testing.assert_array_equal(dst.linear.b.array, src.linear.b.array)
