import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.functions.rnn import n_step_lstm
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _sigmoid(x):
    return 0.5 * numpy.tanh(0.5 * x) + 0.5


def _lstm_step(x, h, c, w, b):
    # Gates i, f, a, o = W0..W3 (and W4..W7 on h).
    def gate(j):
        return x @ w[j].T + h @ w[j + 4].T + b[j] + b[j + 4]

    i = _sigmoid(gate(0))
    f = _sigmoid(gate(1))
    a = numpy.tanh(gate(2))
    o = _sigmoid(gate(3))
    c = f * c + i * a
    return o * numpy.tanh(c), c


@pytest.fixture
def lstm(nstep):
    return nstep(n_weights=8, n_states=2)


@testing.parameterize(
    *testing.product(
        {
            "n_layers": [1, 2],
            "bidirectional": [False, True],
            "batches": [(3, 2, 2, 1), (2,)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestNStepLSTM(testing.FunctionTestCase):
    @pytest.fixture(autouse=True)
    def _helpers(self, lstm):
        self.lstm = lstm

    def setUp(self):
        self.n_dir = 2 if self.bidirectional else 1
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-2}

    def generate_inputs(self):
        return self.lstm.inputs(self.n_layers, self.n_dir, self.batches, self.dtype)

    def forward(self, inputs, device):
        hx, cx, ws, bs, xs = self.lstm.split(inputs, self.n_layers, self.n_dir)
        f = n_step_lstm.n_step_bilstm if self.bidirectional else n_step_lstm.n_step_lstm
        hy, cy, ys = f(self.n_layers, 0.0, hx, cx, ws, bs, xs)
        return (hy, cy, *ys)

    def forward_expected(self, inputs):
        hx, cx, ws, bs, xs = self.lstm.split(inputs, self.n_layers, self.n_dir)
        hy, cy, ys = self.lstm.reference(
            _lstm_step, self.n_layers, [hx, cx], ws, bs, xs, self.bidirectional
        )
        return tuple(a.astype(self.dtype) for a in (hy, cy, *ys))


def test_rows_beyond_the_longest_batch_pass_through(lstm):
    hx, cx, ws, bs, xs = lstm.random_case(batches=(2, 1), hx_batch=4)
    hy, cy, ys = n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)
    ref = lstm.reference(_lstm_step, 2, [hx, cx], ws, bs, xs, False)
    numpy.testing.assert_allclose(hy.array, ref[0], rtol=1e-12)
    numpy.testing.assert_allclose(cy.array, ref[1], rtol=1e-12)
    numpy.testing.assert_array_equal(hy.array[:, 2:], hx[:, 2:])
    assert isinstance(ys, tuple)


def test_gate_order_matches_chainer():
    # W0 = input, W1 = forget, W2 = cell input (tanh), W3 = output gate.
    n = 1
    big = 30.0  # sigmoid(big) == 1 and tanh(big) == 1 in float64
    ws = [[numpy.zeros((n, 1)) for _ in range(8)]]
    bs = [[numpy.zeros(n) for _ in range(8)]]
    bs[0][0][:] = big  # i = 1
    bs[0][1][:] = -big  # f = 0
    bs[0][2][:] = 0.5  # a = tanh(0.5)
    bs[0][3][:] = big  # o = 1
    hx = numpy.zeros((1, 1, n))
    cx = numpy.full((1, 1, n), 7.0)
    hy, cy, _ = n_step_lstm.n_step_lstm(1, 0.0, hx, cx, ws, bs, [numpy.zeros((1, 1))])
    numpy.testing.assert_allclose(cy.array, [[[numpy.tanh(0.5)]]], atol=1e-12)
    numpy.testing.assert_allclose(hy.array, numpy.tanh(cy.array), atol=1e-12)


@pytest.mark.parametrize("n_dir", [1, 2])
def test_dropout_backward_with_fixed_masks(lstm, n_dir):
    hx, cx, ws, bs, xs = lstm.random_case(n_dir=n_dir)
    f = n_step_lstm.n_step_bilstm if n_dir == 2 else n_step_lstm.n_step_lstm
    n_flat = 2 * n_dir * 16

    def func(*inputs):
        numpy.random.seed(3)  # the same masks in every evaluation
        ws_, bs_ = lstm.unflatten(inputs[2 : 2 + n_flat], 2 * n_dir)
        with chainer.using_config("train", True):
            hy, cy, ys = f(2, 0.5, inputs[0], inputs[1], ws_, bs_, inputs[2 + n_flat :])
        return (hy, cy, *ys)

    inputs = (hx, cx, *lstm.flatten(ws, bs), *xs)
    outs = func(*inputs)
    no_drop = lstm.reference(_lstm_step, 2, [hx, cx], ws, bs, xs, n_dir == 2)
    assert not numpy.allclose(outs[0].array, no_drop[0])
    # The first layer's input is never dropped.
    numpy.testing.assert_allclose(outs[0].array[:n_dir], no_drop[0][:n_dir])
    gys = tuple(numpy.random.uniform(-1, 1, o.shape) for o in outs)
    gradient_check.check_backward(func, inputs, gys, atol=1e-5, rtol=1e-4)
    ggs = tuple(numpy.random.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_double_backward(func, inputs, gys, ggs, atol=1e-4, rtol=1e-3)


def test_no_dropout_in_test_mode(lstm):
    hx, cx, ws, bs, xs = lstm.random_case()
    with chainer.using_config("train", False):
        hy, _, ys = n_step_lstm.n_step_lstm(2, 0.9, hx, cx, ws, bs, xs)
    ref = lstm.reference(_lstm_step, 2, [hx, cx], ws, bs, xs, False)
    numpy.testing.assert_allclose(hy.array, ref[0], rtol=1e-12)
    for y, r in zip(ys, ref[2], strict=True):
        numpy.testing.assert_allclose(y.array, r, rtol=1e-12)


def test_third_order_gradient(lstm):
    # The double-backward node's own backward (connected recomputation).
    hx, cx, ws, bs, xs = lstm.random_case(n_layers=1, batches=(2, 1))

    def second_order(x):
        _, _, ys = n_step_lstm.n_step_lstm(1, 0.0, hx, cx, ws, bs, [x, xs[1]])
        loss = chainer.functions.sum(ys[0] * ys[0]) + chainer.functions.sum(ys[1])
        (gx,) = chainer.grad([loss], [x], enable_double_backprop=True)
        (ggx,) = chainer.grad(
            [chainer.functions.sum(gx * gx)], [x], enable_double_backprop=True
        )
        return ggx

    gy = numpy.random.uniform(-1, 1, xs[0].shape)
    gradient_check.check_backward(second_order, xs[0], gy, atol=1e-5, rtol=1e-4)


def test_inputs_not_needing_gradients_get_none(lstm):
    hx, cx, ws, bs, xs = lstm.random_case()
    w = chainer.Variable(ws[1][4])
    ws[1][4] = w
    _, _, ys = n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)
    chainer.functions.sum(ys[0]).backward()
    assert w.grad is not None
    assert w.grad.shape == w.shape


class TestBadInputs:
    def test_hx_ndim(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx[0], cx, ws, bs, xs)

    def test_hx_layers(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx[:1], cx[:1], ws, bs, xs)

    def test_cx_shape(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx[:, :2], ws, bs, xs)

    def test_weight_shape(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        ws[0][0] = ws[0][0][:, :2]
        with pytest.raises(type_check.InvalidType, match=r"ws\[0\]\[0\]"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_increasing_batches(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case(batches=(2, 3), hx_batch=3)
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_dtype_mismatch(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        xs[1] = xs[1].astype(numpy.float32)
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_no_time_steps(self, lstm):
        hx, cx, ws, bs, _ = lstm.random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, [])

    def test_wrong_number_of_weights(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        with pytest.raises(ValueError, match="ws"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws[:1], bs, xs)
        ws[0] = ws[0][:7]
        with pytest.raises(ValueError, match=r"ws\[0\]"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_bidirectional_needs_twice_the_weights(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        with pytest.raises(ValueError, match="ws"):
            n_step_lstm.n_step_bilstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_none_state(self, lstm):
        hx, _, ws, bs, xs = lstm.random_case()
        with pytest.raises(TypeError, match="None"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, None, ws, bs, xs)

    def test_dropout_ratio(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        with pytest.raises(ValueError, match="dropout_ratio"):
            n_step_lstm.n_step_lstm(2, 1.0, hx, cx, ws, bs, xs)

    def test_removed_arguments(self, lstm):
        hx, cx, ws, bs, xs = lstm.random_case()
        with pytest.raises(ValueError, match="using_config"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs, train=True)
        with pytest.raises(ValueError, match="using_config"):
            n_step_lstm.n_step_bilstm(2, 0.0, hx, cx, ws, bs, xs, use_cudnn=True)
        with pytest.raises(TypeError, match="foo"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs, foo=1)
