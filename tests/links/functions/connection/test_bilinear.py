import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _expected(e1, e2, W, V1=None, V2=None, b=None):
    e1 = e1.reshape(len(e1), -1).astype(numpy.float64)
    e2 = e2.reshape(len(e2), -1).astype(numpy.float64)
    y = numpy.einsum("ij,ik,jkl->il", e1, e2, W)
    if V1 is not None:
        y += e1 @ V1 + e2 @ V2 + b
    return y


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((3, 2), (3, 4)), ((2, 2, 2), (2, 3)), ((1, 1), (1, 1))],
            "out_size": [3, 1],
            "linear": [True, False],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBilinear(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        s1, s2 = self.shapes
        J = int(numpy.prod(s1[1:]))
        K = int(numpy.prod(s2[1:]))
        L = self.out_size
        shapes = [s1, s2, (J, K, L)]
        if self.linear:
            shapes += [(J, L), (K, L), (L,)]
        return tuple(numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in shapes)

    def forward(self, inputs, device):
        return (functions.bilinear(*inputs),)

    def forward_expected(self, inputs):
        return (_expected(*inputs).astype(self.dtype),)


def test_partial_linear_terms():
    e1 = numpy.zeros((2, 3), numpy.float32)
    e2 = numpy.zeros((2, 4), numpy.float32)
    W = numpy.zeros((3, 4, 5), numpy.float32)
    V1 = numpy.zeros((3, 5), numpy.float32)
    with pytest.raises(ValueError, match="must be None"):
        functions.bilinear(e1, e2, W, V1)


@pytest.mark.parametrize(
    "shapes",
    [
        ((2, 3), (2, 4), (3, 5, 5)),  # K mismatch
        ((2, 3), (3, 4), (3, 4, 5)),  # batch mismatch
        ((3,), (4,), (3, 4, 5)),  # no batch axis
        ((2, 3), (2, 4), (3, 4)),  # W not 3-d
        ((2, 3), (2, 4), (3, 4, 5), (3, 4), (4, 5), (5,)),  # V1 shape
        ((2, 3), (2, 4), (3, 4, 5), (3, 5), (4, 5), (4,)),  # b shape
    ],
)
def test_invalid_shapes(shapes):
    inputs = [numpy.zeros(s, numpy.float32) for s in shapes]
    with pytest.raises(type_check.InvalidType):
        functions.bilinear(*inputs)


def test_invalid_dtype():
    e1 = numpy.zeros((2, 3), numpy.float32)
    e2 = numpy.zeros((2, 4), numpy.float64)
    W = numpy.zeros((3, 4, 5), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        functions.bilinear(e1, e2, W)
