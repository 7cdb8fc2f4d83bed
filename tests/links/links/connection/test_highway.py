import numpy
import pytest

import chainer
from chainer import functions
from chainer import initializers
from chainer import testing
from chainer.links.connection import highway
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


@testing.parameterize(
    *testing.product(
        {
            "nobias": [True, False],
            "activate": ["relu", "tanh"],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestHighway(testing.LinkTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_params(self):
        return tuple(
            numpy.random.uniform(-1, 1, s).astype(self.dtype)
            for s in ((3, 3), (3, 3), (3,), (3,))
        )

    def create_link(self, inits):
        Wh, Wt, bh, bt = inits
        activate = getattr(functions, self.activate)
        with chainer.using_config("dtype", self.dtype):
            return highway.Highway(
                3,
                nobias=self.nobias,
                activate=activate,
                init_Wh=Wh,
                init_Wt=Wt,
                init_bh=bh,
                init_bt=bt,
            )

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, (4, 3)).astype(self.dtype)
        x[abs(x) < 0.1] = 0.5
        return (x,)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        x = x.astype(numpy.float64)
        a = x @ link.plain.W.array.T
        t = x @ link.transform.W.array.T
        if not self.nobias:
            a = a + link.plain.b.array
            t = t + link.transform.b.array
        h = numpy.maximum(a, 0) if self.activate == "relu" else numpy.tanh(a)
        t = _sigmoid(t)
        return ((h * t + x * (1 - t)).astype(self.dtype),)


def test_default_initialization():
    link = highway.Highway(5)
    assert link.in_out_size == 5
    assert link.activate is functions.relu
    numpy.testing.assert_array_equal(link.plain.b.array, numpy.zeros(5))
    numpy.testing.assert_array_equal(link.transform.b.array, numpy.full(5, -1.0))
    assert link.plain.W.shape == (5, 5)
    assert sorted(name for name, _ in link.namedparams()) == [
        "/plain/W",
        "/plain/b",
        "/transform/W",
        "/transform/b",
    ]


def test_initializers_are_used():
    link = highway.Highway(
        2,
        init_Wh=initializers.One(),
        init_Wt=initializers.Constant(2.0),
        init_bh=3.0,
        init_bt=initializers.Zero(),
    )
    numpy.testing.assert_array_equal(link.plain.W.array, numpy.ones((2, 2)))
    numpy.testing.assert_array_equal(link.transform.W.array, numpy.full((2, 2), 2.0))
    numpy.testing.assert_array_equal(link.plain.b.array, [3.0, 3.0])
    numpy.testing.assert_array_equal(link.transform.b.array, [0.0, 0.0])


def test_wrong_input_size():
    link = highway.Highway(3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 4), numpy.float32))


def test_serialization_round_trip():
    src = highway.Highway(3)
    dst = highway.Highway(3)
    testing.save_and_load_npz(src, dst)
    for (name, p), (_, q) in zip(
        sorted(src.namedparams()), sorted(dst.namedparams()), strict=True
    ):
        numpy.testing.assert_array_equal(q.array, p.array, err_msg=name)
