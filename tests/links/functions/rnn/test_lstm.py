import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.functions.rnn import lstm
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _lstm_reference(c_prev, x):
    """NumPy LSTM in float64; gates a, i, f, o interleaved per unit."""
    c_prev = c_prev.astype(numpy.float64)
    x = x.astype(numpy.float64)
    batch = x.shape[0]
    r = x.reshape((batch, c_prev.shape[1], 4, *x.shape[2:]))
    a, i, f, o = (r[:, :, k] for k in range(4))
    c = c_prev.copy()
    c[:batch] = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[:batch]
    h = _sigmoid(o) * numpy.tanh(c[:batch])
    return c, h


@testing.parameterize(
    *testing.product(
        {
            "batches": [(3, 3), (4, 2), (3, 0)],
            "rest": [(), (2,)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLSTM(testing.FunctionTestCase):
    n_units = 3

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        c_batch, x_batch = self.batches
        c_prev = numpy.random.uniform(-1, 1, (c_batch, self.n_units, *self.rest))
        x = numpy.random.uniform(-1, 1, (x_batch, 4 * self.n_units, *self.rest))
        return c_prev.astype(self.dtype), x.astype(self.dtype)

    def forward(self, inputs, device):
        c_prev, x = inputs
        return lstm.lstm(c_prev, x)

    def forward_expected(self, inputs):
        return tuple(y.astype(self.dtype) for y in _lstm_reference(*inputs))


def test_gate_order_is_interleaved_per_unit():
    # Unit u's gates are x[:, 4u:4u+4] = (a, i, f, o).
    c_prev = numpy.array([[2.0, 3.0]])
    big = 30.0  # sigmoid(big) == 1 and tanh(big) == 1 in float64
    x = numpy.array([[big, big, -big, big, 0.0, big, big, -big]])
    c, h = lstm.lstm(c_prev, x)
    numpy.testing.assert_allclose(c.array, [[1.0, 3.0]], atol=1e-12)
    numpy.testing.assert_allclose(h.array, [[numpy.tanh(1.0), 0.0]], atol=1e-12)


def test_rest_of_a_larger_state_passes_through():
    c_prev = chainer.Variable(numpy.random.randn(4, 2))
    x = chainer.Variable(numpy.random.randn(1, 8))
    c, _h = lstm.lstm(c_prev, x)
    numpy.testing.assert_array_equal(c.array[1:], c_prev.array[1:])
    c.grad = numpy.ones_like(c.array)
    c.backward()
    numpy.testing.assert_array_equal(c_prev.grad[1:], numpy.ones((3, 2)))


def test_backward_with_only_h_used():
    c_prev = chainer.Variable(numpy.random.randn(2, 3))
    x = chainer.Variable(numpy.random.randn(2, 12))
    _, h = lstm.lstm(c_prev, x)
    chainer.functions.sum(h).backward()
    eps = 1e-6
    x2 = x.array.copy()
    x2[0, 7] += eps
    numeric = (
        lstm.lstm(c_prev.array, x2)[1].array.sum()
        - lstm.lstm(c_prev.array, x.array)[1].array.sum()
    ) / eps
    assert x.grad[0, 7] == pytest.approx(numeric, rel=1e-4)


def test_nodes_are_fused():
    c_prev = chainer.Variable(numpy.zeros((2, 3), numpy.float32))
    x = chainer.Variable(numpy.ones((2, 12), numpy.float32))
    c, h = lstm.lstm(c_prev, x)
    assert c.creator is h.creator
    assert isinstance(c.creator, lstm.LSTM)
    _gc_prev, gx = chainer.grad(
        [c, h],
        [c_prev, x],
        [numpy.ones((2, 3), numpy.float32)] * 2,
        enable_double_backprop=True,
    )
    assert isinstance(gx.creator, lstm.LSTMGrad)


@pytest.mark.parametrize(
    ("c_shape", "x_shape", "dtypes"),
    [
        ((2, 3), (2, 11), ("f", "f")),  # x's width is not 4 * H
        ((2, 3), (3, 12), ("f", "f")),  # x has more rows than c
        ((2, 3), (2, 12), ("f", "d")),  # dtypes differ
        ((2, 3), (2, 12), ("i", "i")),  # not float
        ((2, 3, 2), (2, 12, 3), ("f", "f")),  # trailing shapes differ
        ((3,), (12,), ("f", "f")),  # no batch axis
    ],
)
def test_invalid_inputs(c_shape, x_shape, dtypes):
    c_prev = numpy.zeros(c_shape, dtypes[0])
    x = numpy.zeros(x_shape, dtypes[1])
    with pytest.raises(type_check.InvalidType):
        lstm.lstm(c_prev, x)


@pytest.mark.parametrize("batch", [3, 2, 0])
def test_grad_node_without_cache_backward(batch):
    # LSTMGrad() built on its own computes the gates from x and tanh from c.
    rng = numpy.random.RandomState(0)
    state = (3, 2, 4)
    inputs = [
        rng.uniform(-1, 1, shape)
        for shape in (state, (batch, 8, 4), state, state, (batch, 2, 4))
    ]
    grads = [rng.uniform(-1, 1, shape) for shape in (state, (batch, 8, 4))]
    gradient_check.check_backward(lstm.LSTMGrad(), inputs, grads, atol=1e-4)


def test_grad_node_without_cache_matches_backward():
    rng = numpy.random.RandomState(1)
    c_prev = chainer.Variable(rng.uniform(-1, 1, (3, 2)))
    x = chainer.Variable(rng.uniform(-1, 1, (2, 8)))
    c, h = lstm.lstm(c_prev, x)
    gc = rng.uniform(-1, 1, (3, 2))
    gh = rng.uniform(-1, 1, (2, 2))
    outs = lstm.LSTMGrad().apply((c_prev, x, c, gc, gh))
    chainer.backward([c, h], [chainer.Variable(gc), chainer.Variable(gh)])
    numpy.testing.assert_allclose(outs[0].array, c_prev.grad, rtol=1e-12)
    numpy.testing.assert_allclose(outs[1].array, x.grad, rtol=1e-12)
