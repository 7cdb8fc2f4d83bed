import io

import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import serializers
from chainer.links.rnn import n_step_lstm
from chainer.utils import type_check


def _sigmoid(x):
    return 0.5 * numpy.tanh(0.5 * x) + 0.5


def _lstm_step(x_t, h, c, w, b):
    # W0..W3 = i, f, a, o.
    def gate(j):
        return w[j] @ x_t + w[j + 4] @ h + b[j] + b[j + 4]

    i, f, o = _sigmoid(gate(0)), _sigmoid(gate(1)), _sigmoid(gate(3))
    c = f * c + i * numpy.tanh(gate(2))
    return o * numpy.tanh(c), c


@pytest.fixture(params=[n_step_lstm.NStepLSTM, n_step_lstm.NStepBiLSTM])
def cls(request):
    return request.param


def _states(link, batch):
    shape = (link.n_layers * link.direction, batch, link.out_size)
    return numpy.random.uniform(-1, 1, shape), numpy.random.uniform(-1, 1, shape)


def test_parameters_follow_chainer_names(cls):
    link = cls(2, 3, 4, 0.1)
    n_dir = 2 if cls is n_step_lstm.NStepBiLSTM else 1
    assert len(link) == 2 * n_dir
    assert link.n_cells == 2
    shapes = dict((name, p.shape) for name, p in link.namedparams())
    assert len(shapes) == 2 * n_dir * 16
    assert shapes["/0/w0"] == (4, 3)
    assert shapes["/0/w4"] == (4, 4)
    assert shapes["/0/b7"] == (4,)
    assert shapes[f"/{n_dir}/w3"] == (4, 4 * n_dir)
    assert link.ws[n_dir][3] is link[n_dir].w3
    assert link.bs[0][7] is link[0].b7


def test_forward_unsorted_variable_lengths(helpers, cls):
    link = helpers.make_n_step(cls)
    lengths = [2, 4, 1, 4]
    xs = [numpy.random.uniform(-1, 1, (n, 3)) for n in lengths]
    hx, cx = _states(link, len(xs))
    hy, cy, ys = link(hx, cx, xs)
    ref_hy, ref_cy, ref_ys = helpers.n_step_reference(link, [hx, cx], xs, _lstm_step)
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(cy.array, ref_cy, rtol=1e-10, atol=1e-12)
    assert len(ys) == len(xs)
    for y, r in zip(ys, ref_ys, strict=True):
        numpy.testing.assert_allclose(y.array, r, rtol=1e-10, atol=1e-12)


def test_none_states_are_zeros(helpers, cls):
    link = helpers.make_n_step(cls)
    xs = [numpy.random.uniform(-1, 1, (n, 3)) for n in (3, 1)]
    hy, cy, ys = link(None, None, xs)
    zeros = numpy.zeros(hy.shape)
    ref_hy, ref_cy, ref_ys = helpers.n_step_reference(
        link, [zeros, zeros], xs, _lstm_step
    )
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(cy.array, ref_cy, rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(ys[1].array, ref_ys[1], rtol=1e-10, atol=1e-12)


def test_empty_sequence(helpers, cls):
    link = helpers.make_n_step(cls)
    xs = [numpy.random.uniform(-1, 1, (2, 3)), numpy.zeros((0, 3))]
    hx, cx = _states(link, 2)
    hy, cy, ys = link(hx, cx, xs)
    assert ys[1].shape == (0, link.out_size * link.direction)
    numpy.testing.assert_array_equal(hy.array[:, 1], hx[:, 1])
    numpy.testing.assert_array_equal(cy.array[:, 1], cx[:, 1])


def test_backward(helpers, cls):
    link = helpers.make_n_step(cls)
    lengths = (2, 3, 1)
    hx, cx = _states(link, len(lengths))
    xs = [numpy.random.uniform(-1, 1, (n, 3)) for n in lengths]

    def f(hx, cx, *xs):
        hy, cy, ys = link(hx, cx, list(xs))
        return (hy, cy, *ys)

    inputs = (hx, cx, *xs)
    gys = [numpy.random.uniform(-1, 1, y.shape) for y in f(*inputs)]
    gradient_check.check_backward(
        f, inputs, tuple(gys), params=tuple(link.params()), atol=1e-5, rtol=1e-4
    )


def test_float32_default_dtype(cls):
    link = cls(1, 3, 2, 0.0)
    xs = [numpy.ones((2, 3), numpy.float32)]
    hy, cy, ys = link(None, None, xs)
    assert hy.dtype == cy.dtype == ys[0].dtype == numpy.float32
    assert link[0].w0.dtype == numpy.float32


def test_dropout_only_in_training(helpers, cls):
    link = helpers.make_n_step(cls, dropout=0.5)
    xs = [numpy.random.uniform(-1, 1, (3, 3)) for _ in range(2)]
    with chainer.using_config("train", False):
        y1 = link(None, None, xs)[2][0].array
        y2 = link(None, None, xs)[2][0].array
    numpy.testing.assert_array_equal(y1, y2)
    with chainer.using_config("train", True):
        y3 = link(None, None, xs)[2][0].array
    assert not numpy.allclose(y1, y3)


def test_initializers(cls):
    link = cls(2, 3, 2, 0.0, initialW=0.5, initial_bias=1.0)
    for p in link.params():
        expected = 1.0 if p.name.startswith("b") else 0.5
        numpy.testing.assert_array_equal(p.array, numpy.full(p.shape, expected))
    link = cls(1, 3, 2, 0.0, initialW=chainer.initializers.Constant(2.0))
    numpy.testing.assert_array_equal(link[0].b3.array, 0)
    numpy.testing.assert_array_equal(link[0].w6.array, 2.0)


def test_serialization_round_trip(helpers, cls):
    src = helpers.make_n_step(cls)
    dst = helpers.make_n_step(cls)
    helpers.check_serialization_round_trip(src, dst)
    xs = [numpy.random.uniform(-1, 1, (2, 3))]
    numpy.testing.assert_array_equal(
        src(None, None, xs)[2][0].array, dst(None, None, xs)[2][0].array
    )


def test_npz_keys_are_chainers():
    link = n_step_lstm.NStepLSTM(1, 3, 2, 0.0)
    buf = io.BytesIO()
    serializers.save_npz(buf, link)
    buf.seek(0)
    with numpy.load(buf) as npz:
        assert sorted(npz.files) == sorted(
            [f"0/w{j}" for j in range(8)] + [f"0/b{j}" for j in range(8)]
        )


def test_copy_uses_its_own_parameters(helpers, cls):
    link = helpers.make_n_step(cls)
    copied = link.copy("copy")
    assert copied.ws[0][0] is copied[0].w0
    assert copied.ws[0][0] is not link.ws[0][0]
    xs = [numpy.random.uniform(-1, 1, (2, 3))]
    numpy.testing.assert_array_equal(
        link(None, None, xs)[0].array, copied(None, None, xs)[0].array
    )


class TestBadInputs:
    def test_wrong_input_size(self, helpers):
        link = helpers.make_n_step(n_step_lstm.NStepLSTM)
        with pytest.raises(type_check.InvalidType):
            link(None, None, [numpy.zeros((2, 4))])

    def test_xs_not_a_list(self, helpers):
        link = helpers.make_n_step(n_step_lstm.NStepLSTM)
        with pytest.raises(ValueError, match="xs"):
            link(None, None, numpy.zeros((2, 3)))
        with pytest.raises(ValueError, match="xs"):
            link(None, None, [])

    def test_state_batch(self, helpers):
        link = helpers.make_n_step(n_step_lstm.NStepLSTM)
        hx, cx = _states(link, 3)
        with pytest.raises(ValueError, match="initial states"):
            link(hx, cx, [numpy.zeros((2, 3))] * 2)

    def test_arguments(self, helpers):
        with pytest.raises(ValueError, match="using_config"):
            n_step_lstm.NStepLSTM(1, 3, 2, 0.0, use_cudnn=False)
        with pytest.raises(ValueError, match="use_bi_direction"):
            n_step_lstm.NStepLSTM(1, 3, 2, 0.0, use_bi_direction=True)
        with pytest.raises(TypeError, match="bogus"):
            n_step_lstm.NStepLSTM(1, 3, 2, 0.0, bogus=1)
        with pytest.raises(ValueError, match="n_layers"):
            n_step_lstm.NStepLSTM(0, 3, 2, 0.0)
        with pytest.raises(ValueError, match="dropout"):
            n_step_lstm.NStepLSTM(1, 3, 2, 1.5)
        link = helpers.make_n_step(n_step_lstm.NStepLSTM)
        with pytest.raises(ValueError, match="using_config"):
            link(None, None, [numpy.zeros((2, 3))], train=True)
