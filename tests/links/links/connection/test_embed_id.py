import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.connection import embed_id
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "x_data": [[0, 1, 0], [[1, 2], [2, 3]]],
            "ignore_label": [None, 1],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestEmbedID(testing.LinkTestCase):
    param_names = ("W",)

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_params(self):
        return (numpy.random.uniform(-1, 1, (4, 3)).astype(self.dtype),)

    def create_link(self, inits):
        (W,) = inits
        # As in Chainer, the parameter takes the default dtype.
        with chainer.using_config("dtype", self.dtype):
            return embed_id.EmbedID(4, 3, initialW=W, ignore_label=self.ignore_label)

    def generate_inputs(self):
        return (numpy.array(self.x_data, numpy.int32),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        y = link.W.array[x].copy()
        if self.ignore_label is not None:
            y[x == self.ignore_label] = 0
        return (y,)


@testing.inject_backend_tests(None, [{}])
class TestEmbedIDInitializers(testing.LinkInitializersTestCase):
    param_names = ("W",)

    def generate_params(self):
        return (initializers.Normal(),)

    def create_link(self, inits):
        (W,) = inits
        return embed_id.EmbedID(4, 3, initialW=W)

    def generate_inputs(self):
        return (numpy.array([0, 3], numpy.int32),)

    def get_initializers(self):
        return ((initializers.Constant(2.0), 1.5, numpy.ones((4, 3), "f")),)


def test_default_initializer_is_standard_normal():
    numpy.random.seed(0)
    link = embed_id.EmbedID(300, 200)
    assert link.W.shape == (300, 200)
    assert link.W.dtype == numpy.float32
    assert abs(link.W.array.std() - 1) < 0.02
    assert abs(link.W.array.mean()) < 0.02


def test_from_params():
    W = numpy.random.uniform(-1, 1, (5, 2)).astype(numpy.float32)
    link = embed_id.EmbedID.from_params(W, ignore_label=-1)
    numpy.testing.assert_array_equal(link.W.array, W)
    assert link.W.array is not W
    assert link.ignore_label == -1
    y = link(numpy.array([-1, 4], numpy.int32))
    numpy.testing.assert_array_equal(y.array, [[0, 0], W[4]])


def test_time_steps_accumulate():
    link = embed_id.EmbedID(6, 2)
    ids = [numpy.array([1, 5], numpy.int32), numpy.array([5, 5], numpy.int32)]
    loss = 0
    for x in ids:
        loss = loss + chainer.functions.sum(link(x))
    link.cleargrads()
    loss.backward()
    expected = numpy.zeros((6, 2))
    expected[1] = 1
    expected[5] = 3
    numpy.testing.assert_array_equal(link.W.grad, expected)


def test_invalid_input():
    link = embed_id.EmbedID(4, 3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros(2, numpy.float32))


def test_serialization_round_trip():
    src = embed_id.EmbedID(4, 3)
    dst = embed_id.EmbedID(4, 3)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)


@pytest.mark.parametrize(("ignore_label", "label"), [(None, 3), (None, -1), (-1, -2)])
def test_out_of_range_id_raises(ignore_label, label):
    link = embed_id.EmbedID(3, 2, ignore_label=ignore_label)
    x = numpy.array([0, label, 1], numpy.int32)
    with pytest.raises(ValueError, match=rf"embed_id: x\[1\] = {label} is out"):
        link(x)
