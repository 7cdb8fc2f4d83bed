import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.noise import simplified_dropconnect
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "x_shape": [(4, 3), (4, 3, 2)],
            "batchwise": [True, False],
            "bias": [True, False],
            "train": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSimplifiedDropconnect(testing.FunctionTestCase):
    ratio = 0.5
    out_size = 2

    def setUp(self):
        in_size = int(numpy.prod(self.x_shape[1:]))
        self.w_shape = (self.out_size, in_size)
        mask_shape = self.w_shape
        if self.batchwise:
            mask_shape = (self.x_shape[0], *mask_shape)
        self.mask = numpy.random.uniform(0, 1, mask_shape) >= self.ratio
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, self.w_shape).astype(self.dtype)
        if not self.bias:
            return x, W
        b = numpy.random.uniform(-1, 1, self.out_size).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        mask = device.send(self.mask)
        y = simplified_dropconnect.simplified_dropconnect(
            *inputs, ratio=self.ratio, train=self.train, mask=mask
        )
        return (y,)

    def forward_expected(self, inputs):
        x, W = (a.astype(numpy.float64) for a in inputs[:2])
        x = x.reshape(len(x), -1)
        if not self.train:
            y = x @ W.T
        elif self.batchwise:
            y = numpy.einsum("ijk,ik->ij", W * self.mask / (1 - self.ratio), x)
        else:
            y = x @ (W * self.mask / (1 - self.ratio)).T
        if self.bias:
            y = y + inputs[2]
        return (y.astype(self.dtype),)


@pytest.mark.parametrize("batchwise", [True, False])
def test_random_mask_drops_at_the_ratio(batchwise):
    x = numpy.ones((10, 30), numpy.float32)
    W = numpy.ones((20, 30), numpy.float32)
    func = simplified_dropconnect.SimplifiedDropconnect(0.25, None, batchwise)
    (y,) = func.apply((x, W))
    assert func.mask.shape == ((10, 20, 30) if batchwise else (20, 30))
    assert abs(func.mask.mean() - 0.75) < 0.03
    expected = func.mask.sum(axis=-1) / 0.75
    numpy.testing.assert_allclose(
        y.array, numpy.broadcast_to(expected, (10, 20)), rtol=1e-5
    )


def test_test_mode_is_linear():
    x = numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float32)
    W = numpy.random.uniform(-1, 1, (5, 4)).astype(numpy.float32)
    b = numpy.random.uniform(-1, 1, 5).astype(numpy.float32)
    y = simplified_dropconnect.simplified_dropconnect(x, W, b, train=False)
    numpy.testing.assert_allclose(y.array, x @ W.T + b, rtol=1e-5)


def test_mask_may_be_a_variable():
    x = numpy.ones((2, 3), numpy.float32)
    W = numpy.ones((4, 3), numpy.float32)
    mask = chainer.Variable(numpy.ones((4, 3), numpy.float32))
    y = simplified_dropconnect.simplified_dropconnect(x, W, ratio=0.5, mask=mask)
    numpy.testing.assert_array_equal(y.array, numpy.full((2, 4), 6.0))


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "b_shape"),
    [
        ((2, 3), (4, 2), None),
        ((3,), (4, 3), None),
        ((2, 3), (4, 3, 1), None),
        ((2, 3), (4, 3), (3,)),
        ((2, 3), (4, 3), (4, 1)),
    ],
)
def test_mismatched_shapes_are_invalid(x_shape, w_shape, b_shape):
    args = [numpy.zeros(x_shape, numpy.float32), numpy.zeros(w_shape, numpy.float32)]
    if b_shape is not None:
        args.append(numpy.zeros(b_shape, numpy.float32))
    with pytest.raises(type_check.InvalidType):
        simplified_dropconnect.simplified_dropconnect(*args)


@pytest.mark.parametrize("mask_shape", [(3, 4, 3), (2, 3, 4), (4, 4)])
def test_mask_of_another_shape_is_invalid(mask_shape):
    x = numpy.zeros((2, 3), numpy.float32)
    W = numpy.zeros((4, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        simplified_dropconnect.simplified_dropconnect(
            x, W, mask=numpy.ones(mask_shape, bool)
        )


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        simplified_dropconnect.simplified_dropconnect(
            numpy.zeros((2, 3), numpy.int32), numpy.zeros((4, 3), numpy.int32)
        )


@pytest.mark.parametrize("ratio", [1.0, -0.5])
def test_ratio_out_of_range_is_rejected(ratio):
    with pytest.raises(ValueError, match="range"):
        simplified_dropconnect.simplified_dropconnect(
            numpy.zeros((2, 3), numpy.float32),
            numpy.zeros((4, 3), numpy.float32),
            ratio=ratio,
        )


@pytest.mark.parametrize(
    ("x_dtype", "w_dtype", "b_dtype"),
    [
        (numpy.float32, numpy.float16, numpy.float64),
        (numpy.float16, numpy.float64, numpy.float32),
        (numpy.float64, numpy.float32, numpy.float16),
    ],
)
@pytest.mark.parametrize("batchwise", [True, False])
def test_mixed_float_dtypes(x_dtype, w_dtype, b_dtype, batchwise):
    rng = numpy.random.RandomState(0)
    x = chainer.Variable(rng.uniform(-1, 1, (4, 3)).astype(x_dtype))
    W = chainer.Variable(rng.uniform(-1, 1, (2, 3)).astype(w_dtype))
    b = chainer.Variable(rng.uniform(-1, 1, 2).astype(b_dtype))
    mask_shape = (4, 2, 3) if batchwise else (2, 3)
    mask = rng.uniform(size=mask_shape) >= 0.5
    y = simplified_dropconnect.simplified_dropconnect(x, W, b, ratio=0.5, mask=mask)
    assert y.dtype == x_dtype
    Wm = W.array.astype(numpy.float64) * mask * 2
    x64 = x.array.astype(numpy.float64)
    expected = numpy.einsum("ijk,ik->ij", numpy.broadcast_to(Wm, (4, 2, 3)), x64)
    expected += b.array
    tol = 1e-2 if numpy.float16 in (x_dtype, w_dtype, b_dtype) else 1e-6
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert (x.grad.dtype, W.grad.dtype, b.grad.dtype) == (x_dtype, w_dtype, b_dtype)
    numpy.testing.assert_allclose(b.grad, [4.0, 4.0])
    gx = Wm.sum(axis=-2)
    numpy.testing.assert_allclose(
        x.grad, numpy.broadcast_to(gx, (4, 3)), rtol=tol, atol=tol
    )
