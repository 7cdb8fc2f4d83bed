import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _expected(x, W, b, stride):
    sy, sx = stride
    out_c, out_h, out_w, _, kh, kw = W.shape
    y = numpy.zeros((len(x), out_c, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, :, i * sy : i * sy + kh, j * sx : j * sx + kw]
            y[:, :, i, j] = numpy.einsum("ncpq,ocpq->no", patch, W[:, i, j])
    if b is not None:
        y += b
    return y


@testing.parameterize(
    *testing.product(
        {
            "case": [
                ((2, 3, 4, 5), (2, 2), (1, 1)),
                ((1, 2, 5, 5), (3, 2), (2, 1)),
                ((2, 1, 3, 3), (3, 3), (1, 1)),
                ((1, 2, 4, 4), (1, 1), (2, 2)),
            ],
            "nobias": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLocalConvolution2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        x_shape, (kh, kw), (sy, sx) = self.case
        _, c, h, w = x_shape
        out_h = (h - kh) // sy + 1
        out_w = (w - kw) // sx + 1
        x = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (2, out_h, out_w, c, kh, kw))
        inputs = (x, W.astype(self.dtype))
        if not self.nobias:
            b = numpy.random.uniform(-1, 1, (2, out_h, out_w)).astype(self.dtype)
            inputs += (b,)
        return inputs

    def forward(self, inputs, device):
        stride = self.case[2]
        return (functions.local_convolution_2d(*inputs, stride=stride),)

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = None if self.nobias else inputs[2]
        return (_expected(x, W, b, self.case[2]).astype(self.dtype),)


def test_int_stride():
    x = numpy.random.uniform(-1, 1, (1, 2, 5, 5)).astype(numpy.float32)
    W = numpy.random.uniform(-1, 1, (3, 2, 2, 2, 3, 3)).astype(numpy.float32)
    y = functions.local_convolution_2d(x, W, stride=2)
    numpy.testing.assert_allclose(y.array, _expected(x, W, None, (2, 2)), rtol=1e-5)


@pytest.mark.parametrize(
    "shapes",
    [
        ((1, 2, 4, 4), (3, 3, 3, 3, 2, 2)),  # input channels
        ((1, 2, 4, 4), (3, 2, 3, 2, 2, 2)),  # output height
        ((1, 2, 4, 4), (3, 3, 2, 2, 2, 2)),  # output width
        ((2, 4, 4), (3, 3, 3, 2, 2, 2)),  # x not 4-d
        ((1, 2, 4, 4), (3, 3, 3, 2, 2)),  # W not 6-d
        ((1, 2, 4, 4), (3, 3, 3, 2, 2, 2), (3, 3)),  # b shape
        ((1, 2, 4, 4), (3, 3, 3, 2, 2, 2), (3, 3, 2)),  # b shape
    ],
)
def test_invalid_shapes(shapes):
    inputs = [numpy.zeros(s, numpy.float32) for s in shapes]
    with pytest.raises(type_check.InvalidType):
        functions.local_convolution_2d(*inputs)


@pytest.mark.parametrize(
    ("x_dtype", "W_dtype"),
    [(numpy.float32, numpy.float16), (numpy.float16, numpy.float64)],
)
def test_mixed_float_dtypes(x_dtype, W_dtype):
    # As convolution_2d: W is used in x's dtype; each gradient has the dtype
    # of its input.
    x = numpy.random.uniform(-1, 1, (2, 2, 4, 4)).astype(x_dtype)
    W = numpy.random.uniform(-1, 1, (3, 3, 3, 2, 2, 2)).astype(W_dtype)
    b = numpy.random.uniform(-1, 1, (3, 3, 3)).astype(x_dtype)
    xv, Wv, bv = (chainer.Variable(a) for a in (x, W, b))
    y = functions.local_convolution_2d(xv, Wv, bv)
    assert y.dtype == x_dtype
    expected = _expected(x.astype("d"), W.astype("d"), b.astype("d"), (1, 1))
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-2, atol=1e-2)
    y.grad = numpy.ones(y.shape, x_dtype)
    y.backward()
    assert xv.grad.dtype == x_dtype
    assert Wv.grad.dtype == W_dtype
    assert bv.grad.dtype == x_dtype


def test_invalid_dtype():
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    W = numpy.zeros((3, 3, 3, 2, 2, 2), numpy.int32)
    with pytest.raises(type_check.InvalidType):
        functions.local_convolution_2d(x, W)
