import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.activation import simplified_dropconnect
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _expected(x, W, b, mask, ratio):
    x = x.reshape(len(x), -1)
    scaled = mask * W / (1 - ratio)
    y = numpy.einsum("nk,njk->nj", x, scaled) if mask.ndim == 3 else x @ scaled.T
    return y if b is None else y + b


@testing.parameterize(
    *testing.product(
        {
            "x_shape": [(3, 4), (3, 2, 2)],
            "batchwise": [True, False],
            "nobias": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSimplifiedDropconnect(testing.LinkTestCase):
    ratio = 0.4
    out_size = 2

    def setUp(self):
        self.param_names = ("W",) if self.nobias else ("W", "b")
        n = self.x_shape[0]
        mask_shape = (self.out_size, 4)
        if self.batchwise:
            mask_shape = (n, *mask_shape)
        self.mask = numpy.random.uniform(0, 1, mask_shape) >= self.ratio
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_params(self):
        W = numpy.random.uniform(-1, 1, (self.out_size, 4)).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.out_size).astype(self.dtype)
        return W, b

    def create_link(self, inits):
        W, b = inits
        # As in Chainer, the parameters take the default dtype.
        with chainer.using_config("dtype", self.dtype):
            return simplified_dropconnect.SimplifiedDropconnect(
                4, self.out_size, self.ratio, self.nobias, W, b
            )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype),)

    def forward(self, link, inputs, device):
        (x,) = inputs
        return (link(x, mask=device.send(self.mask)),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        b = None if link.b is None else link.b.array
        y = _expected(x, link.W.array, b, self.mask, self.ratio)
        return (y.astype(self.dtype),)


def test_lazy_in_size():
    link = simplified_dropconnect.SimplifiedDropconnect(None, 3)
    assert link.W.array is None
    x = numpy.random.uniform(-1, 1, (2, 2, 5)).astype(numpy.float32)
    y = link(x, train=False)
    assert link.W.shape == (3, 10)
    assert y.shape == (2, 3)
    expected = x.reshape(2, 10) @ link.W.array.T + link.b.array
    testing.assert_allclose(y.array, expected, rtol=1e-5)


def test_default_initializers():
    link = simplified_dropconnect.SimplifiedDropconnect(4, 3)
    assert link.W.shape == (3, 4)
    assert numpy.isfinite(link.W.array).all()
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(3, "f"))
    assert link.ratio == 0.5


def test_test_mode_is_linear():
    link = simplified_dropconnect.SimplifiedDropconnect(4, 3, ratio=0.9)
    x = numpy.random.uniform(-1, 1, (5, 4)).astype(numpy.float32)
    y = link(x, train=False)
    expected = x @ link.W.array.T + link.b.array
    testing.assert_allclose(y.array, expected, rtol=1e-5)


def test_train_mode_drops_weights():
    link = simplified_dropconnect.SimplifiedDropconnect(50, 1, ratio=0.5, nobias=True)
    x = numpy.ones((1, 50), numpy.float32)
    link.W.array[...] = 1
    # Every output is 2 * (number of kept weights), an even integer <= 100.
    y = link(x, use_batchwise_mask=False).array
    assert y.shape == (1, 1)
    assert y[0, 0] % 2 == 0
    assert 0 <= y[0, 0] <= 100


def test_wrong_input_size_is_invalid():
    link = simplified_dropconnect.SimplifiedDropconnect(4, 3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 5), numpy.float32))


def test_serialization_round_trip():
    src = simplified_dropconnect.SimplifiedDropconnect(4, 3)
    dst = simplified_dropconnect.SimplifiedDropconnect(None, 3)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)


def test_nobias_has_no_bias():
    link = simplified_dropconnect.SimplifiedDropconnect(4, 3, nobias=True)
    assert link.b is None
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert isinstance(link, chainer.Link)


def test_initializer_arguments():
    link = simplified_dropconnect.SimplifiedDropconnect(
        2, 3, initialW=initializers.One(), initial_bias=2.0
    )
    numpy.testing.assert_array_equal(link.W.array, numpy.ones((3, 2), "f"))
    numpy.testing.assert_array_equal(link.b.array, numpy.full(3, 2, "f"))


def test_weight_dtype_may_differ_from_input_dtype():
    link = simplified_dropconnect.SimplifiedDropconnect(
        3,
        2,
        initialW=initializers.Normal(1, numpy.float16),
        initial_bias=initializers.Normal(1, numpy.float32),
    )
    x = numpy.ones((4, 3), numpy.float32)
    y = link(x, train=True)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert link.W.grad.dtype == numpy.float16
    assert link.b.grad.dtype == numpy.float32
