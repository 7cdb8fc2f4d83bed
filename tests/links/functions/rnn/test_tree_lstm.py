import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.rnn import tree_lstm
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _tree_lstm_reference(*inputs):
    """NumPy TreeLSTM in float64; blocks a, i, o, f_1..f_N one after another."""
    cs = [c.astype(numpy.float64) for c in inputs[:-1]]
    x = inputs[-1].astype(numpy.float64)
    n_gates = 3 + len(cs)
    r = x.reshape((x.shape[0], n_gates, x.shape[1] // n_gates, *x.shape[2:]))
    c = numpy.tanh(r[:, 0]) * _sigmoid(r[:, 1])
    for k, c_k in enumerate(cs):
        c = c + _sigmoid(r[:, 3 + k]) * c_k
    return c, _sigmoid(r[:, 2]) * numpy.tanh(c)


@testing.parameterize(
    *testing.product(
        {"n_ary": [1, 3], "batch": [3, 0], "rest": [(), (2,)], "dtype": _FLOATS}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestTreeLSTM(testing.FunctionTestCase):
    n_units = 2

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
        x_shape = (self.batch, (3 + self.n_ary) * self.n_units, *self.rest)
        shapes = [c_shape] * self.n_ary + [x_shape]
        return tuple(
            numpy.random.uniform(-1, 1, shape).astype(self.dtype) for shape in shapes
        )

    def forward(self, inputs, device):
        return tree_lstm.tree_lstm(*inputs)

    def forward_expected(self, inputs):
        return tuple(y.astype(self.dtype) for y in _tree_lstm_reference(*inputs))


def test_gates_are_contiguous_blocks():
    # x = [a | i | o | f1 | f2], each block H wide.
    big = 30.0
    c1 = numpy.array([[2.0]])
    c2 = numpy.array([[5.0]])
    x = numpy.array([[big, big, big, big, -big]])
    c, h = tree_lstm.tree_lstm(c1, c2, x)
    numpy.testing.assert_allclose(c.array, [[3.0]], atol=1e-12)
    numpy.testing.assert_allclose(h.array, [[numpy.tanh(3.0)]], atol=1e-12)


def test_backward_with_only_c_used():
    cs = [chainer.Variable(numpy.random.randn(2, 3)) for _ in range(2)]
    x = chainer.Variable(numpy.random.randn(2, 15))
    c, _ = tree_lstm.tree_lstm(*cs, x)
    c.grad = numpy.ones_like(c.array)
    c.backward()
    assert cs[0].grad is not None
    assert x.grad is not None


@pytest.mark.parametrize(
    "shapes",
    [
        [(2, 3), (2, 14)],  # x is not (3 + N) * H wide
        [(2, 3), (3, 12)],  # batch sizes differ
        [(2, 3), (2, 4), (2, 15)],  # children of different sizes
        [(2, 3, 2), (2, 12, 3)],  # trailing axes differ
        [(2, 12)],  # no child
    ],
)
def test_invalid_shapes(shapes):
    inputs = [numpy.zeros(s, numpy.float32) for s in shapes]
    with pytest.raises(type_check.InvalidType):
        tree_lstm.tree_lstm(*inputs)


def test_invalid_dtype():
    with pytest.raises(type_check.InvalidType):
        tree_lstm.tree_lstm(
            numpy.zeros((2, 3), numpy.float64), numpy.zeros((2, 12), numpy.float32)
        )
