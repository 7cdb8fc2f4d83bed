import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.links.rnn import zoneout
from chainer.utils import type_check


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _lstm_reference(link, c, h, x):
    z = x @ link.upward.W.array.T + link.upward.b.array
    if h is not None:
        z = z + h @ link.lateral.W.array.T
    r = z.reshape(len(z), -1, 4)
    if c is None:
        c = numpy.zeros(r.shape[:2])
    c = numpy.tanh(r[:, :, 0]) * _sigmoid(r[:, :, 1]) + _sigmoid(r[:, :, 2]) * c
    return c, _sigmoid(r[:, :, 3]) * numpy.tanh(c)


def _random(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def test_parameters():
    link = zoneout.StatefulZoneoutLSTM(3, 4, c_ratio=0.2, h_ratio=0.3)
    names = sorted(name for name, _ in link.namedparams())
    assert names == ["/lateral/W", "/upward/W", "/upward/b"]
    assert link.c_ratio == 0.2
    assert link.h_ratio == 0.3
    assert link.upward.W.shape == (16, 3)


@pytest.mark.parametrize(
    ("train", "ratio"), [(False, 0.5), (True, 0.0)], ids=["test-mode", "no-zoneout"]
)
def test_without_zoneout_it_is_an_lstm(train, ratio):
    link = zoneout.StatefulZoneoutLSTM(3, 4, c_ratio=ratio, h_ratio=ratio)
    c = h = None
    with chainer.using_config("train", train):
        for _ in range(3):
            x = _random(2, 3)
            y = link(x)
            c, h = _lstm_reference(link, c, h, x)
            testing.assert_allclose(y.array, h)
            testing.assert_allclose(link.c.array, c)


def test_full_zoneout_keeps_the_state():
    link = zoneout.StatefulZoneoutLSTM(3, 4, c_ratio=1.0, h_ratio=1.0)
    for _ in range(2):
        y = link(_random(2, 3))
        numpy.testing.assert_array_equal(y.array, 0)
        numpy.testing.assert_array_equal(link.c.array, 0)


def test_zoneout_mixes_old_and_new():
    link = zoneout.StatefulZoneoutLSTM(3, 50, c_ratio=0.5, h_ratio=0.5)
    y = link(numpy.ones((4, 3), numpy.float32))
    zero = y.array == 0
    assert zero.any()
    assert (~zero).any()


def test_reset_and_set_state():
    link = zoneout.StatefulZoneoutLSTM(3, 4, c_ratio=0.0, h_ratio=0.0)
    c = chainer.Variable(_random(2, 4))
    h = chainer.Variable(_random(2, 4))
    link.set_state(c, h)
    x = _random(2, 3)
    _, h_ref = _lstm_reference(link, c.array, h.array, x)
    testing.assert_allclose(link(x).array, h_ref)
    link.reset_state()
    assert link.c is None
    assert link.h is None
    with pytest.raises(TypeError):
        link.set_state(c.array, h.array)


def test_backward():
    link = zoneout.StatefulZoneoutLSTM(2, 3, c_ratio=0.0, h_ratio=0.0)
    for p in link.params():
        p.array = p.array.astype(numpy.float64)
    xs = [_random(2, 2, dtype=numpy.float64) for _ in range(2)]
    gy = _random(2, 3, dtype=numpy.float64)

    def f(x0, x1):
        link.reset_state()
        link(x0)
        return link(x1)

    gradient_check.check_backward(
        f, xs, gy, params=tuple(link.params()), dtype=numpy.float64
    )


def test_train_argument_is_rejected():
    with pytest.raises(ValueError, match="using_config"):
        zoneout.StatefulZoneoutLSTM(3, 4, train=True)
    with pytest.raises(TypeError):
        zoneout.StatefulZoneoutLSTM(3, 4, foo=1)


def test_wrong_input_size_is_an_error():
    with pytest.raises(type_check.InvalidType):
        zoneout.StatefulZoneoutLSTM(3, 4)(_random(2, 5))


def test_serialization_round_trip():
    src = zoneout.StatefulZoneoutLSTM(3, 4)
    dst = zoneout.StatefulZoneoutLSTM(3, 4)
    testing.save_and_load_npz(src, dst)
    for (name, p), (_, q) in zip(
        sorted(src.namedparams()), sorted(dst.namedparams()), strict=True
    ):
        numpy.testing.assert_array_equal(p.array, q.array, err_msg=name)
