import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.functions.pooling import average_pooling_2d
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _reference(x, ksize, stride, pad):
    # Zero padding that counts in the window size.
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = _pair(ksize if stride is None else stride)
    n, c, h, w = x.shape
    xp = numpy.zeros((n, c, h + 2 * ph, w + 2 * pw))
    xp[:, :, ph : ph + h, pw : pw + w] = x
    out_h = (h + 2 * ph - kh) // sy + 1
    out_w = (w + 2 * pw - kw) // sx + 1
    y = numpy.empty((n, c, out_h, out_w), x.dtype)
    for i in range(out_h):
        for j in range(out_w):
            win = xp[:, :, i * sy : i * sy + kh, j * sx : j * sx + kw]
            y[:, :, i, j] = win.mean(axis=(2, 3))
    return y


@testing.parameterize(
    *testing.product(
        {
            "params": [
                dict(ksize=2, stride=None, pad=0),
                dict(ksize=3, stride=2, pad=1),
                dict(ksize=(2, 3), stride=(1, 2), pad=(1, 0)),
                dict(ksize=(5, 6), stride=1, pad=0),
            ],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestAveragePooling2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-3, "rtol": 2e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 5, 6)).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (functions.average_pooling_2d(x, **self.params),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (_reference(x, **self.params),)


def test_gradient_spreads_evenly():
    x = chainer.Variable(numpy.zeros((1, 1, 3, 3), numpy.float32))
    y = functions.average_pooling_2d(x, 2, stride=1)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    expected = numpy.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 4
    numpy.testing.assert_allclose(x.grad[0, 0], expected)


def test_node_ignores_cover_all():
    # As in Chainer 7, AveragePooling2D never covers all input locations.
    node = average_pooling_2d.AveragePooling2D(2, cover_all=True)
    (y,) = node.apply((numpy.ones((1, 1, 5, 5), numpy.float32),))
    assert y.shape == (1, 1, 2, 2)
    assert (node.kh, node.sy, node.ph) == (2, 2, 0)


def test_non_contiguous_input():
    x = numpy.random.rand(2, 3, 8, 6).astype(numpy.float32).transpose(0, 1, 3, 2)
    numpy.testing.assert_allclose(
        functions.average_pooling_2d(x, 2).array,
        _reference(numpy.ascontiguousarray(x), 2, None, 0),
        rtol=1e-6,
    )


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [((2, 3, 4), numpy.float32), ((1, 1, 4, 4), numpy.int32), ((1, 1, 1, 4), "f")],
)
def test_invalid_input(shape, dtype):
    with pytest.raises(type_check.InvalidType):
        functions.average_pooling_2d(numpy.zeros(shape, dtype), 2)
