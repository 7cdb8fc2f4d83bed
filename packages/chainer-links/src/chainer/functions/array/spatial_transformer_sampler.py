import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.functions.array import scatter_add
from chainer.functions.array import stack
from chainer.functions.array import where
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


def _compute_dtype(dtype):
    # float16 cannot hold pixel positions with their fractions.
    return numpy.dtype(numpy.float32 if dtype == numpy.float16 else dtype)


class _Geometry:
    """Source pixels and interpolation weights of every grid point.

    Positions are clipped to ``[-1, size]``, one pixel beyond the image on
    each side; pixels outside the image read as zero.
    """

    def __init__(self, xp, grid, H, W):
        dtype = _compute_dtype(grid.dtype)
        g = grid.astype(dtype, copy=False)
        self.scale_u = (W - 1) / 2
        self.scale_v = (H - 1) / 2
        u = (g[:, 0] + 1) * g.dtype.type(self.scale_u)
        v = (g[:, 1] + 1) * g.dtype.type(self.scale_v)
        self.u = xp.clip(u, -1, W)
        self.v = xp.clip(v, -1, H)
        # Where a position was clipped it does not depend on the grid.
        self.inside_u = (u > -1) & (u < W)
        self.inside_v = (v > -1) & (v < H)
        u0 = xp.clip(xp.floor(self.u), -1, W - 1).astype(numpy.intp)
        v0 = xp.clip(xp.floor(self.v), -1, H - 1).astype(numpy.intp)
        self.us = (u0, u0 + 1)
        self.vs = (v0, v0 + 1)
        self.batch = xp.arange(len(grid)).reshape(-1, 1, 1)
        self.H = H
        self.W = W

    def corners(self):
        # (i, j) selects (vs[i], us[j]); returns the clipped indices and
        # whether the pixel lies inside the image.
        for i in (0, 1):
            for j in (0, 1):
                v, u = self.vs[i], self.us[j]
                valid = (v >= 0) & (v < self.H) & (u >= 0) & (u < self.W)
                yield i, j, v.clip(0, self.H - 1), u.clip(0, self.W - 1), valid


class SpatialTransformerSampler(function_node.FunctionNode):
    """Bilinear sampling of images at the points of a grid."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "grid"))
        x_type, grid_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            grid_type.dtype == x_type.dtype,
            x_type.ndim == 4,
            grid_type.ndim == 4,
            grid_type.shape[1] == 2,
            x_type.shape[0] == grid_type.shape[0],
        )

    def forward(self, inputs):
        x, grid = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        geo = _Geometry(xp, grid, x.shape[2], x.shape[3])
        wv = (geo.vs[1] - geo.v, geo.v - geo.vs[0])
        wu = (geo.us[1] - geo.u, geo.u - geo.us[0])
        y = 0
        for i, j, v, u, valid in geo.corners():
            w = (wv[i] * wu[j] * valid).astype(x.dtype, copy=False)
            y = y + w[..., None] * x[geo.batch, :, v, u]
        # y is (n, out_H, out_W, c).
        return (xp.ascontiguousarray(y.transpose(0, 3, 1, 2)),)

    def backward(self, indexes, grad_outputs):
        x, grid = self.get_retained_inputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(x.array)
        dtype = x.dtype
        geo = _Geometry(xp, grid.array, x.shape[2], x.shape[3])
        # The clipped positions again, now as functions of the grid.
        g = primitive_ops.cast(grid, geo.u.dtype)
        u = (primitive_ops.get_item(g, (slice(None), 0)) + 1) * geo.scale_u
        v = (primitive_ops.get_item(g, (slice(None), 1)) + 1) * geo.scale_v
        u = where.where(geo.inside_u, u, geo.u)
        v = where.where(geo.inside_v, v, geo.v)
        wv = (geo.vs[1] - v, v - geo.vs[0])
        wu = (geo.us[1] - u, u - geo.us[0])
        wv = tuple(primitive_ops.cast(w, dtype) for w in wv)
        wu = tuple(primitive_ops.cast(w, dtype) for w in wu)
        gy = primitive_ops.transpose(gy, (0, 2, 3, 1))
        shape = (*gy.shape[:3], 1)
        corners = list(geo.corners())
        ret = []
        if 0 in indexes:
            vals = []
            for i, j, _, _, valid in corners:
                w = wv[i] * wu[j] * valid.astype(dtype)
                vals.append(gy * primitive_ops.reshape(w, shape))
            index = tuple(xp.stack([c[k] for c in corners], axis=1) for k in (2, 3))
            batch = geo.batch[:, None]
            gx = scatter_add.scatter_add(
                xp.zeros(x.shape, dtype),
                (batch, slice(None), *index),
                stack.stack(vals, axis=1),
            )
            ret.append(gx)
        if 1 in indexes:
            xs = {}
            for i, j, v_idx, u_idx, valid in corners:
                mask = valid.astype(dtype)[..., None]
                index = (geo.batch, slice(None), v_idx, u_idx)
                xs[i, j] = primitive_ops.get_item(x, index) * mask
            wv = [primitive_ops.reshape(w, shape) for w in wv]
            wu = [primitive_ops.reshape(w, shape) for w in wu]
            du = wv[0] * (xs[0, 1] - xs[0, 0]) + wv[1] * (xs[1, 1] - xs[1, 0])
            dv = wu[0] * (xs[1, 0] - xs[0, 0]) + wu[1] * (xs[1, 1] - xs[0, 1])
            scale_u = (geo.inside_u * geo.scale_u).astype(dtype)
            scale_v = (geo.inside_v * geo.scale_v).astype(dtype)
            gu = primitive_ops.sum(gy * du, axis=3) * scale_u
            gv = primitive_ops.sum(gy * dv, axis=3) * scale_v
            ret.append(stack.stack([gu, gv], axis=1))
        return tuple(ret)


def spatial_transformer_sampler(x, grid, **kwargs):
    """2D spatial transformer sampler.

    Samples ``x`` at the points of ``grid`` with bilinear interpolation, the
    sampler of a spatial transformer network (Jaderberg et al., 2015). Grid
    coordinates are normalized: ``-1`` and ``1`` are the centres of the first
    and the last pixel along each axis. Points outside the image sample
    zero padding: pixels outside read as zero and a point further than one
    pixel away gives zero.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, H, W)``.
        grid (~chainer.Variable or :ref:`ndarray`): Array of shape
            ``(n, 2, out_H, out_W)`` and the dtype of ``x``; channel 0 holds
            the x (width) coordinates and channel 1 the y (height)
            coordinates, as made by
            :func:`~chainer.functions.spatial_transformer_grid`.

    Returns:
        ~chainer.Variable: Array of shape ``(n, c, out_H, out_W)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.arange(4).reshape(1, 1, 2, 2).astype(np.float32)
        >>> grid = np.zeros((1, 2, 1, 1), np.float32)  # the image centre
        >>> F.spatial_transformer_sampler(x, grid).array
        array([[[[1.5]]]], dtype=float32)
    """
    _check_kwargs(kwargs)
    (y,) = SpatialTransformerSampler().apply((x, grid))
    return y
