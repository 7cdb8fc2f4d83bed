import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.activation import rrelu
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS, "train": [True, False]})
)
@testing.inject_backend_tests(None, [{}])
class TestRReLU(testing.FunctionTestCase):
    l = 0.1
    u = 0.6

    def setUp(self):
        self.r = numpy.random.uniform(self.l, self.u, self.shape).astype(self.dtype)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        # Keep away from the kink at 0.
        x[abs(x) < 0.1] = 0.5
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        r = device.send(self.r)
        with chainer.using_config("train", self.train):
            return (rrelu.rrelu(x, self.l, self.u, r=r),)

    def forward_expected(self, inputs):
        (x,) = inputs
        r = self.r if self.train else (self.l + self.u) / 2
        return (numpy.where(x >= 0, x, x * r).astype(self.dtype),)


def test_random_slopes_lie_between_l_and_u():
    x = -numpy.ones((100, 100), numpy.float32)
    y, r = rrelu.rrelu(x, l=0.2, u=0.3, return_r=True)
    assert r.shape == x.shape
    assert r.dtype == numpy.float32
    assert 0.2 <= r.min() < 0.21
    assert 0.29 < r.max() < 0.3
    numpy.testing.assert_array_equal(y.array, -r)


def test_test_mode_uses_the_mean_slope():
    x = numpy.array([-2.0, 3.0], numpy.float32)
    with chainer.using_config("train", False):
        y, r = rrelu.rrelu(x, return_r=True)
    mean = (1 / 8 + 1 / 3) / 2
    numpy.testing.assert_allclose(r, [mean, mean])
    numpy.testing.assert_allclose(y.array, [-2 * mean, 3.0], rtol=1e-6)


def test_gradient_uses_the_slopes():
    x = chainer.Variable(numpy.array([-1.0, 2.0], numpy.float32))
    r = numpy.array([0.25, 0.125], numpy.float32)
    y = rrelu.rrelu(x, r=r)
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.25, 1.0])


@pytest.mark.parametrize(("l", "u"), [(-0.1, 0.5), (0.2, 1.0), (0.4, 0.3)])
def test_bad_bounds_are_rejected(l, u):
    with pytest.raises(ValueError):
        rrelu.rrelu(numpy.zeros(3, numpy.float32), l, u)


def test_r_of_another_shape_is_invalid():
    with pytest.raises(type_check.InvalidType):
        rrelu.rrelu(numpy.zeros(3, numpy.float32), r=numpy.zeros(2, numpy.float32))


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        rrelu.rrelu(numpy.arange(3, dtype=numpy.int32))


def test_unknown_keyword_is_rejected():
    with pytest.raises(TypeError, match="unexpected"):
        rrelu.rrelu(numpy.zeros(3, numpy.float32), train=True)
