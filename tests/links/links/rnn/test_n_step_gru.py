import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer.links.rnn import n_step_gru
from chainer.utils import type_check


def _sigmoid(x):
    return 0.5 * numpy.tanh(0.5 * x) + 0.5


def _gru_step(x_t, h, w, b):
    r = _sigmoid(w[0] @ x_t + b[0] + w[3] @ h + b[3])
    z = _sigmoid(w[1] @ x_t + b[1] + w[4] @ h + b[4])
    h_bar = numpy.tanh(w[2] @ x_t + b[2] + r * (w[5] @ h + b[5]))
    return ((1 - z) * h_bar + z * h,)


@pytest.fixture(params=[n_step_gru.NStepGRU, n_step_gru.NStepBiGRU])
def cls(request):
    return request.param


def test_parameters_follow_chainer_names(cls):
    link = cls(2, 3, 4, 0.0)
    n_dir = link.direction
    assert link.n_cells == 1
    shapes = dict((name, p.shape) for name, p in link.namedparams())
    assert len(shapes) == 2 * n_dir * 12
    assert shapes["/0/w2"] == (4, 3)
    assert shapes["/0/w3"] == (4, 4)
    assert shapes[f"/{n_dir}/w0"] == (4, 4 * n_dir)
    assert shapes[f"/{n_dir}/b5"] == (4,)


def test_forward_and_backward(helpers, cls):
    link = helpers.make_n_step(cls)
    lengths = [1, 3, 2]
    xs = [numpy.random.uniform(-1, 1, (n, 3)) for n in lengths]
    hx = numpy.random.uniform(-1, 1, (2 * link.direction, 3, 2))
    hy, ys = link(hx, xs)
    ref_hy, ref_ys = helpers.n_step_reference(link, [hx], xs, _gru_step)
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-10, atol=1e-12)
    for y, r in zip(ys, ref_ys, strict=True):
        numpy.testing.assert_allclose(y.array, r, rtol=1e-10, atol=1e-12)

    def f(hx, *xs):
        hy, ys = link(hx, list(xs))
        return (hy, *ys)

    gys = tuple(numpy.random.uniform(-1, 1, y.shape) for y in (hy, *ys))
    gradient_check.check_backward(
        f, (hx, *xs), gys, params=tuple(link.params()), atol=1e-5, rtol=1e-4
    )


def test_none_state_and_dropout_in_test_mode(helpers, cls):
    link = helpers.make_n_step(cls, dropout=0.5)
    xs = [numpy.random.uniform(-1, 1, (2, 3))]
    with chainer.using_config("train", False):
        hy, ys = link(None, xs)
    ref_hy, ref_ys = helpers.n_step_reference(
        link, [numpy.zeros(hy.shape)], xs, _gru_step
    )
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(ys[0].array, ref_ys[0], rtol=1e-10, atol=1e-12)


def test_serialization_round_trip(helpers, cls):
    helpers.check_serialization_round_trip(
        helpers.make_n_step(cls), helpers.make_n_step(cls)
    )


def test_initializers(cls):
    link = cls(1, 2, 2, 0.0, initialW=numpy.full((2, 2), 3.0), initial_bias=2)
    numpy.testing.assert_array_equal(link[0].w4.array, 3.0)
    numpy.testing.assert_array_equal(link[0].b0.array, 2.0)


class TestBadInputs:
    def test_wrong_input_size(self, helpers, cls):
        link = helpers.make_n_step(cls)
        with pytest.raises(type_check.InvalidType):
            link(None, [numpy.zeros((2, 5))])

    def test_removed_arguments(self):
        with pytest.raises(ValueError, match="activation"):
            n_step_gru.NStepGRU(1, 3, 2, 0.0, activation="relu")
        with pytest.raises(ValueError, match="out_size"):
            n_step_gru.NStepBiGRU(1, 3, 0, 0.0)
