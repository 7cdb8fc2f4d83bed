import numpy
import pytest

from chainer import functions
from chainer import testing
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _positions(size, shape):
    # Pixel positions away from integers (where the sampler has kinks),
    # from beyond the zero padding on one side to beyond it on the other.
    base = numpy.random.randint(-2, size + 1, shape)
    return base + numpy.random.uniform(0.15, 0.85, shape)


def _sample(x, grid):
    n, c, H, W = x.shape
    _, _, out_H, out_W = grid.shape
    y = numpy.zeros((n, c, out_H, out_W))
    for b in range(n):
        for i in range(out_H):
            for j in range(out_W):
                u = (grid[b, 0, i, j] + 1) * (W - 1) / 2
                v = (grid[b, 1, i, j] + 1) * (H - 1) / 2
                u0, v0 = int(numpy.floor(u)), int(numpy.floor(v))
                for vv in (v0, v0 + 1):
                    for uu in (u0, u0 + 1):
                        if 0 <= vv < H and 0 <= uu < W:
                            w = (1 - abs(v - vv)) * (1 - abs(u - uu))
                            y[b, :, i, j] += w * x[b, :, vv, uu]
    return y


@testing.parameterize(
    *testing.product(
        {
            "shapes": [((2, 3, 4, 5), (3, 4)), ((1, 2, 3, 3), (1, 1))],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSpatialTransformerSampler(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        x_shape, (out_H, out_W) = self.shapes
        n, _, H, W = x_shape
        x = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        u = _positions(W, (n, out_H, out_W))
        v = _positions(H, (n, out_H, out_W))
        grid = numpy.stack([u * 2 / (W - 1) - 1, v * 2 / (H - 1) - 1], axis=1)
        return x, grid.astype(self.dtype)

    def forward(self, inputs, device):
        x, grid = inputs
        return (functions.spatial_transformer_sampler(x, grid),)

    def forward_expected(self, inputs):
        x, grid = inputs
        return (_sample(x, grid).astype(self.dtype),)


def test_with_grid():
    # The identity transform reproduces the image.
    x = numpy.random.uniform(-1, 1, (2, 3, 4, 5)).astype(numpy.float32)
    theta = numpy.tile(numpy.array([[1, 0, 0], [0, 1, 0]], numpy.float32), (2, 1, 1))
    grid = functions.spatial_transformer_grid(theta, (4, 5))
    y = functions.spatial_transformer_sampler(x, grid)
    numpy.testing.assert_allclose(y.array, x, atol=1e-6)


@pytest.mark.parametrize(
    ("x_shape", "grid_shape", "grid_dtype"),
    [
        ((2, 3, 4, 5), (2, 3, 2, 2), "f"),
        ((2, 3, 4, 5), (1, 2, 2, 2), "f"),
        ((2, 3, 4, 5), (2, 2, 2, 2), "d"),
        ((3, 4, 5), (3, 2, 2, 2), "f"),
        ((2, 3, 4, 5), (2, 2, 4), "f"),
    ],
)
def test_invalid(x_shape, grid_shape, grid_dtype):
    x = numpy.zeros(x_shape, numpy.float32)
    grid = numpy.zeros(grid_shape, grid_dtype)
    with pytest.raises(type_check.InvalidType):
        functions.spatial_transformer_sampler(x, grid)


def test_kwargs():
    x = numpy.zeros((1, 1, 2, 2), numpy.float32)
    grid = numpy.zeros((1, 2, 1, 1), numpy.float32)
    with pytest.raises(ValueError, match="use_cudnn"):
        functions.spatial_transformer_sampler(x, grid, use_cudnn=True)
    with pytest.raises(TypeError, match="unexpected"):
        functions.spatial_transformer_sampler(x, grid, foo=1)
