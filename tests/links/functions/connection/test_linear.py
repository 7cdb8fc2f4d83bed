import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.connection import linear
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _tolerances(case):
    if case.dtype == numpy.float16:
        case.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
        case.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        case.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
    else:
        case.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        case.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}


@testing.parameterize(
    *testing.product(
        {
            # (x shape, n_batch_axes); W is (4, prod(x.shape[n_batch_axes:])).
            "case": [
                ((3, 2), 1),
                ((3, 2, 3), 1),
                ((2, 3, 2), 2),
                ((2, 1, 3, 2), 3),
                ((0, 5), 1),
            ],
            "nobias": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLinear(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        shape, n_batch_axes = self.case
        in_size = int(numpy.prod(shape[n_batch_axes:]))
        x = numpy.random.uniform(-1, 1, shape).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (4, in_size)).astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, numpy.random.uniform(-1, 1, 4).astype(self.dtype)

    def forward(self, inputs, device):
        _, n_batch_axes = self.case
        return (linear.linear(*inputs, n_batch_axes=n_batch_axes),)

    def forward_expected(self, inputs):
        _, n_batch_axes = self.case
        x, W = inputs[:2]
        batch_shape = x.shape[:n_batch_axes]
        x2 = x.astype(numpy.float64).reshape(
            int(numpy.prod(batch_shape)), int(numpy.prod(x.shape[n_batch_axes:]))
        )
        y = x2 @ W.astype(numpy.float64).T
        if len(inputs) == 3:
            y += inputs[2]
        return (y.reshape((*batch_shape, 4)).astype(self.dtype),)


def test_linear_function_node_and_mixed_weight_dtype():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float64))
    y = linear.linear(x, W)
    assert isinstance(y.creator, linear.LinearFunction)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert W.grad.dtype == numpy.float64
    numpy.testing.assert_allclose(W.grad, numpy.ones((4, 3)) @ x.array, rtol=1e-6)


def test_linear_output_is_c_contiguous_and_bias_added_in_place():
    x = numpy.ones((2, 3), numpy.float32)
    W = numpy.ones((4, 3), numpy.float32)
    b = numpy.arange(4, dtype=numpy.float32)
    y = linear.linear(x, W, b).array
    assert y.flags.c_contiguous
    numpy.testing.assert_array_equal(y, numpy.tile(3 + b, (2, 1)))


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "b_shape", "dtype"),
    [
        ((3, 2), (4, 3), None, numpy.float32),  # feature size mismatch
        ((3, 2), (4, 2, 1), None, numpy.float32),  # W not 2-d
        ((3, 2), (4, 2), (3,), numpy.float32),  # bias size
        ((3, 2), (4, 2), None, numpy.int32),  # not float
    ],
)
def test_linear_invalid(x_shape, w_shape, b_shape, dtype):
    x = numpy.zeros(x_shape, dtype)
    W = numpy.zeros(w_shape, dtype)
    b = None if b_shape is None else numpy.zeros(b_shape, dtype)
    with pytest.raises(type_check.InvalidType):
        linear.linear(x, W, b)


def test_linear_bad_n_batch_axes():
    x = numpy.zeros((2, 3), numpy.float32)
    W = numpy.zeros((4, 3), numpy.float32)
    with pytest.raises(ValueError, match="n_batch_axes must be positive"):
        linear.linear(x, W, n_batch_axes=0)
    with pytest.raises(ValueError, match="no feature axis"):
        linear.linear(x, W, n_batch_axes=2)


def _shared_weight_graph(dtype, steps=5, grad=None):
    rng = numpy.random.RandomState(7)
    W = chainer.Parameter(rng.uniform(-1, 1, (4, 3)).astype(dtype))
    b = chainer.Parameter(rng.uniform(-1, 1, (4,)).astype(dtype))
    if grad is not None:
        W.grad = grad.copy()
    h = chainer.Variable(rng.uniform(-1, 1, (2, 3)).astype(dtype))
    total = None
    for _ in range(steps):
        y = linear.linear(h, W, b)
        total = y if total is None else total + y
        h = y[:, :3] * 0.5
    loss = chainer.functions.sum(total * total)
    return W, b, loss


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("with_old_grad", [False, True])
def test_weight_used_at_many_steps_gets_the_same_gradient(dtype, with_old_grad):
    # backward() defers the weight's later contributions to one GEMM at the end
    # of the pass; chainer.grad() does not defer: both must agree.
    old = numpy.full((4, 3), 0.25, dtype) if with_old_grad else None
    W, b, loss = _shared_weight_graph(dtype, grad=old)
    loss.backward()
    W2, b2, loss2 = _shared_weight_graph(dtype)
    gW, gb = chainer.grad([loss2], [W2, b2])
    expected = gW.array + (0 if old is None else old)
    tol = {"rtol": 2e-2, "atol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(W.grad, expected, **tol)
    numpy.testing.assert_allclose(b.grad, gb.array, **tol)
    assert W.grad.dtype == dtype


def test_deferred_weight_gradient_is_not_used_in_double_backprop():
    W, _, loss = _shared_weight_graph(numpy.float64)
    (gW,) = chainer.grad([loss], [W], enable_double_backprop=True)
    W2, _, loss2 = _shared_weight_graph(numpy.float64)
    loss2.backward()
    numpy.testing.assert_allclose(gW.array, W2.grad, rtol=1e-10)
    assert gW.creator is not None  # still a differentiable graph


@pytest.mark.parametrize("bias", [False, True])
def test_plain_backward_takes_both_products_at_once(monkeypatch, bias):
    # Outside a double-backprop graph, the input and weight gradients come
    # from one chainer.utils.gemm.matmuls call (a plugin may run them side by
    # side), equal to the graph path's.
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (6, 4)).astype(numpy.float32)
    W = rng.uniform(-1, 1, (5, 4)).astype(numpy.float32)
    b = rng.uniform(-1, 1, 5).astype(numpy.float32) if bias else None
    gy = rng.uniform(-1, 1, (6, 5)).astype(numpy.float32)
    calls = []
    real_matmuls = linear.gemm.matmuls

    def spy(pairs):
        calls.append([(p.shape, q.shape) for p, q in pairs])
        return real_matmuls(pairs)

    monkeypatch.setattr(linear.gemm, "matmuls", spy)
    grads = {}
    for double in (False, True):
        vx, vW = chainer.Variable(x.copy()), chainer.Variable(W.copy())
        vb = None if b is None else chainer.Variable(b.copy())
        y = linear.linear(vx, vW, vb)
        y.grad = gy
        y.backward(enable_double_backprop=double)
        grads[double] = [v.grad for v in (vx, vW, vb) if v is not None]
    assert calls == [[((6, 5), (5, 4)), ((5, 6), (6, 4))]]
    for fast, graph in zip(grads[False], grads[True], strict=True):
        numpy.testing.assert_allclose(fast, graph, rtol=1e-6)
