import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.functions.rnn import n_step_rnn
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _activate(x, activation):
    return numpy.tanh(x) if activation == "tanh" else numpy.maximum(x, 0)


def _rnn_reference(n_layers, hx, ws, bs, xs, bidirectional, activation):
    """Step-by-step NumPy stacked Elman RNN in float64."""
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
                a = x @ w[0].T + h[:n] @ w[1].T + b[0] + b[1]
                h[:n] = _activate(a, activation)
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
                    numpy.random.uniform(-1, 1, (n_units, x_size)).astype(dtype),
                    numpy.random.uniform(-1, 1, (n_units, n_units)).astype(dtype),
                ]
            )
            bs.append(
                [numpy.random.uniform(-1, 1, n_units).astype(dtype) for _ in range(2)]
            )
    return ws, bs


def _flatten(ws, bs):
    return [w for ws_k in ws for w in ws_k] + [b for bs_k in bs for b in bs_k]


def _unflatten(flat, n_units_total):
    ws = [list(flat[2 * k : 2 * k + 2]) for k in range(n_units_total)]
    off = n_units_total * 2
    bs = [list(flat[off + 2 * k : off + 2 * k + 2]) for k in range(n_units_total)]
    return ws, bs


@testing.parameterize(
    *testing.product(
        {
            "n_layers": [1, 2],
            "bidirectional": [False, True],
            "activation": ["tanh", "relu"],
            "batches": [(3, 2, 2, 1)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestNStepRNN(testing.FunctionTestCase):
    in_size = 3
    n_units = 2
    dodge_nondifferentiable = True

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
        n_flat = self.n_layers * self.n_dir * 4
        ws, bs = _unflatten(inputs[1 : 1 + n_flat], self.n_layers * self.n_dir)
        return inputs[0], ws, bs, list(inputs[1 + n_flat :])

    def forward(self, inputs, device):
        hx, ws, bs, xs = self._split(inputs)
        f = n_step_rnn.n_step_birnn if self.bidirectional else n_step_rnn.n_step_rnn
        hy, ys = f(self.n_layers, 0.0, hx, ws, bs, xs, activation=self.activation)
        return (hy, *ys)

    def forward_expected(self, inputs):
        hx, ws, bs, xs = self._split(inputs)
        hy, ys = _rnn_reference(
            self.n_layers, hx, ws, bs, xs, self.bidirectional, self.activation
        )
        return tuple(a.astype(self.dtype) for a in (hy, *ys))


def _random_case(n_layers=2, n_dir=1, batches=(3, 2, 1)):
    shape = (n_layers * n_dir, batches[0], 2)
    hx = numpy.random.uniform(-1, 1, shape)
    ws, bs = _make_params(n_layers, n_dir, 3, 2, numpy.float64)
    xs = [numpy.random.uniform(-1, 1, (b, 3)) for b in batches]
    return hx, ws, bs, xs


def test_default_activation_is_tanh():
    hx, ws, bs, xs = _random_case()
    hy, ys = n_step_rnn.n_step_rnn(2, 0.0, hx, ws, bs, xs)
    ref_hy, ref_ys = _rnn_reference(2, hx, ws, bs, xs, False, "tanh")
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-12)
    assert len(ys) == len(ref_ys)


def test_dropout_backward_with_fixed_masks():
    hx, ws, bs, xs = _random_case(n_layers=3)
    n_flat = 3 * 4

    def func(*inputs):
        numpy.random.seed(7)  # the same masks in every evaluation
        ws_, bs_ = _unflatten(inputs[1 : 1 + n_flat], 3)
        with chainer.using_config("train", True):
            hy, ys = n_step_rnn.n_step_rnn(
                3, 0.4, inputs[0], ws_, bs_, inputs[1 + n_flat :]
            )
        return (hy, *ys)

    inputs = (hx, *_flatten(ws, bs), *xs)
    outs = func(*inputs)
    ref_hy, _ = _rnn_reference(3, hx, ws, bs, xs, False, "tanh")
    assert not numpy.allclose(outs[0].array[1:], ref_hy[1:])
    gys = tuple(numpy.random.uniform(-1, 1, o.shape) for o in outs)
    gradient_check.check_backward(func, inputs, gys, atol=1e-5, rtol=1e-4)


class TestBadInputs:
    def test_activation(self):
        hx, ws, bs, xs = _random_case()
        with pytest.raises(ValueError, match="activation"):
            n_step_rnn.n_step_rnn(2, 0.0, hx, ws, bs, xs, activation="sigmoid")

    def test_hx_dtype(self):
        hx, ws, bs, xs = _random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_rnn.n_step_birnn(1, 0.0, hx.astype(numpy.float32), ws, bs, xs)

    def test_hx_batch_smaller_than_inputs(self):
        hx, ws, bs, xs = _random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_rnn.n_step_rnn(2, 0.0, hx[:, :2], ws, bs, xs)

    def test_input_feature_size(self):
        hx, ws, bs, xs = _random_case()
        xs[2] = numpy.zeros((1, 4))
        with pytest.raises(type_check.InvalidType):
            n_step_rnn.n_step_rnn(2, 0.0, hx, ws, bs, xs)

    def test_weight_ndim(self):
        hx, ws, bs, xs = _random_case()
        ws[1][1] = ws[1][1][0]
        with pytest.raises(type_check.InvalidType):
            n_step_rnn.n_step_rnn(2, 0.0, hx, ws, bs, xs)

    def test_removed_arguments(self):
        hx, ws, bs, xs = _random_case()
        with pytest.raises(ValueError, match="using_config"):
            n_step_rnn.n_step_birnn(1, 0.0, hx, ws, bs, xs, use_cudnn=False)
