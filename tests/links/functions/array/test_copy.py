import numpy
import pytest

import chainer
from chainer import backend
from chainer import functions
from chainer import testing
from chainer.backends import cuda

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {"shape": [(3, 2), ()], "dtype": _FLOATS, "dst": [-1, "@numpy", "device"]}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestCopy(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        dst = device if self.dst == "device" else self.dst
        y = functions.copy(x, dst)
        assert backend.get_device_from_array(y.array) == backend.get_device(dst)
        if backend.get_device(dst) != device:
            # The test compares outputs on the test's device: copying back
            # also checks the gradient across both transfers.
            y = functions.copy(y, device)
        return (y,)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (x.copy(),)


def test_output_does_not_alias_input():
    x = numpy.arange(3, dtype=numpy.float32)
    y = functions.copy(x, -1)
    assert not numpy.shares_memory(y.array, x)
    numpy.testing.assert_array_equal(y.array, x)


def test_dummy_device_means_cpu():
    x = chainer.Variable(numpy.arange(3, dtype=numpy.float32))
    y = functions.copy(x, cuda.DummyDevice)
    assert isinstance(y.array, numpy.ndarray)
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.ones(3))


def test_invalid_device():
    x = numpy.zeros(3, numpy.float32)
    # As chainer.get_device: a TypeError for a specifier of no known type.
    with pytest.raises(TypeError, match="invalid device specifier"):
        functions.copy(x, object())
