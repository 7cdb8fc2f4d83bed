import numpy
import pytest

import chainer
from chainer import initializers
from chainer import serializers
from chainer import testing
from chainer.links.rnn import lstm
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tolerance(dtype):
    return {"atol": 5e-3, "rtol": 5e-2} if dtype == numpy.float16 else {}


@pytest.mark.parametrize("dtype", _FLOATS)
def test_steps_match_reference(helpers, dtype):
    with chainer.using_config("dtype", dtype):
        link = lstm.LSTM(3, 4)
    xs = [numpy.random.uniform(-1, 1, (2, 3)).astype(dtype) for _ in range(3)]
    c = h = None
    for x in xs:
        y = link(x)
        c, h = helpers.lstm_step(link, c, h, x)
        assert y.dtype == dtype
        testing.assert_allclose(y.array, h, **_tolerance(dtype))
        testing.assert_allclose(link.c.array, c, **_tolerance(dtype))
    assert link.h is y


def test_default_initialization():
    link = lstm.LSTM(3, 5)
    b = link.upward.b.array
    numpy.testing.assert_array_equal(b.reshape(5, 4)[:, 2], 1)
    numpy.testing.assert_array_equal(b.reshape(5, 4)[:, [0, 1, 3]], 0)
    assert link.upward.W.shape == (20, 3)
    assert link.lateral.W.shape == (20, 5)
    assert link.lateral.b is None
    assert numpy.abs(link.upward.W.array).sum() > 0
    assert numpy.abs(link.lateral.W.array).sum() > 0
    assert link.state_size == 5
    assert link.c is None
    assert link.h is None


def test_initializers():
    upward = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    link = lstm.LSTM(
        3,
        2,
        lateral_init=initializers.Constant(0.5),
        upward_init=upward,
        bias_init=0.25,
        forget_bias_init=-2.0,
    )
    # Each initializer fills one (H, in) block of rows at a time.
    numpy.testing.assert_array_equal(link.upward.W.array, numpy.tile(upward, (4, 1)))
    numpy.testing.assert_array_equal(link.lateral.W.array, 0.5)
    numpy.testing.assert_array_equal(link.upward.b.array, [0.25, 0.25, -2.0, 0.25] * 2)


@pytest.mark.parametrize("args", [(4,), (None, 4)])
def test_lazy_in_size(args):
    link = lstm.LSTM(*args, lateral_init=0.5, upward_init=0.25, forget_bias_init=3)
    assert link.upward.W.array is None
    assert link.state_size == 4
    x = numpy.ones((2, 3, 2), numpy.float32)  # flattened to 6 inputs
    y = link(x)
    assert y.shape == (2, 4)
    numpy.testing.assert_array_equal(link.upward.W.array, 0.25)
    assert link.upward.W.shape == (16, 6)
    assert link.upward.in_size == 6
    numpy.testing.assert_array_equal(link.lateral.W.array, 0.5)
    numpy.testing.assert_array_equal(link.upward.b.array.reshape(4, 4)[:, 2], 3)


def test_parameter_names():
    link = lstm.LSTM(3, 4)
    names = sorted(name for name, _ in link.namedparams())
    assert names == ["/lateral/W", "/upward/W", "/upward/b"]


def test_shrinking_batch_keeps_the_rest_of_the_state(helpers):
    link = lstm.LSTM(3, 4)
    x0 = numpy.random.uniform(-1, 1, (3, 3)).astype(numpy.float32)
    x1 = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    link(x0)
    c0 = link.c.array.copy()
    h0 = link.h.array.copy()
    y = link(x1)
    c, h = helpers.lstm_step(link, c0[:2], h0[:2], x1)
    assert y.shape == (2, 4)
    testing.assert_allclose(y.array, h)
    testing.assert_allclose(link.h.array[:2], h)
    testing.assert_allclose(link.c.array[:2], c)
    numpy.testing.assert_array_equal(link.h.array[2:], h0[2:])
    numpy.testing.assert_array_equal(link.c.array[2:], c0[2:])

    # An empty batch changes nothing.
    h_before = link.h
    c_before = link.c.array.copy()
    y = link(numpy.zeros((0, 3), numpy.float32))
    assert y.shape == (0, 4)
    assert link.h is h_before
    numpy.testing.assert_array_equal(link.c.array, c_before)


def test_shrinking_batch_backward():
    link = lstm.LSTM(2, 3)
    x0 = chainer.Variable(numpy.random.randn(3, 2).astype(numpy.float32))
    x1 = chainer.Variable(numpy.random.randn(2, 2).astype(numpy.float32))
    link(x0)
    link(x1)
    chainer.functions.sum(link.h).backward()
    assert x0.grad.shape == (3, 2)
    assert x1.grad.shape == (2, 2)
    assert link.lateral.W.grad is not None


def test_growing_batch_is_an_error():
    link = lstm.LSTM(3, 4)
    link(numpy.zeros((2, 3), numpy.float32))
    with pytest.raises(TypeError, match="batch size"):
        link(numpy.zeros((3, 3), numpy.float32))


def test_wrong_input_size_is_an_error():
    link = lstm.LSTM(3, 4)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 5), numpy.float32))
    stateless = lstm.StatelessLSTM(3, 4)
    with pytest.raises(type_check.InvalidType):
        stateless(None, None, numpy.zeros((2, 5), numpy.float32))
    h = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        stateless(None, h, numpy.zeros((2, 3), numpy.float32))


def test_reset_state():
    link = lstm.LSTM(3, 4)
    x = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    y0 = link(x).array
    link(x)
    link.reset_state()
    assert link.c is None
    assert link.h is None
    numpy.testing.assert_array_equal(link(x).array, y0)


def test_set_state(helpers):
    link = lstm.LSTM(3, 4)
    c = chainer.Variable(numpy.random.randn(2, 4).astype(numpy.float32))
    h = chainer.Variable(numpy.random.randn(2, 4).astype(numpy.float32))
    link.set_state(c, h)
    x = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    y = link(x)
    c_ref, h_ref = helpers.lstm_step(link, c.array, h.array, x)
    testing.assert_allclose(y.array, h_ref)
    testing.assert_allclose(link.c.array, c_ref)
    with pytest.raises(TypeError):
        link.set_state(c.array, h.array)


def test_visitor_sees_the_state():
    link = lstm.LSTM(3, 4)
    link(numpy.zeros((2, 3), numpy.float32))
    seen = []

    class Visitor(chainer.device_resident.DeviceResidentsVisitor):
        def visit_variable(self, param):
            seen.append(param)

    link.device_resident_accept(Visitor())
    assert any(v is link.c for v in seen)
    assert any(v is link.h for v in seen)
    link.to_device("@numpy")
    assert isinstance(link.c.array, numpy.ndarray)


def test_backward_through_steps(helpers):
    helpers.check_two_steps_backward(lstm.LSTM(2, 3), atol=1e-5)


def test_serialization_round_trip(helpers):
    src = lstm.LSTM(3, 4)
    dst = lstm.LSTM(None, 4)
    helpers.check_serialization_round_trip(src, dst)
    x = numpy.ones((2, 3), numpy.float32)
    numpy.testing.assert_array_equal(src(x).array, dst(x).array)


def test_npz_keys(tmp_path):
    path = str(tmp_path / "lstm.npz")
    serializers.save_npz(path, lstm.LSTM(3, 4))
    with numpy.load(path) as npz:
        assert sorted(npz.files) == ["lateral/W", "upward/W", "upward/b"]


def test_stateless_lstm_matches_reference(helpers):
    link = lstm.StatelessLSTM(3, 4)
    x = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    c, h = link(None, None, x)
    c_ref, h_ref = helpers.lstm_step(link, None, None, x)
    testing.assert_allclose(c.array, c_ref)
    testing.assert_allclose(h.array, h_ref)
    c2, h2 = link(c, h, x)
    c_ref, h_ref = helpers.lstm_step(link, c_ref, h_ref, x)
    testing.assert_allclose(c2.array, c_ref)
    testing.assert_allclose(h2.array, h_ref)


def test_stateless_lstm_backward(helpers):
    link = lstm.StatelessLSTM(2, 3)
    c = numpy.random.uniform(-1, 1, (2, 3))
    h = numpy.random.uniform(-1, 1, (2, 3))
    x = numpy.random.uniform(-1, 1, (2, 2))
    gys = (numpy.random.uniform(-1, 1, (2, 3)), numpy.random.uniform(-1, 1, (2, 3)))
    helpers.check_backward(link, link, (c, h, x), gys)


def test_stateless_lstm_lazy_and_serialization():
    src = lstm.StatelessLSTM(4)
    src(None, None, numpy.ones((1, 2), numpy.float32))
    dst = lstm.StatelessLSTM(2, 4)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(src.upward.W.array, dst.upward.W.array)
    numpy.testing.assert_array_equal(src.lateral.W.array, dst.lateral.W.array)
