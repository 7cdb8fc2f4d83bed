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


def _lstm_reference(n_layers, hx, cx, ws, bs, xs, bidirectional):
    """Step-by-step NumPy stacked LSTM in float64 (gates i, f, a, o = W0..W3)."""
    hx = hx.astype(numpy.float64)
    cx = cx.astype(numpy.float64)
    xs = [x.astype(numpy.float64) for x in xs]
    n_dir = 2 if bidirectional else 1
    hy = hx.copy()
    cy = cx.copy()
    for layer in range(n_layers):
        outs = []
        for d in range(n_dir):
            k = layer * n_dir + d
            w = [a.astype(numpy.float64) for a in ws[k]]
            b = [a.astype(numpy.float64) for a in bs[k]]
            h = hx[k].copy()
            c = cx[k].copy()
            ys = [None] * len(xs)
            order = range(len(xs)) if d == 0 else reversed(range(len(xs)))
            for t in order:
                x = xs[t]
                n = len(x)
                hp = h[:n]

                def gate(j, x=x, hp=hp, w=w, b=b):
                    return x @ w[j].T + hp @ w[j + 4].T + b[j] + b[j + 4]

                i = _sigmoid(gate(0))
                f = _sigmoid(gate(1))
                a = numpy.tanh(gate(2))
                o = _sigmoid(gate(3))
                c[:n] = f * c[:n] + i * a
                h[:n] = o * numpy.tanh(c[:n])
                ys[t] = h[:n].copy()
            hy[k] = h
            cy[k] = c
            outs.append(ys)
        xs = [numpy.concatenate(parts, axis=1) for parts in zip(*outs, strict=True)]
    return hy, cy, xs


def _make_params(n_layers, n_dir, in_size, n_units, dtype):
    ws = []
    bs = []
    for layer in range(n_layers):
        for _ in range(n_dir):
            x_size = in_size if layer == 0 else n_units * n_dir
            ws.append(
                [
                    numpy.random.uniform(
                        -1, 1, (n_units, x_size if j < 4 else n_units)
                    ).astype(dtype)
                    for j in range(8)
                ]
            )
            bs.append(
                [numpy.random.uniform(-1, 1, n_units).astype(dtype) for _ in range(8)]
            )
    return ws, bs


def _flatten(ws, bs):
    return [w for ws_k in ws for w in ws_k] + [b for bs_k in bs for b in bs_k]


def _unflatten(flat, n_units_total):
    ws = [list(flat[k * 8 : (k + 1) * 8]) for k in range(n_units_total)]
    off = n_units_total * 8
    bs = [list(flat[off + k * 8 : off + (k + 1) * 8]) for k in range(n_units_total)]
    return ws, bs


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
    in_size = 3
    n_units = 2

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
        shape = (self.n_layers * self.n_dir, self.batches[0], self.n_units)
        hx = numpy.random.uniform(-1, 1, shape).astype(self.dtype)
        cx = numpy.random.uniform(-1, 1, shape).astype(self.dtype)
        ws, bs = _make_params(
            self.n_layers, self.n_dir, self.in_size, self.n_units, self.dtype
        )
        xs = [
            numpy.random.uniform(-1, 1, (b, self.in_size)).astype(self.dtype)
            for b in self.batches
        ]
        return (hx, cx, *_flatten(ws, bs), *xs)

    def _split(self, inputs):
        n_flat = self.n_layers * self.n_dir * 16
        ws, bs = _unflatten(inputs[2 : 2 + n_flat], self.n_layers * self.n_dir)
        return inputs[0], inputs[1], ws, bs, list(inputs[2 + n_flat :])

    def forward(self, inputs, device):
        hx, cx, ws, bs, xs = self._split(inputs)
        f = n_step_lstm.n_step_bilstm if self.bidirectional else n_step_lstm.n_step_lstm
        hy, cy, ys = f(self.n_layers, 0.0, hx, cx, ws, bs, xs)
        return (hy, cy, *ys)

    def forward_expected(self, inputs):
        hx, cx, ws, bs, xs = self._split(inputs)
        hy, cy, ys = _lstm_reference(
            self.n_layers, hx, cx, ws, bs, xs, self.bidirectional
        )
        return tuple(a.astype(self.dtype) for a in (hy, cy, *ys))


def _random_case(n_layers=2, n_dir=1, batches=(3, 2, 1), hx_batch=None):
    in_size, n_units = 3, 2
    shape = (n_layers * n_dir, hx_batch or batches[0], n_units)
    hx = numpy.random.uniform(-1, 1, shape)
    cx = numpy.random.uniform(-1, 1, shape)
    ws, bs = _make_params(n_layers, n_dir, in_size, n_units, numpy.float64)
    xs = [numpy.random.uniform(-1, 1, (b, in_size)) for b in batches]
    return hx, cx, ws, bs, xs


def test_rows_beyond_the_longest_batch_pass_through():
    hx, cx, ws, bs, xs = _random_case(batches=(2, 1), hx_batch=4)
    hy, cy, ys = n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)
    ref = _lstm_reference(2, hx, cx, ws, bs, xs, False)
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
def test_dropout_backward_with_fixed_masks(n_dir):
    hx, cx, ws, bs, xs = _random_case(n_dir=n_dir)
    f = n_step_lstm.n_step_bilstm if n_dir == 2 else n_step_lstm.n_step_lstm
    n_flat = 2 * n_dir * 16

    def func(*inputs):
        numpy.random.seed(3)  # the same masks in every evaluation
        ws_, bs_ = _unflatten(inputs[2 : 2 + n_flat], 2 * n_dir)
        with chainer.using_config("train", True):
            hy, cy, ys = f(2, 0.5, inputs[0], inputs[1], ws_, bs_, inputs[2 + n_flat :])
        return (hy, cy, *ys)

    inputs = (hx, cx, *_flatten(ws, bs), *xs)
    outs = func(*inputs)
    no_drop = _lstm_reference(2, hx, cx, ws, bs, xs, n_dir == 2)
    assert not numpy.allclose(outs[0].array, no_drop[0])
    # The first layer's input is never dropped.
    numpy.testing.assert_allclose(outs[0].array[:n_dir], no_drop[0][:n_dir])
    gys = tuple(numpy.random.uniform(-1, 1, o.shape) for o in outs)
    gradient_check.check_backward(func, inputs, gys, atol=1e-5, rtol=1e-4)
    ggs = tuple(numpy.random.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_double_backward(func, inputs, gys, ggs, atol=1e-4, rtol=1e-3)


def test_no_dropout_in_test_mode():
    hx, cx, ws, bs, xs = _random_case()
    with chainer.using_config("train", False):
        hy, _, ys = n_step_lstm.n_step_lstm(2, 0.9, hx, cx, ws, bs, xs)
    ref = _lstm_reference(2, hx, cx, ws, bs, xs, False)
    numpy.testing.assert_allclose(hy.array, ref[0], rtol=1e-12)
    for y, r in zip(ys, ref[2], strict=True):
        numpy.testing.assert_allclose(y.array, r, rtol=1e-12)


def test_third_order_gradient():
    # The double-backward node's own backward (connected recomputation).
    hx, cx, ws, bs, xs = _random_case(n_layers=1, batches=(2, 1))

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


def test_inputs_not_needing_gradients_get_none():
    hx, cx, ws, bs, xs = _random_case()
    w = chainer.Variable(ws[1][4])
    ws[1][4] = w
    _, _, ys = n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)
    chainer.functions.sum(ys[0]).backward()
    assert w.grad is not None
    assert w.grad.shape == w.shape


class TestBadInputs:
    def test_hx_ndim(self):
        hx, cx, ws, bs, xs = _random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx[0], cx, ws, bs, xs)

    def test_hx_layers(self):
        hx, cx, ws, bs, xs = _random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx[:1], cx[:1], ws, bs, xs)

    def test_cx_shape(self):
        hx, cx, ws, bs, xs = _random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx[:, :2], ws, bs, xs)

    def test_weight_shape(self):
        hx, cx, ws, bs, xs = _random_case()
        ws[0][0] = ws[0][0][:, :2]
        with pytest.raises(type_check.InvalidType, match=r"ws\[0\]\[0\]"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_increasing_batches(self):
        hx, cx, ws, bs, xs = _random_case(batches=(2, 3), hx_batch=3)
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_dtype_mismatch(self):
        hx, cx, ws, bs, xs = _random_case()
        xs[1] = xs[1].astype(numpy.float32)
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_no_time_steps(self):
        hx, cx, ws, bs, _ = _random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, [])

    def test_wrong_number_of_weights(self):
        hx, cx, ws, bs, xs = _random_case()
        with pytest.raises(ValueError, match="ws"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws[:1], bs, xs)
        ws[0] = ws[0][:7]
        with pytest.raises(ValueError, match=r"ws\[0\]"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_bidirectional_needs_twice_the_weights(self):
        hx, cx, ws, bs, xs = _random_case()
        with pytest.raises(ValueError, match="ws"):
            n_step_lstm.n_step_bilstm(2, 0.0, hx, cx, ws, bs, xs)

    def test_none_state(self):
        hx, _, ws, bs, xs = _random_case()
        with pytest.raises(TypeError, match="None"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, None, ws, bs, xs)

    def test_dropout_ratio(self):
        hx, cx, ws, bs, xs = _random_case()
        with pytest.raises(ValueError, match="dropout_ratio"):
            n_step_lstm.n_step_lstm(2, 1.0, hx, cx, ws, bs, xs)

    def test_removed_arguments(self):
        hx, cx, ws, bs, xs = _random_case()
        with pytest.raises(ValueError, match="using_config"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs, train=True)
        with pytest.raises(ValueError, match="using_config"):
            n_step_lstm.n_step_bilstm(2, 0.0, hx, cx, ws, bs, xs, use_cudnn=True)
        with pytest.raises(TypeError, match="foo"):
            n_step_lstm.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs, foo=1)
