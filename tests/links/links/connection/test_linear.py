import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.connection import linear
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            # (x shape, n_batch_axes), in_size given or lazy
            "case": [((3, 4), 1), ((3, 2, 2), 1), ((2, 3, 4), 2)],
            "lazy": [False, True],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLinear(testing.LinkTestCase):
    param_names = ("W", "b")

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        shape, n_batch_axes = self.case
        in_size = int(numpy.prod(shape[n_batch_axes:]))
        W = numpy.random.uniform(-1, 1, (5, in_size)).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, 5).astype(self.dtype)
        return W, b

    def create_link(self, initializers):
        W, b = initializers
        in_size = None if self.lazy else W.shape[1]
        with chainer.using_config("dtype", self.dtype):
            return linear.Linear(in_size, 5, initialW=W, initial_bias=b)

    def generate_inputs(self):
        shape, _ = self.case
        return (numpy.random.uniform(-1, 1, shape).astype(self.dtype),)

    def forward(self, link, inputs, device):
        (x,) = inputs
        return (link(x, n_batch_axes=self.case[1]),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        n_batch_axes = self.case[1]
        batch = x.shape[:n_batch_axes]
        x2 = x.reshape(int(numpy.prod(batch)), -1).astype(numpy.float64)
        y = x2 @ link.W.array.T.astype(numpy.float64) + link.b.array
        return (y.reshape((*batch, 5)).astype(self.dtype),)


@testing.parameterize(*testing.product({"dtype": _FLOATS}))
@testing.inject_backend_tests(None, [{}])
class TestLinearInitializers(testing.LinkInitializersTestCase):
    param_names = ("W", "b")

    def get_initializers(self):
        return (
            [initializers.Constant(2.0), 3, numpy.full((2, 3), 0.5, self.dtype)],
            [initializers.Constant(1.0), 4],
        )

    def generate_params(self):
        return (initializers.Constant(2.0), initializers.Constant(1.0))

    def create_link(self, inits):
        W, b = inits
        with chainer.using_config("dtype", self.dtype):
            return linear.Linear(3, 2, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (4, 3)).astype(self.dtype),)


def test_defaults_and_short_form():
    link = linear.Linear(3)
    assert link.W.array is None
    assert link.in_size is None
    assert link.out_size == 3
    y = link(numpy.ones((2, 4, 2), numpy.float32))
    assert y.shape == (2, 3)
    assert link.W.shape == (3, 8)
    assert link.in_size == 8
    assert link.W.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(3))
    assert isinstance(link.W.initializer, initializers.LeCunNormal)
    assert repr(link) == "Linear(in_size=8, out_size=3, nobias=False)"


def test_nobias_and_dtype_config():
    with chainer.using_config("dtype", numpy.float16):
        link = linear.Linear(2, 3, nobias=True)
    assert link.b is None
    assert link.W.dtype == numpy.float16
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert link(numpy.ones((1, 2), numpy.float16)).dtype == numpy.float16


def test_from_params():
    W = numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32)
    b = numpy.random.uniform(-1, 1, 3).astype(numpy.float32)
    link = linear.Linear.from_params(W, b)
    numpy.testing.assert_array_equal(link.W.array, W)
    numpy.testing.assert_array_equal(link.b.array, b)
    link = linear.Linear.from_params(chainer.Variable(W), nobias=True)
    assert link.b is None
    with pytest.raises(ValueError, match="nobias"):
        linear.Linear.from_params(W, b, nobias=True)


def test_wrong_input_size():
    link = linear.Linear(3, 2)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((4, 5), numpy.float32))


def test_serialization_round_trip_and_lazy_target():
    src = linear.Linear(4, 3)
    dst = linear.Linear(4, 3)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
    numpy.testing.assert_array_equal(dst.b.array, src.b.array)
    lazy = linear.Linear(3)
    testing.save_and_load_npz(src, lazy)
    numpy.testing.assert_array_equal(lazy.W.array, src.W.array)
