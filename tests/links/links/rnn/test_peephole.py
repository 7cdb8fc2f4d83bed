import numpy
import pytest

import chainer
from chainer import testing
from chainer.links.rnn import peephole
from chainer.utils import type_check


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _w(layer):
    return layer.W.array.astype(numpy.float64)


def _peephole_reference(link, c, h, x):
    z = x @ _w(link.upward).T + link.upward.b.array
    if h is not None:
        z = z + h @ _w(link.lateral).T
    r = z.reshape(len(z), -1, 4)
    if c is None:
        c = numpy.zeros(r.shape[:2])
    a = numpy.tanh(r[:, :, 0])
    i = _sigmoid(r[:, :, 1] + c @ _w(link.peep_i).T)
    f = _sigmoid(r[:, :, 2] + c @ _w(link.peep_f).T)
    c = a * i + f * c
    o = _sigmoid(r[:, :, 3] + c @ _w(link.peep_o).T)
    return c, o * numpy.tanh(c)


def _random(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def test_parameters():
    link = peephole.StatefulPeepholeLSTM(3, 4)
    names = sorted(name for name, _ in link.namedparams())
    assert names == [
        "/lateral/W",
        "/peep_f/W",
        "/peep_i/W",
        "/peep_o/W",
        "/upward/W",
        "/upward/b",
    ]
    assert link.upward.W.shape == (16, 3)
    assert link.lateral.W.shape == (16, 4)
    assert link.peep_i.W.shape == (4, 4)


def test_steps_match_reference():
    link = peephole.StatefulPeepholeLSTM(3, 4)
    c = h = None
    for _ in range(3):
        x = _random(2, 3)
        y = link(x)
        c, h = _peephole_reference(link, c, h, x)
        testing.assert_allclose(y.array, h)
        testing.assert_allclose(link.c.array, c)
        assert link.h is y
    link.reset_state()
    assert link.c is None
    assert link.h is None


def test_set_state():
    link = peephole.StatefulPeepholeLSTM(3, 4)
    c = chainer.Variable(_random(2, 4))
    h = chainer.Variable(_random(2, 4))
    link.set_state(c, h)
    x = _random(2, 3)
    _, h_ref = _peephole_reference(link, c.array, h.array, x)
    testing.assert_allclose(link(x).array, h_ref)
    with pytest.raises(TypeError):
        link.set_state(c.array, h.array)


def test_backward(helpers):
    helpers.check_two_steps_backward(peephole.StatefulPeepholeLSTM(2, 3))


def test_wrong_input_size_is_an_error():
    with pytest.raises(type_check.InvalidType):
        peephole.StatefulPeepholeLSTM(3, 4)(_random(2, 5))


def test_serialization_round_trip(helpers):
    src = peephole.StatefulPeepholeLSTM(3, 4)
    helpers.check_serialization_round_trip(src, peephole.StatefulPeepholeLSTM(3, 4))
