import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.connection import bilinear

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _expected(link, e1, e2):
    e1 = e1.reshape(len(e1), -1).astype(numpy.float64)
    e2 = e2.reshape(len(e2), -1).astype(numpy.float64)
    y = numpy.einsum("ij,ik,jkl->il", e1, e2, link.W.array)
    if not link.nobias:
        y += e1 @ link.V1.array + e2 @ link.V2.array + link.b.array
    return y


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((2, 3), (2, 4)), ((3, 2, 2), (3, 2))],
            "nobias": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBilinear(testing.LinkTestCase):
    def setUp(self):
        self.param_names = ("W",) if self.nobias else ("W", "V1", "V2", "b")
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def _sizes(self):
        s1, s2 = self.shapes
        return int(numpy.prod(s1[1:])), int(numpy.prod(s2[1:])), 3

    def generate_params(self):
        J, K, L = self._sizes()
        W = numpy.random.uniform(-1, 1, (J, K, L)).astype(self.dtype)
        V1 = numpy.random.uniform(-1, 1, (J, L)).astype(self.dtype)
        V2 = numpy.random.uniform(-1, 1, (K, L)).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, (L,)).astype(self.dtype)
        return W, V1, V2, b

    def create_link(self, inits):
        W, V1, V2, b = inits
        J, K, L = self._sizes()
        # As in Chainer, parameters take the default dtype.
        with chainer.using_config("dtype", self.dtype):
            if self.nobias:
                return bilinear.Bilinear(J, K, L, nobias=True, initialW=W)
            return bilinear.Bilinear(J, K, L, initialW=W, initial_bias=(V1, V2, b))

    def generate_inputs(self):
        s1, s2 = self.shapes
        e1 = numpy.random.uniform(-1, 1, s1).astype(self.dtype)
        e2 = numpy.random.uniform(-1, 1, s2).astype(self.dtype)
        return e1, e2

    def forward_expected(self, link, inputs):
        return (_expected(link, *inputs).astype(self.dtype),)


@testing.inject_backend_tests(None, [{}])
class TestBilinearInitializers(testing.LinkInitializersTestCase):
    param_names = ("W",)

    def generate_params(self):
        return (initializers.Normal(),)

    def create_link(self, inits):
        (W,) = inits
        return bilinear.Bilinear(2, 3, 4, initialW=W)

    def generate_inputs(self):
        e1 = numpy.random.uniform(-1, 1, (2, 2)).astype(numpy.float32)
        e2 = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
        return e1, e2

    def get_initializers(self):
        return ((initializers.Constant(2.0), 1.5, numpy.ones((2, 3, 4), "f")),)


def test_default_initialization():
    link = bilinear.Bilinear(2, 3, 4)
    assert link.W.shape == (2, 3, 4)
    assert link.V1.shape == (2, 4)
    assert link.V2.shape == (3, 4)
    numpy.testing.assert_array_equal(link.b.array, numpy.zeros(4))
    assert link.in_sizes == (2, 3)
    assert sorted(name for name, _ in link.namedparams()) == ["/V1", "/V2", "/W", "/b"]


def test_nobias_has_no_linear_parameters():
    link = bilinear.Bilinear(2, 3, 4, nobias=True)
    assert [name for name, _ in link.namedparams()] == ["/W"]


def test_initial_bias_callables():
    link = bilinear.Bilinear(
        2,
        3,
        4,
        initial_bias=(initializers.One(), initializers.Constant(2.0), 3.0),
    )
    numpy.testing.assert_array_equal(link.V1.array, numpy.ones((2, 4)))
    numpy.testing.assert_array_equal(link.V2.array, numpy.full((3, 4), 2.0))
    numpy.testing.assert_array_equal(link.b.array, numpy.full(4, 3.0))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"initialW": numpy.zeros((2, 3, 5), numpy.float32)},
        {"initial_bias": (None, None)},
        {"initial_bias": [None, None, 0]},
        {"initial_bias": (numpy.zeros((3, 4), "f"), None, 0)},
    ],
)
def test_invalid_initializers(kwargs):
    with pytest.raises(ValueError):
        bilinear.Bilinear(2, 3, 4, **kwargs)


def test_wrong_input_size():
    link = bilinear.Bilinear(2, 3, 4)
    with pytest.raises(chainer.utils.type_check.InvalidType):
        link(numpy.zeros((1, 2), "f"), numpy.zeros((1, 4), "f"))


def test_zero_grads_compat():
    link = bilinear.Bilinear(2, 3, 4)
    with pytest.warns(DeprecationWarning):
        link.zero_grads()
    numpy.testing.assert_array_equal(link.W.grad, numpy.zeros((2, 3, 4)))


def test_serialization_round_trip():
    src = bilinear.Bilinear(2, 3, 4)
    dst = bilinear.Bilinear(2, 3, 4)
    testing.save_and_load_npz(src, dst)
    for name in ("W", "V1", "V2", "b"):
        numpy.testing.assert_array_equal(
            getattr(dst, name).array, getattr(src, name).array
        )
