import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import clip
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shape": [(3, 4), ()],
            "dtype": _FLOATS,
            "bounds": [(-0.5, 0.5), (None, 0.25), (-0.25, None)],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestClip(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape)
        # Keep away from the kinks at the edges.
        for edge in self.bounds:
            if edge is not None:
                x[numpy.abs(x - edge) < 0.05] = 0.0
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return (clip.clip(inputs[0], *self.bounds),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.asarray(numpy.clip(x, *self.bounds)).astype(self.dtype),)


def test_gradient_is_one_at_the_edges():
    x = chainer.Variable(numpy.array([-2.0, -1.0, 0.0, 1.0, 2.0], numpy.float32))
    y = clip.clip(x, -1.0, 1.0)
    y.grad = numpy.ones(5, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0, 1, 1, 1, 0])


def test_numpy_scalar_bounds_keep_the_dtype():
    x = numpy.linspace(-1, 1, 5).astype(numpy.float16)
    y = clip.clip(x, numpy.float64(-0.5), numpy.float64(0.5))
    assert y.dtype == numpy.float16


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        clip.clip(numpy.arange(3, dtype=numpy.int32), 0, 1)


@pytest.mark.parametrize("bounds", [(1.0, 1.0), (2.0, 1.0)])
def test_x_min_must_be_less_than_x_max(bounds):
    with pytest.raises(ValueError, match="x_min must be less than x_max"):
        clip.clip(numpy.ones(3, numpy.float32), *bounds)


def test_one_bound_is_needed():
    with pytest.raises(ValueError, match="at least one"):
        clip.clip(numpy.ones(3, numpy.float32), None, None)
