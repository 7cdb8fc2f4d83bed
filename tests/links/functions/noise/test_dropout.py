import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.noise import dropout
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {"shape": [(3, 4), ()], "dtype": _FLOATS, "ratio": [0.0, 0.3, 0.9]}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDropout(testing.FunctionTestCase):
    def setUp(self):
        keep = numpy.random.uniform(0, 1, self.shape) >= self.ratio
        self.mask = (keep / (1 - self.ratio)).astype(self.dtype)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-3, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        with chainer.using_config("train", True):
            return (dropout.dropout(x, self.ratio, mask=device.send(self.mask)),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return ((x * self.mask).astype(self.dtype),)


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("ratio", [0.0, 0.25, 0.5, 0.8])
def test_drops_at_the_ratio_and_scales_the_rest(dtype, ratio):
    x = numpy.ones((200, 100), dtype)
    y, mask = dropout.dropout(x, ratio, return_mask=True)
    assert y.dtype == dtype
    assert mask.dtype == dtype
    assert mask.shape == x.shape
    scale = dtype(1 / (1 - ratio))
    kept = y.array == scale
    assert numpy.all(kept | (y.array == 0))
    assert abs(kept.mean() - (1 - ratio)) < 0.02
    numpy.testing.assert_array_equal(y.array, mask)


def test_default_ratio_is_one_half():
    y = dropout.dropout(numpy.ones((100, 100), numpy.float32))
    assert set(numpy.unique(y.array)) <= {0.0, 2.0}
    assert abs((y.array == 0).mean() - 0.5) < 0.03


def test_gradient_uses_the_mask():
    x = chainer.Variable(numpy.ones((50, 40), numpy.float32))
    y, mask = dropout.dropout(x, 0.5, return_mask=True)
    y.grad = numpy.full(x.shape, 3.0, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, 3 * mask)


def test_mask_is_reused():
    x = numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float32)
    y1, mask = dropout.dropout(x, 0.5, return_mask=True)
    y2 = dropout.dropout(x, 0.5, mask=mask)
    numpy.testing.assert_array_equal(y1.array, y2.array)


def test_identity_in_test_mode():
    x = chainer.Variable(numpy.ones((3, 4), numpy.float32))
    with chainer.using_config("train", False):
        assert dropout.dropout(x, 0.9) is x
        y, mask = dropout.dropout(x.array, 0.9, return_mask=True)
    assert mask is None
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_array_equal(y.array, x.array)


@pytest.mark.parametrize("ratio", [1.0, -0.1, 1.5])
def test_ratio_out_of_range_is_rejected(ratio):
    with pytest.raises(ValueError, match="range"):
        dropout.dropout(numpy.ones(3, numpy.float32), ratio)


def test_train_argument_is_rejected():
    with pytest.raises(ValueError, match="using_config"):
        dropout.dropout(numpy.ones(3, numpy.float32), 0.5, train=False)


def test_unknown_keyword_is_rejected():
    with pytest.raises(TypeError, match="unexpected"):
        dropout.dropout(numpy.ones(3, numpy.float32), 0.5, masks=None)


def test_int_input_is_invalid():
    with pytest.raises(type_check.InvalidType):
        dropout.dropout(numpy.arange(3, dtype=numpy.int32))


def test_mask_of_another_shape_is_invalid():
    with pytest.raises(type_check.InvalidType):
        dropout.dropout(
            numpy.ones((3, 4), numpy.float32), mask=numpy.ones(4, numpy.float32)
        )
