import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.functions.rnn import n_step_gru
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _sigmoid(x):
    return 0.5 * numpy.tanh(0.5 * x) + 0.5


def _gru_reference(n_layers, hx, ws, bs, xs, bidirectional):
    """Step-by-step NumPy stacked GRU in float64 (Chainer's W0..W5 roles)."""
    hx = hx.astype(numpy.float64)
    xs = [x.astype(numpy.float64) for x in xs]
    n_dir = 2 if bidirectional else 1
    hy = hx.copy()
    for layer in range(n_layers):
        outs = []
        for d in range(n_dir):
            k = layer * n_dir + d
            w = [a.astype(numpy.float64) for a in ws[k]]
            b = [a.astype(numpy.float64) for a in bs[k]]
            h = hx[k].copy()
            ys = [None] * len(xs)
            order = range(len(xs)) if d == 0 else reversed(range(len(xs)))
            for t in order:
                x = xs[t]
                n = len(x)
                hp = h[:n]
                r = _sigmoid(x @ w[0].T + b[0] + hp @ w[3].T + b[3])
                z = _sigmoid(x @ w[1].T + b[1] + hp @ w[4].T + b[4])
                h_bar = numpy.tanh(x @ w[2].T + b[2] + r * (hp @ w[5].T + b[5]))
                h[:n] = (1 - z) * h_bar + z * hp
                ys[t] = h[:n].copy()
            hy[k] = h
            outs.append(ys)
        xs = [numpy.concatenate(parts, axis=1) for parts in zip(*outs, strict=True)]
    return hy, xs


def _make_params(n_layers, n_dir, in_size, n_units, dtype):
    ws = []
    bs = []
    for layer in range(n_layers):
        for _ in range(n_dir):
            x_size = in_size if layer == 0 else n_units * n_dir
            ws.append(
                [
                    numpy.random.uniform(
                        -1, 1, (n_units, x_size if j < 3 else n_units)
                    ).astype(dtype)
                    for j in range(6)
                ]
            )
            bs.append(
                [numpy.random.uniform(-1, 1, n_units).astype(dtype) for _ in range(6)]
            )
    return ws, bs


def _flatten(ws, bs):
    return [w for ws_k in ws for w in ws_k] + [b for bs_k in bs for b in bs_k]


def _unflatten(flat, n_units_total):
    ws = [list(flat[k * 6 : (k + 1) * 6]) for k in range(n_units_total)]
    off = n_units_total * 6
    bs = [list(flat[off + k * 6 : off + (k + 1) * 6]) for k in range(n_units_total)]
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
class TestNStepGRU(testing.FunctionTestCase):
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
        ws, bs = _make_params(
            self.n_layers, self.n_dir, self.in_size, self.n_units, self.dtype
        )
        xs = [
            numpy.random.uniform(-1, 1, (b, self.in_size)).astype(self.dtype)
            for b in self.batches
        ]
        return (hx, *_flatten(ws, bs), *xs)

    def _split(self, inputs):
        n_flat = self.n_layers * self.n_dir * 12
        ws, bs = _unflatten(inputs[1 : 1 + n_flat], self.n_layers * self.n_dir)
        return inputs[0], ws, bs, list(inputs[1 + n_flat :])

    def forward(self, inputs, device):
        hx, ws, bs, xs = self._split(inputs)
        f = n_step_gru.n_step_bigru if self.bidirectional else n_step_gru.n_step_gru
        hy, ys = f(self.n_layers, 0.0, hx, ws, bs, xs)
        return (hy, *ys)

    def forward_expected(self, inputs):
        hx, ws, bs, xs = self._split(inputs)
        hy, ys = _gru_reference(self.n_layers, hx, ws, bs, xs, self.bidirectional)
        return tuple(a.astype(self.dtype) for a in (hy, *ys))


def _random_case(n_layers=2, n_dir=1, batches=(3, 2, 1), hx_batch=None):
    in_size, n_units = 3, 2
    shape = (n_layers * n_dir, hx_batch or batches[0], n_units)
    hx = numpy.random.uniform(-1, 1, shape)
    ws, bs = _make_params(n_layers, n_dir, in_size, n_units, numpy.float64)
    xs = [numpy.random.uniform(-1, 1, (b, in_size)) for b in batches]
    return hx, ws, bs, xs


def test_rows_beyond_the_longest_batch_pass_through():
    hx, ws, bs, xs = _random_case(n_dir=2, batches=(2, 1), hx_batch=3)
    hy, ys = n_step_gru.n_step_bigru(2, 0.0, hx, ws, bs, xs)
    ref_hy, ref_ys = _gru_reference(2, hx, ws, bs, xs, True)
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-12)
    numpy.testing.assert_array_equal(hy.array[:, 2:], hx[:, 2:])
    for y, r in zip(ys, ref_ys, strict=True):
        numpy.testing.assert_allclose(y.array, r, rtol=1e-12)


def test_dropout_backward_with_fixed_masks():
    hx, ws, bs, xs = _random_case(n_dir=2)
    n_flat = 2 * 2 * 12

    def func(*inputs):
        numpy.random.seed(5)  # the same masks in every evaluation
        ws_, bs_ = _unflatten(inputs[1 : 1 + n_flat], 4)
        with chainer.using_config("train", True):
            hy, ys = n_step_gru.n_step_bigru(
                2, 0.3, inputs[0], ws_, bs_, inputs[1 + n_flat :]
            )
        return (hy, *ys)

    inputs = (hx, *_flatten(ws, bs), *xs)
    outs = func(*inputs)
    ref_hy, _ = _gru_reference(2, hx, ws, bs, xs, True)
    assert not numpy.allclose(outs[0].array[2:], ref_hy[2:])
    numpy.testing.assert_allclose(outs[0].array[:2], ref_hy[:2])
    gys = tuple(numpy.random.uniform(-1, 1, o.shape) for o in outs)
    gradient_check.check_backward(func, inputs, gys, atol=1e-5, rtol=1e-4)


class TestBadInputs:
    def test_hx_units(self):
        hx, ws, bs, xs = _random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_gru.n_step_gru(2, 0.0, hx[:, :, :1], ws, bs, xs)

    def test_bias_shape(self):
        hx, ws, bs, xs = _random_case()
        bs[1][5] = bs[1][5][:1]
        with pytest.raises(type_check.InvalidType, match=r"bs\[1\]\[5\]"):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs, xs)

    def test_upper_layer_input_size(self):
        hx, ws, bs, xs = _random_case(n_dir=2)
        ws[2][0] = ws[2][0][:, :2]  # needs 2 * n_units inputs
        with pytest.raises(type_check.InvalidType):
            n_step_gru.n_step_bigru(2, 0.0, hx, ws, bs, xs)

    def test_integer_inputs(self):
        hx, ws, bs, xs = _random_case()
        xs = [x.astype(numpy.int32) for x in xs]
        with pytest.raises(type_check.InvalidType):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs, xs)

    def test_structure(self):
        hx, ws, bs, xs = _random_case()
        with pytest.raises(ValueError, match="bs"):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs[0], xs)
        with pytest.raises(TypeError, match="xs"):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs, xs[0])
        with pytest.raises(ValueError, match="n_layers"):
            n_step_gru.n_step_gru(0, 0.0, hx, ws, bs, xs)

    def test_removed_arguments(self):
        hx, ws, bs, xs = _random_case()
        with pytest.raises(ValueError, match="using_config"):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs, xs, train=False)
