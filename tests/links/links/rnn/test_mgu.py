import numpy
import pytest

import chainer
from chainer import testing
from chainer.links.rnn import mgu
from chainer.utils import type_check


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _affine(layer, x):
    return x @ layer.W.array.astype(numpy.float64).T + layer.b.array


def _mgu_reference(link, h, x):
    h = h.astype(numpy.float64)
    x = x.astype(numpy.float64)
    f = _sigmoid(_affine(link.W_f, numpy.concatenate([h, x], axis=1)))
    h_bar = numpy.tanh(_affine(link.W_h, numpy.concatenate([f * h, x], axis=1)))
    return (1 - f) * h + f * h_bar


def _random(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize("cls", [mgu.StatelessMGU, mgu.StatefulMGU])
def test_parameters(cls):
    link = cls(3, 4)
    names = sorted(name for name, _ in link.namedparams())
    assert names == ["/W_f/W", "/W_f/b", "/W_h/W", "/W_h/b"]
    assert link.W_f.W.shape == (4, 7)
    assert link.W_h.W.shape == (4, 7)


def test_stateless_forward():
    link = mgu.StatelessMGU(3, 4)
    h = _random(2, 4)
    x = _random(2, 3)
    testing.assert_allclose(link(h, x).array, _mgu_reference(link, h, x))


def test_stateless_backward(helpers):
    link = mgu.StatelessMGU(2, 3)
    h = _random(2, 3, dtype=numpy.float64)
    x = _random(2, 2, dtype=numpy.float64)
    gy = _random(2, 3, dtype=numpy.float64)
    helpers.check_backward(link, link, (h, x), gy)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_stateful_steps(dtype):
    with chainer.using_config("dtype", dtype):
        link = mgu.StatefulMGU(3, 4)
    h = numpy.zeros((2, 4))
    tol = {"atol": 5e-3, "rtol": 5e-2} if dtype == numpy.float16 else {}
    for _ in range(3):
        x = _random(2, 3, dtype=dtype)
        y = link(x)
        h = _mgu_reference(link, h, x)
        assert y.dtype == dtype
        testing.assert_allclose(y.array, h, **tol)
        assert link.h is y
    link.reset_state()
    assert link.h is None


def test_stateful_set_state():
    link = mgu.StatefulMGU(3, 4)
    h = chainer.Variable(_random(2, 4))
    link.set_state(h)
    x = _random(2, 3)
    testing.assert_allclose(link(x).array, _mgu_reference(link, h.array, x))
    with pytest.raises(TypeError):
        link.set_state(h.array)


def test_stateful_backward(helpers):
    helpers.check_two_steps_backward(mgu.StatefulMGU(2, 3))


def test_wrong_input_size_is_an_error():
    with pytest.raises(type_check.InvalidType):
        mgu.StatefulMGU(3, 4)(_random(2, 5))


@pytest.mark.parametrize("cls", [mgu.StatelessMGU, mgu.StatefulMGU])
def test_serialization_round_trip(helpers, cls):
    helpers.check_serialization_round_trip(cls(3, 4), cls(3, 4))
