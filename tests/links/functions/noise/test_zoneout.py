from unittest import mock

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.noise import zoneout
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(3, 4), ()], "dtype": _FLOATS, "ratio": [0.3, 0.7]})
)
@testing.inject_backend_tests(None, [{}])
class TestZoneout(testing.FunctionTestCase):
    def setUp(self):
        self.seed = numpy.random.randint(2**31)

    def generate_inputs(self):
        h = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return h, x

    def forward(self, inputs, device):
        h, x = inputs
        # The same mask on every call, as the gradient checks need.
        numpy.random.seed(self.seed)
        noise = testing.random._draws_from_numpy(device, "rand")
        with noise, chainer.using_config("train", True):
            return (zoneout.zoneout(h, x, self.ratio),)

    def forward_expected(self, inputs):
        h, x = inputs
        numpy.random.seed(self.seed)
        # Zoneout draws one uniform number per element (rand, the same
        # stream as random_sample) and takes x where it is at least the ratio.
        keep_x = numpy.random.random_sample(self.shape) >= self.ratio
        return (numpy.where(keep_x, x, h),)


def test_keeps_h_at_the_ratio():
    h = numpy.zeros((200, 100), numpy.float32)
    x = numpy.ones((200, 100), numpy.float32)
    y = zoneout.zoneout(h, x, 0.3).array
    assert numpy.all((y == 0) | (y == 1))
    assert abs((y == 0).mean() - 0.3) < 0.02


def test_gradients_follow_the_choice():
    h = chainer.Variable(numpy.zeros((20, 30), numpy.float32))
    x = chainer.Variable(numpy.ones((20, 30), numpy.float32))
    y = zoneout.zoneout(h, x)
    y.grad = numpy.full(y.shape, 2.0, numpy.float32)
    y.backward()
    took_x = y.array == 1
    numpy.testing.assert_array_equal(x.grad, 2.0 * took_x)
    numpy.testing.assert_array_equal(h.grad, 2.0 * ~took_x)


def test_returns_x_in_test_mode():
    h = numpy.zeros(3, numpy.float32)
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    with chainer.using_config("train", False):
        assert zoneout.zoneout(h, x, 0.9) is x


def test_mismatched_shapes_are_invalid():
    with pytest.raises(type_check.InvalidType):
        zoneout.zoneout(numpy.zeros(3, numpy.float32), numpy.zeros(2, numpy.float32))


def test_int_inputs_are_invalid():
    with pytest.raises(type_check.InvalidType):
        zoneout.zoneout(numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))


def test_train_argument_is_rejected():
    with pytest.raises(ValueError, match="using_config"):
        zoneout.zoneout(
            numpy.zeros(3, numpy.float32), numpy.zeros(3, numpy.float32), train=True
        )


def test_mask_is_drawn_with_rand():
    # As in Chainer, the draw is xp.random.rand(*shape): patching it fixes
    # the mask (Chainer's own tests rely on this).
    h = numpy.zeros((2, 2), numpy.float32)
    x = numpy.ones((2, 2), numpy.float32)
    draws = numpy.array([[0.1, 0.9], [0.6, 0.2]])
    with mock.patch("numpy.random.rand", return_value=draws) as rand:
        y = zoneout.zoneout(h, x, 0.5)
    rand.assert_called_once_with(2, 2)
    numpy.testing.assert_array_equal(y.array, [[0, 1], [1, 0]])


def test_scalar_input():
    y = zoneout.zoneout(numpy.zeros((), "f"), numpy.ones((), "f"), 0.5)
    assert y.shape == ()
    assert y.array in (0.0, 1.0)
