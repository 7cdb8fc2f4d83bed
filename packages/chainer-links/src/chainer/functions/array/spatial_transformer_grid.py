from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _check_kwargs(kwargs):
    if "use_cudnn" in kwargs:
        raise ValueError(
            "use_cudnn argument is not supported anymore. "
            "Use chainer.using_config('use_cudnn', value) context where value "
            "can be `always`, `never`, or `auto`."
        )
    if kwargs:
        raise TypeError(f"unexpected keyword arguments: {sorted(kwargs)}")


def _target_coordinates(xp, output_shape, dtype):
    # Homogeneous coordinates (x_t, y_t, 1) of the output pixels, shape
    # (3, H * W), both axes spanning [-1, 1].
    H, W = output_shape
    ys, xs = xp.meshgrid(
        xp.linspace(-1, 1, H, dtype=dtype),
        xp.linspace(-1, 1, W, dtype=dtype),
        indexing="ij",
    )
    return xp.stack([xs.ravel(), ys.ravel(), xp.ones(H * W, dtype)])


class SpatialTransformerGrid(function_node.FunctionNode):
    """Affine sampling grid of a spatial transformer."""

    def __init__(self, output_shape):
        self.output_shape = output_shape

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("theta",))
        (theta_type,) = in_types
        type_check.expect(
            theta_type.dtype.kind == "f",
            theta_type.ndim == 3,
            theta_type.shape[1] == 2,
            theta_type.shape[2] == 3,
        )

    def forward(self, inputs):
        (theta,) = inputs
        xp = backend.get_array_module(theta)
        H, W = self.output_shape
        coords = _target_coordinates(xp, self.output_shape, theta.dtype)
        grid = xp.matmul(theta, coords)
        return (grid.reshape(len(theta), 2, H, W),)

    def backward(self, indexes, grad_outputs):
        (ggrid,) = grad_outputs
        xp = backend.get_array_module(ggrid.array)
        H, W = self.output_shape
        coords = _target_coordinates(xp, self.output_shape, ggrid.dtype)
        ggrid = primitive_ops.reshape(ggrid, (ggrid.shape[0], 2, H * W))
        return (primitive_ops.matmul(ggrid, coords.T),)


def spatial_transformer_grid(theta, output_shape, **kwargs):
    """2D spatial transformer grid.

    Computes the sampling grid of a spatial transformer network (Jaderberg
    et al., 2015) from affine parameters ``theta``. The output pixels have
    normalized coordinates ``(x_t, y_t)`` spanning ``[-1, 1]`` along the width
    and the height; each is mapped to the source position

    .. math::
        \\begin{pmatrix} x_s \\\\ y_s \\end{pmatrix} =
        \\theta \\begin{pmatrix} x_t \\\\ y_t \\\\ 1 \\end{pmatrix}.

    Use the result with
    :func:`~chainer.functions.spatial_transformer_sampler`.

    Args:
        theta (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, 2, 3)`` holding one affine transformation per image.
        output_shape (tuple of ints): ``(out_H, out_W)`` of the grid.

    Returns:
        ~chainer.Variable: Array of shape ``(n, 2, out_H, out_W)``: channel
        0 is ``x_s`` (width direction) and channel 1 is ``y_s``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
        >>> grid = F.spatial_transformer_grid(theta, (2, 3))
        >>> grid.array[0, 0]
        array([[-1.,  0.,  1.],
               [-1.,  0.,  1.]], dtype=float32)
    """
    _check_kwargs(kwargs)
    H, W = output_shape
    (grid,) = SpatialTransformerGrid((int(H), int(W))).apply((theta,))
    return grid
