import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.noise import gumbel_softmax
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _softmax(x, axis):
    e = numpy.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@testing.parameterize(
    *testing.product(
        {
            "shape_axis": [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1), ((5,), 0)],
            "dtype": _FLOATS,
            "tau": [1.0, 0.5],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestGumbelSoftmax(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
        self.seed = numpy.random.randint(2**31)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (log_pi,) = inputs
        # The same Gumbel noise on every call, as the gradient checks need.
        numpy.random.seed(self.seed)
        with testing.random._draws_from_numpy(device, "gumbel"):
            return (gumbel_softmax.gumbel_softmax(log_pi, self.tau, self.axis),)

    def forward_expected(self, inputs):
        (log_pi,) = inputs
        numpy.random.seed(self.seed)
        g = numpy.random.gumbel(size=self.shape).astype(self.dtype)
        z = (log_pi + g).astype(numpy.float64) / self.tau
        return (_softmax(z, self.axis).astype(self.dtype),)


def test_low_temperature_samples_the_categorical_distribution():
    pi = numpy.array([0.1, 0.6, 0.3])
    log_pi = numpy.tile(numpy.log(pi), (5000, 1)).astype(numpy.float32)
    y = gumbel_softmax.gumbel_softmax(log_pi, tau=0.01).array
    numpy.testing.assert_allclose(y.sum(axis=1), 1, rtol=1e-5)
    assert (y.max(axis=1) > 0.99).mean() > 0.95
    freq = numpy.bincount(y.argmax(axis=1), minlength=3) / len(y)
    numpy.testing.assert_allclose(freq, pi, atol=0.03)


def test_default_temperature_and_axis():
    log_pi = chainer.Variable(numpy.zeros((4, 3), numpy.float32))
    y = gumbel_softmax.gumbel_softmax(log_pi)
    assert y.shape == (4, 3)
    numpy.testing.assert_allclose(y.array.sum(axis=1), 1, rtol=1e-5)


def test_zero_dim_input_gives_one():
    y = gumbel_softmax.gumbel_softmax(numpy.array(0.3, numpy.float32))
    assert y.shape == ()
    assert y.dtype == numpy.float32
    assert y.array == 1


def test_axis_out_of_range_is_invalid():
    with pytest.raises(type_check.InvalidType):
        gumbel_softmax.gumbel_softmax(numpy.zeros(3, numpy.float32), axis=1)
