import numpy
import pytest

import chainer
from chainer import serializers
from chainer import testing
from chainer.links.rnn import gru
from chainer.utils import type_check


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _affine(layer, x):
    return x @ layer.W.array.astype(numpy.float64).T + layer.b.array


def _gru_reference(link, h, x):
    """The GRU step in float64 NumPy; ``h`` None means the stateful first step."""
    x = x.astype(numpy.float64)
    z_in = _affine(link.W_z, x)
    h_in = _affine(link.W, x)
    if h is None:
        return _sigmoid(z_in) * numpy.tanh(h_in)
    r = _sigmoid(_affine(link.W_r, x) + _affine(link.U_r, h))
    z = _sigmoid(z_in + _affine(link.U_z, h))
    h_bar = numpy.tanh(h_in + _affine(link.U, r * h))
    return (1 - z) * h + z * h_bar


def _random(*shape):
    return numpy.random.uniform(-1, 1, shape).astype(numpy.float32)


_NAMES = ["/U/W", "/U/b", "/U_r/W", "/U_r/b", "/U_z/W", "/U_z/b", "/W/W", "/W/b"]
_NAMES += ["/W_r/W", "/W_r/b", "/W_z/W", "/W_z/b"]


@pytest.mark.parametrize("cls", [gru.StatelessGRU, gru.StatefulGRU, gru.GRU])
def test_parameters(cls):
    link = cls(3, 4, init=0.5, inner_init=0.25, bias_init=0.125)
    assert sorted(name for name, _ in link.namedparams()) == sorted(_NAMES)
    assert link.W_r.W.shape == (4, 3)
    assert link.U_r.W.shape == (4, 4)
    numpy.testing.assert_array_equal(link.W.W.array, 0.5)
    numpy.testing.assert_array_equal(link.U_z.W.array, 0.25)
    numpy.testing.assert_array_equal(link.U.b.array, 0.125)


@pytest.mark.parametrize("cls", [gru.StatelessGRU, gru.StatefulGRU])
def test_default_bias_is_zero(cls):
    link = cls(3, 4)
    for layer in (link.W_r, link.U_r, link.W_z, link.U_z, link.W, link.U):
        numpy.testing.assert_array_equal(layer.b.array, 0)


def test_stateless_forward():
    link = gru.StatelessGRU(3, 4)
    h = _random(2, 4)
    x = _random(2, 3)
    testing.assert_allclose(link(h, x).array, _gru_reference(link, h, x))


def test_stateless_backward(helpers):
    link = gru.StatelessGRU(2, 3)
    h = numpy.random.uniform(-1, 1, (2, 3))
    x = numpy.random.uniform(-1, 1, (2, 2))
    gy = numpy.random.uniform(-1, 1, (2, 3))
    helpers.check_backward(link, link, (h, x), gy)


@pytest.mark.parametrize("cls", [gru.StatefulGRU, gru.GRU])
def test_stateful_steps(cls):
    link = cls(3, 4)
    h = None
    for _ in range(3):
        x = _random(2, 3)
        y = link(x)
        h = _gru_reference(link, h, x)
        testing.assert_allclose(y.array, h)
        assert link.h is y
    link.reset_state()
    assert link.h is None


def test_stateful_set_state():
    link = gru.StatefulGRU(3, 4)
    h = chainer.Variable(_random(2, 4))
    link.set_state(h)
    x = _random(2, 3)
    testing.assert_allclose(link(x).array, _gru_reference(link, h.array, x))
    with pytest.raises(TypeError):
        link.set_state(h.array)


def test_stateful_backward(helpers):
    helpers.check_two_steps_backward(gru.StatefulGRU(2, 3))


@pytest.mark.parametrize("n_args", [0, 2, 3])
def test_gru_takes_one_argument(n_args):
    link = gru.GRU(3, 4)
    with pytest.raises(ValueError, match="must be 1"):
        link(*[_random(2, 3)] * n_args)


def test_gru_two_arguments_points_to_stateless():
    with pytest.raises(ValueError, match="StatelessGRU"):
        gru.GRU(3, 4)(_random(2, 4), _random(2, 3))


def test_lazy_in_size():
    link = gru.StatefulGRU(None, 4)
    assert link(_random(2, 5)).shape == (2, 4)
    assert link.W.W.shape == (4, 5)
    # W_r is first used in the second step (the first has no previous h).
    assert link.W_r.W.array is None
    assert link(_random(2, 5)).shape == (2, 4)
    assert link.W_r.W.shape == (4, 5)


def test_wrong_input_size_is_an_error():
    with pytest.raises(type_check.InvalidType):
        gru.StatelessGRU(3, 4)(_random(2, 4), _random(2, 5))


@pytest.mark.parametrize("cls", [gru.StatelessGRU, gru.StatefulGRU, gru.GRU])
def test_serialization_round_trip(helpers, cls, tmp_path):
    src = cls(3, 4)
    helpers.check_serialization_round_trip(src, cls(3, 4))
    path = str(tmp_path / "gru.npz")
    serializers.save_npz(path, src)
    with numpy.load(path) as npz:
        assert sorted(npz.files) == sorted(name[1:] for name in _NAMES)
