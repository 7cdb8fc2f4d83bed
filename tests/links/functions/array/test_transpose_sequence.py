import numpy
import pytest

import chainer
from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "lengths": [[4, 2, 2, 1], [3, 3], [1], [2, 1, 1]],
            "unit": [(), (3,), (2, 2)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestTransposeSequence(testing.FunctionTestCase):
    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, (n, *self.unit)).astype(self.dtype)
            for n in self.lengths
        )

    def forward(self, inputs, device):
        return functions.transpose_sequence(list(inputs))

    def forward_expected(self, inputs):
        return tuple(
            numpy.stack([x[t] for x in inputs if len(x) > t])
            for t in range(len(inputs[0]))
        )


def test_round_trip_drops_empty_sequences():
    xs = [
        chainer.Variable(numpy.arange(n, dtype=numpy.float32) + 10 * n)
        for n in (3, 1, 0)
    ]
    ys = functions.transpose_sequence(xs)
    assert [y.shape for y in ys] == [(2,), (1,), (1,)]
    back = functions.transpose_sequence(ys)
    assert len(back) == 2
    numpy.testing.assert_array_equal(back[0].array, xs[0].array)
    numpy.testing.assert_array_equal(back[1].array, xs[1].array)
    ys[1].grad = numpy.ones(1, numpy.float32)
    ys[1].backward()
    numpy.testing.assert_array_equal(xs[0].grad, [0, 1, 0])
    assert xs[1].grad is None or not xs[1].grad.any()


def test_empty():
    assert functions.transpose_sequence([]) == ()
    assert functions.transpose_sequence([numpy.zeros((0, 2), numpy.float32)]) == ()


@pytest.mark.parametrize(
    ("shapes", "dtypes"),
    [
        ([(1, 2), (2, 2)], ["f", "f"]),
        ([(2, 2), (1, 3)], ["f", "f"]),
        ([(2, 2), (1, 2)], ["f", "d"]),
        ([(2,), ()], ["f", "f"]),
    ],
)
def test_invalid(shapes, dtypes):
    xs = [numpy.zeros(s, d) for s, d in zip(shapes, dtypes, strict=True)]
    with pytest.raises(type_check.InvalidType):
        functions.transpose_sequence(xs)
