import warnings

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.normalization import l2_normalization
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "shape_axis": [
                ((3, 4), 1),
                ((3, 4), 0),
                ((2, 3, 4), (1, 2)),
                ((2, 3, 4), -1),
                ((5,), 0),
            ],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "eps": [1e-5, 0.5],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestNormalize(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (l2_normalization.normalize(x, self.eps, self.axis),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        norm = numpy.sqrt((x * x).sum(axis=self.axis, keepdims=True))
        return ((x / (norm + self.eps)).astype(self.dtype),)


def test_zero_vector_has_a_finite_gradient():
    x = chainer.Variable(numpy.zeros((2, 3), numpy.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = l2_normalization.normalize(x)
        gy = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
        (gx,) = chainer.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
        (ggx,) = chainer.grad([gx], [x], grad_outputs=[numpy.ones_like(gy)])
    numpy.testing.assert_array_equal(y.array, 0)
    numpy.testing.assert_allclose(gx.array, gy / 1e-5, rtol=1e-5)
    assert numpy.isfinite(ggx.array).all()


@pytest.mark.parametrize(
    ("x", "axis"),
    [(numpy.zeros((2, 3), numpy.float32), 2), (numpy.zeros((2, 3), numpy.int32), 1)],
)
def test_invalid_types(x, axis):
    with pytest.raises(type_check.InvalidType):
        l2_normalization.normalize(x, axis=axis)


def test_catalogue():
    import chainer.functions as F

    assert F.normalize is l2_normalization.normalize
