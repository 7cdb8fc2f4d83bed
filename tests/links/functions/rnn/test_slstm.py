import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.functions.rnn import slstm
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _slstm_reference(c1, c2, x1, x2):
    """NumPy S-LSTM in float64; gates a, i, f, o interleaved per unit.

    Each child's cell input and input and forget gates are activated on their
    own; the output gate sums both children.
    """
    c1, c2, x1, x2 = (v.astype(numpy.float64) for v in (c1, c2, x1, x2))
    shape = (x1.shape[0], c1.shape[1], 4, *x1.shape[2:])
    r1 = x1.reshape(shape)
    r2 = x2.reshape(shape)
    c = (
        numpy.tanh(r1[:, :, 0]) * _sigmoid(r1[:, :, 1])
        + numpy.tanh(r2[:, :, 0]) * _sigmoid(r2[:, :, 1])
        + _sigmoid(r1[:, :, 2]) * c1
        + _sigmoid(r2[:, :, 2]) * c2
    )
    o = _sigmoid(r1[:, :, 3] + r2[:, :, 3])
    return c, o * numpy.tanh(c)


def test_children_gates_activated_separately():
    # One unit, hand-picked gates: a1 = 1, a2 = -1, i1 = i2 = 0 (sigmoid 0.5).
    # Summing first would give tanh(0) * sigmoid(0) = 0; Chainer's cell gives
    # tanh(1) / 2 + tanh(-1) / 2 + the forget terms.
    c1 = numpy.array([[2.0]])
    c2 = numpy.array([[4.0]])
    x1 = numpy.array([[1.0, 0.0, 0.0, 3.0]])
    x2 = numpy.array([[-1.0, 0.0, 100.0, -3.0]])
    c, h = slstm.slstm(c1, c2, x1, x2)
    expected_c = 0.5 * numpy.tanh(1.0) - 0.5 * numpy.tanh(1.0) + 1.0 + 4.0
    numpy.testing.assert_allclose(c.array, [[expected_c]], rtol=1e-12)
    numpy.testing.assert_allclose(h.array, [[0.5 * numpy.tanh(5.0)]], rtol=1e-12)
    x2[0, 0] = 0.5
    c, _ = slstm.slstm(c1, c2, x1, x2)
    expected_c = 0.5 * numpy.tanh(1.0) + 0.5 * numpy.tanh(0.5) + 5.0
    numpy.testing.assert_allclose(c.array, [[expected_c]], rtol=1e-12)


@pytest.mark.parametrize("dtype", _FLOATS)
def test_slstm_grad_node_backward(dtype):
    # SLSTMGrad is a node of its own: inputs (c1, c2, x1, x2, c, gc, gh).
    rng = numpy.random.RandomState(0)
    c_shape = (3, 2, 4)
    x_shape = (3, 8, 4)
    shapes = [c_shape, c_shape, x_shape, x_shape, c_shape, c_shape, c_shape]
    inputs = [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]
    grads = [rng.uniform(-1, 1, s).astype(dtype) for s in shapes[:4]]
    options = {"dtype": numpy.float64, "atol": 1e-4, "rtol": 1e-3}
    if dtype == numpy.float16:
        options.update(atol=1e-3, rtol=1e-2)
    gradient_check.check_backward(slstm.SLSTMGrad(), inputs, grads, **options)


def test_slstm_grad_node_matches_backward():
    rng = numpy.random.RandomState(1)
    c1, c2 = (chainer.Variable(rng.uniform(-1, 1, (2, 3))) for _ in range(2))
    x1, x2 = (chainer.Variable(rng.uniform(-1, 1, (2, 12))) for _ in range(2))
    c, h = slstm.slstm(c1, c2, x1, x2)
    gc = rng.uniform(-1, 1, (2, 3))
    gh = rng.uniform(-1, 1, (2, 3))
    outs = slstm.SLSTMGrad().apply((c1, c2, x1, x2, c, gc, gh))
    c.grad = gc
    h.grad = gh
    chainer.backward([c, h], [chainer.Variable(gc), chainer.Variable(gh)])
    for out, v in zip(outs, (c1, c2, x1, x2), strict=True):
        numpy.testing.assert_allclose(out.array, v.grad, rtol=1e-12)


@testing.parameterize(
    *testing.product({"batch": [3, 0], "rest": [(), (2,)], "dtype": _FLOATS})
)
@testing.inject_backend_tests(None, [{}])
class TestSLSTM(testing.FunctionTestCase):
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
        c_shape = (self.batch, self.n_units, *self.rest)
        x_shape = (self.batch, 4 * self.n_units, *self.rest)
        return tuple(
            numpy.random.uniform(-1, 1, shape).astype(self.dtype)
            for shape in (c_shape, c_shape, x_shape, x_shape)
        )

    def forward(self, inputs, device):
        return slstm.slstm(*inputs)

    def forward_expected(self, inputs):
        return tuple(y.astype(self.dtype) for y in _slstm_reference(*inputs))


def test_backward_with_one_output_used():
    inputs = [
        chainer.Variable(numpy.random.randn(*s)) for s in [(2, 3)] * 2 + [(2, 12)] * 2
    ]
    c, h = slstm.slstm(*inputs)
    c.grad = numpy.ones_like(c.array)
    c.backward()
    assert all(v.grad is not None for v in inputs)
    for v in inputs:
        v.cleargrad()
    _, h = slstm.slstm(*inputs)
    h.grad = numpy.ones_like(h.array)
    h.backward()
    assert all(v.grad is not None for v in inputs)


@pytest.mark.parametrize(
    "shapes",
    [
        [(2, 3), (2, 3), (2, 11), (2, 12)],  # x1 is not 4 * H wide
        [(2, 3), (2, 3), (2, 12), (3, 12)],  # batch sizes differ
        [(2, 3), (2, 4), (2, 12), (2, 16)],  # children of different sizes
        [(2, 3, 2), (2, 3, 2), (2, 12, 2), (2, 12, 3)],  # trailing axes differ
    ],
)
def test_invalid_shapes(shapes):
    inputs = [numpy.zeros(s, numpy.float32) for s in shapes]
    with pytest.raises(type_check.InvalidType):
        slstm.slstm(*inputs)


def test_invalid_dtype():
    c = numpy.zeros((2, 3), numpy.float32)
    x = numpy.zeros((2, 12), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        slstm.slstm(c, c.astype(numpy.float64), x, x)
