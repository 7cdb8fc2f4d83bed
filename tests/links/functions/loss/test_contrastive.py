import numpy
import pytest

from chainer import testing
from chainer.functions.loss import contrastive
from chainer.utils import type_check


def _expected(x0, x1, y, margin, reduce):
    d = numpy.sqrt(((x0.astype(numpy.float64) - x1) ** 2).sum(axis=1))
    loss = (y * d**2 + (1 - y) * numpy.maximum(margin - d, 0) ** 2) / 2
    return loss.sum() / len(x0) if reduce == "mean" else loss


@testing.parameterize(
    *testing.product(
        {
            "shape": [(5, 3), (1, 4)],
            "margin": [1.0, 2.0],
            "reduce": ["mean", "no"],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestContrastive(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-1, "rtol": 1e-1}

    def generate_inputs(self):
        n = self.shape[0]
        x0 = numpy.random.uniform(-1, 1, self.shape)
        # Distances well inside or outside the margin, away from its kink.
        direction = numpy.random.normal(size=self.shape)
        direction /= numpy.linalg.norm(direction, axis=1, keepdims=True)
        dist = self.margin * numpy.random.choice([0.3, 0.6, 1.5], n)[:, None]
        x1 = x0 + direction * dist
        y = numpy.random.randint(0, 2, n).astype(numpy.int32)
        return x0.astype(self.dtype), x1.astype(self.dtype), y

    def forward(self, inputs, device):
        x0, x1, y = inputs
        return (contrastive.contrastive(x0, x1, y, self.margin, self.reduce),)

    def forward_expected(self, inputs):
        x0, x1, y = inputs
        loss = _expected(x0, x1, y, self.margin, self.reduce)
        return (numpy.asarray(loss, dtype=self.dtype),)


def test_equal_inputs_have_finite_gradient():
    import chainer

    x0 = chainer.Variable(numpy.ones((2, 3), "f"))
    x1 = chainer.Variable(numpy.ones((2, 3), "f"))
    loss = contrastive.contrastive(x0, x1, numpy.array([0, 1], "i"))
    loss.backward()
    assert numpy.isfinite(x0.grad).all()
    numpy.testing.assert_allclose(float(loss.array), 0.25)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_equal_inputs_gradient_is_zero_for_dissimilar_pairs(dtype):
    # At distance 0 the gradient of max(margin - d, 0)^2 is taken as 0 (the
    # central difference); float16 used to overflow to NaN there.
    import chainer

    x = numpy.random.uniform(-1, 1, (4, 3)).astype(dtype)
    x0, x1 = chainer.Variable(x), chainer.Variable(x.copy())
    loss = contrastive.contrastive(x0, x1, numpy.zeros(4, numpy.int32), margin=2)
    loss.backward()
    assert x0.grad.dtype == dtype
    numpy.testing.assert_array_equal(x0.grad, 0)
    numpy.testing.assert_array_equal(x1.grad, 0)


def test_float16_small_distance_gradient_is_finite():
    import chainer

    x0 = chainer.Variable(numpy.zeros((1, 2), numpy.float16))
    x1 = chainer.Variable(numpy.array([[1e-4, 0]], numpy.float16))
    contrastive.contrastive(x0, x1, numpy.zeros(1, numpy.int32)).backward()
    assert numpy.isfinite(x0.grad).all()


@pytest.mark.parametrize("margin", [0, -1])
def test_invalid_margin(margin):
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(ValueError, match="margin"):
        contrastive.contrastive(x, x, numpy.zeros(2, "i"), margin)


def test_invalid_reduce():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(ValueError, match="reduce"):
        contrastive.contrastive(x, x, numpy.zeros(2, "i"), reduce="sum")


@pytest.mark.parametrize(
    ("x0", "x1", "y"),
    [
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "d"), numpy.zeros(2, "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 4), "f"), numpy.zeros(2, "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "f"), numpy.zeros(3, "i")),
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "f"), numpy.zeros(2, "f")),
        (numpy.zeros(3, "f"), numpy.zeros(3, "f"), numpy.zeros(3, "i")),
    ],
)
def test_invalid_inputs(x0, x1, y):
    with pytest.raises(type_check.InvalidType):
        contrastive.contrastive(x0, x1, y)
