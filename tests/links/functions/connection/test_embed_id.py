import numpy
import pytest

import chainer
from chainer import functions
from chainer import gradient_check
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _expected(x, W, ignore_label):
    y = W[numpy.where(x == ignore_label, 0, x)] if ignore_label is not None else W[x]
    if ignore_label is not None:
        y[x == ignore_label] = 0
    return y


@testing.parameterize(
    *testing.product(
        {
            "x_data": [[0, 1, 0], [[1, 3], [2, 3]], [2]],
            "ignore_label": [None, 1, -1],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestEmbedID(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        x = numpy.array(self.x_data, numpy.int32)
        if self.ignore_label == -1:
            x[..., 0] = -1
        W = numpy.random.uniform(-1, 1, (4, 3)).astype(self.dtype)
        return x, W

    def forward(self, inputs, device):
        x, W = inputs
        return (functions.embed_id(x, W, ignore_label=self.ignore_label),)

    def forward_expected(self, inputs):
        x, W = inputs
        return (_expected(x, W, self.ignore_label),)


def _reference_grad(xs, gys, vocab, ignore_label=None):
    g = numpy.zeros((vocab, gys[0].shape[-1]))
    for x, gy in zip(xs, gys, strict=True):
        for i, row in zip(x.ravel(), gy.reshape(x.size, -1), strict=True):
            if i != ignore_label:
                g[i] += row
    return g


@pytest.mark.parametrize("ignore_label", [None, -1])
def test_accumulated_over_calls(ignore_label):
    # Several lookups into one W (time steps of a language model), with
    # repeated ids inside a call and across calls.
    W = chainer.Parameter(numpy.random.uniform(-1, 1, (7, 5)).astype(numpy.float32))
    xs = [
        numpy.array([1, 2, 1, 1], numpy.int32),
        numpy.array([[3, 6], [6, -1]], numpy.int32),
        numpy.array([0, 1, -1], numpy.int32),
    ]
    if ignore_label is None:
        xs = [numpy.where(x < 0, 4, x).astype(numpy.int32) for x in xs]
    gys = [numpy.random.uniform(-1, 1, (*x.shape, 5)).astype(numpy.float32) for x in xs]
    loss = 0
    for x, gy in zip(xs, gys, strict=True):
        loss = loss + functions.sum(functions.embed_id(x, W, ignore_label) * gy)
    loss.backward()
    expected = _reference_grad(xs, gys, 7, ignore_label)
    numpy.testing.assert_allclose(W.grad, expected, rtol=1e-5, atol=1e-6)

    # A second backward accumulates; cleargrads starts again.
    loss.backward()
    numpy.testing.assert_allclose(W.grad, 2 * expected, rtol=1e-5, atol=1e-6)
    W.cleargrad()
    loss.backward()
    numpy.testing.assert_allclose(W.grad, expected, rtol=1e-5, atol=1e-6)


def test_accumulates_onto_existing_and_tied_gradients():
    # W also feeds a matmul (weight tying) and already holds a gradient.
    W = chainer.Parameter(numpy.random.uniform(-1, 1, (6, 3)).astype(numpy.float32))
    old = numpy.random.uniform(-1, 1, (6, 3)).astype(numpy.float32)
    W.grad = old.copy()
    h = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    x1 = numpy.array([5, 0], numpy.int32)
    x2 = numpy.array([0, 0, 2], numpy.int32)
    loss = functions.sum(functions.embed_id(x1, W))
    loss = loss + functions.sum(functions.matmul(h, W.T))
    loss = loss + functions.sum(functions.embed_id(x2, W) * 3)
    loss.backward()
    expected = old + _reference_grad([x1], [numpy.ones((2, 3))], 6)
    expected += _reference_grad([x2], [numpy.full((3, 3), 3.0)], 6)
    expected += h.sum(axis=0)[None, :]
    numpy.testing.assert_allclose(W.grad, expected, rtol=1e-5, atol=1e-5)
    # The gradient held before the backward is not modified in place.
    assert not numpy.shares_memory(W.grad, old)


def test_intermediate_weight_keeps_its_retained_gradient():
    W = chainer.Parameter(numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float32))
    V = W * 2
    x = numpy.array([1, 3, 1], numpy.int32)
    loss = functions.sum(functions.embed_id(x, V)) + functions.sum(
        functions.embed_id(x, V)
    )
    loss.backward(retain_grad=True)
    expected = 2 * _reference_grad([x], [numpy.ones((3, 2))], 4)
    numpy.testing.assert_allclose(V.grad, expected)
    numpy.testing.assert_allclose(W.grad, 2 * expected)


def test_grad_function():
    W = chainer.Variable(numpy.random.uniform(-1, 1, (5, 2)).astype(numpy.float64))
    x1 = numpy.array([4, 1], numpy.int32)
    x2 = numpy.array([1], numpy.int32)
    y = functions.sum(functions.embed_id(x1, W)) + functions.sum(
        functions.embed_id(x2, W)
    )
    (gW,) = chainer.grad([y], [W])
    expected = _reference_grad([x1, x2], [numpy.ones((2, 2)), numpy.ones((1, 2))], 5)
    numpy.testing.assert_allclose(gW.array, expected)
    assert W.grad is None


def test_double_backward_through_accumulation():
    # Two lookups into W under enable_double_backprop: the summed gradient
    # stays differentiable.
    x1 = numpy.array([0, 2], numpy.int32)
    x2 = numpy.array([2, 2, 1], numpy.int32)

    def f(W):
        a = functions.embed_id(x1, W)
        b = functions.embed_id(x2, W)
        return functions.sum(a * a) + functions.sum(b * b * b)

    W = numpy.random.uniform(-1, 1, (3, 2))
    gy = numpy.array(1.0)
    ggW = numpy.random.uniform(-1, 1, (3, 2))
    gradient_check.check_double_backward(f, (W,), (gy,), (ggW,), atol=1e-4)


@pytest.mark.parametrize("vocab", [50, 5000])
def test_large_batch_with_repeats(vocab):
    # 1200 ids: all repeated (50 ids), or mostly seen once (5000 ids).
    W = chainer.Parameter(numpy.zeros((vocab, 4), numpy.float64))
    x = numpy.random.randint(0, vocab, (30, 40)).astype(numpy.int64)
    gy = numpy.random.uniform(-1, 1, (30, 40, 4))
    y = functions.embed_id(x, W)
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(W.grad, _reference_grad([x], [gy], vocab))


def test_empty_ids():
    W = chainer.Parameter(numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32))
    y = functions.embed_id(numpy.zeros((0, 4), numpy.int32), W)
    assert y.shape == (0, 4, 2)
    functions.sum(y).backward()
    numpy.testing.assert_array_equal(W.grad, numpy.zeros((3, 2)))


def test_debug_checks_ids():
    W = numpy.zeros((3, 2), numpy.float32)
    with chainer.using_config("debug", True):
        with pytest.raises(ValueError, match="0 <= x < len"):
            functions.embed_id(numpy.array([0, 3], numpy.int32), W)
        with pytest.raises(ValueError, match="0 <= x < len"):
            functions.embed_id(numpy.array([-1, 1], numpy.int32), W)
        y = functions.embed_id(numpy.array([-1, 1], numpy.int32), W, ignore_label=-1)
    assert y.shape == (2, 2)


@pytest.mark.parametrize(
    ("x", "W"),
    [
        (numpy.zeros(2, numpy.float32), numpy.zeros((3, 2), numpy.float32)),
        (numpy.zeros(2, numpy.uint8), numpy.zeros((3, 2), numpy.float32)),
        (numpy.zeros((), numpy.int32), numpy.zeros((3, 2), numpy.float32)),
        (numpy.zeros(2, numpy.int32), numpy.zeros(3, numpy.float32)),
        (numpy.zeros(2, numpy.int32), numpy.zeros((3, 2), numpy.int32)),
    ],
)
def test_invalid(x, W):
    with pytest.raises(type_check.InvalidType):
        functions.embed_id(x, W)


@pytest.mark.parametrize(
    ("ignore_label", "label"), [(None, 3), (None, -1), (None, -4), (-1, -2), (-1, 3)]
)
def test_out_of_range_id_raises(ignore_label, label):
    # Outside debug mode too: a negative id used to wrap around silently.
    W = numpy.zeros((3, 2), numpy.float32)
    x = numpy.array([[0, 1], [label, 2]], numpy.int32)
    with pytest.raises(ValueError, match=rf"embed_id: x\[1, 0\] = {label} is out"):
        functions.embed_id(x, W, ignore_label=ignore_label)
