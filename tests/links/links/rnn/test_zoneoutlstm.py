import numpy
import pytest

import chainer
from chainer import testing
from chainer.links.rnn import zoneoutlstm
from chainer.utils import type_check


def _random(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def test_parameters():
    link = zoneoutlstm.StatefulZoneoutLSTM(3, 4, c_ratio=0.2, h_ratio=0.3)
    names = sorted(name for name, _ in link.namedparams())
    assert names == ["/lateral/W", "/upward/W", "/upward/b"]
    assert link.c_ratio == 0.2
    assert link.h_ratio == 0.3
    assert link.upward.W.shape == (16, 3)


@pytest.mark.parametrize(
    ("train", "ratio"), [(False, 0.5), (True, 0.0)], ids=["test-mode", "no-zoneout"]
)
def test_without_zoneout_it_is_an_lstm(helpers, train, ratio):
    link = zoneoutlstm.StatefulZoneoutLSTM(3, 4, c_ratio=ratio, h_ratio=ratio)
    c = h = None
    with chainer.using_config("train", train):
        for _ in range(3):
            x = _random(2, 3)
            y = link(x)
            c, h = helpers.lstm_step(link, c, h, x)
            testing.assert_allclose(y.array, h)
            testing.assert_allclose(link.c.array, c)


def test_full_zoneout_keeps_the_state():
    link = zoneoutlstm.StatefulZoneoutLSTM(3, 4, c_ratio=1.0, h_ratio=1.0)
    for _ in range(2):
        y = link(_random(2, 3))
        numpy.testing.assert_array_equal(y.array, 0)
        numpy.testing.assert_array_equal(link.c.array, 0)


def test_zoneout_mixes_old_and_new():
    link = zoneoutlstm.StatefulZoneoutLSTM(3, 50, c_ratio=0.5, h_ratio=0.5)
    y = link(numpy.ones((4, 3), numpy.float32))
    zero = y.array == 0
    assert zero.any()
    assert (~zero).any()


def test_reset_and_set_state(helpers):
    link = zoneoutlstm.StatefulZoneoutLSTM(3, 4, c_ratio=0.0, h_ratio=0.0)
    c = chainer.Variable(_random(2, 4))
    h = chainer.Variable(_random(2, 4))
    link.set_state(c, h)
    x = _random(2, 3)
    _, h_ref = helpers.lstm_step(link, c.array, h.array, x)
    testing.assert_allclose(link(x).array, h_ref)
    link.reset_state()
    assert link.c is None
    assert link.h is None
    with pytest.raises(TypeError):
        link.set_state(c.array, h.array)


def test_backward(helpers):
    helpers.check_two_steps_backward(
        zoneoutlstm.StatefulZoneoutLSTM(2, 3, c_ratio=0.0, h_ratio=0.0)
    )


def test_train_argument_is_rejected():
    with pytest.raises(ValueError, match="using_config"):
        zoneoutlstm.StatefulZoneoutLSTM(3, 4, train=True)
    with pytest.raises(TypeError):
        zoneoutlstm.StatefulZoneoutLSTM(3, 4, foo=1)


def test_wrong_input_size_is_an_error():
    with pytest.raises(type_check.InvalidType):
        zoneoutlstm.StatefulZoneoutLSTM(3, 4)(_random(2, 5))


def test_serialization_round_trip(helpers):
    src = zoneoutlstm.StatefulZoneoutLSTM(3, 4)
    helpers.check_serialization_round_trip(src, zoneoutlstm.StatefulZoneoutLSTM(3, 4))
