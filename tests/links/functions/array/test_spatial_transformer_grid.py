import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "output_shape": [(3, 4), (1, 5), (2, 2)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSpatialTransformerGrid(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 2, 3)).astype(self.dtype),)

    def forward(self, inputs, device):
        (theta,) = inputs
        return (functions.spatial_transformer_grid(theta, self.output_shape),)

    def forward_expected(self, inputs):
        (theta,) = inputs
        H, W = self.output_shape
        ys = numpy.linspace(-1, 1, H)
        xs = numpy.linspace(-1, 1, W)
        grid = numpy.empty((len(theta), 2, H, W))
        for n in range(len(theta)):
            for i in range(H):
                for j in range(W):
                    source = theta[n].astype(numpy.float64) @ [xs[j], ys[i], 1]
                    grid[n, :, i, j] = source
        return (grid.astype(self.dtype),)


def test_identity():
    theta = numpy.array([[[1, 0, 0], [0, 1, 0]]], numpy.float32)
    grid = functions.spatial_transformer_grid(theta, (2, 3)).array
    numpy.testing.assert_allclose(grid[0, 0], [[-1, 0, 1], [-1, 0, 1]])
    numpy.testing.assert_allclose(grid[0, 1], [[-1, -1, -1], [1, 1, 1]])


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [((2, 3, 3), "f"), ((2, 2, 2), "f"), ((2, 3), "f"), ((1, 2, 3), "i")],
)
def test_invalid(shape, dtype):
    with pytest.raises(type_check.InvalidType):
        functions.spatial_transformer_grid(numpy.zeros(shape, dtype), (2, 2))


def test_kwargs():
    theta = numpy.zeros((1, 2, 3), numpy.float32)
    with pytest.raises(ValueError, match="use_cudnn"):
        functions.spatial_transformer_grid(theta, (2, 2), use_cudnn=False)
    with pytest.raises(TypeError, match="unexpected"):
        functions.spatial_transformer_grid(theta, (2, 2), foo=1)
