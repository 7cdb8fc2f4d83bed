import numpy

from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _source_positions(in_size, out_size, mode, align_corners):
    """Per output row (or column): two source indices and the second's weight."""
    if mode == "nearest":
        scale = in_size / out_size
        idx0 = numpy.minimum(numpy.floor(numpy.arange(out_size) * scale), in_size - 1)
        idx0 = idx0.astype(numpy.intp)
        return idx0, idx0, numpy.zeros(out_size)
    if align_corners:
        pos = numpy.linspace(0, in_size - 1, num=out_size)
    else:
        # Half-pixel centres, as OpenCV's INTER_LINEAR.
        pos = (numpy.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
        pos = numpy.maximum(pos, 0)
    idx0 = numpy.minimum(numpy.floor(pos), in_size - 1).astype(numpy.intp)
    idx1 = numpy.minimum(idx0 + 1, in_size - 1)
    return idx0, idx1, pos - idx0


def _interpolation_matrix(in_size, out_size, mode, align_corners, dtype):
    # Dense (out_size, in_size) matrix M with resized = M @ original.
    idx0, idx1, w1 = _source_positions(in_size, out_size, mode, align_corners)
    m = numpy.zeros((out_size, in_size), dtype)
    rows = numpy.arange(out_size)
    numpy.add.at(m, (rows, idx0), 1 - w1)
    numpy.add.at(m, (rows, idx1), w1)
    return m


def _compute_dtype(dtype):
    # float16 weights would lose the fractional positions.
    return numpy.float32 if dtype == numpy.float16 else dtype


class ResizeImages(function_node.FunctionNode):
    """Bilinear or nearest-neighbour resizing of a batch of images."""

    def __init__(self, output_shape, mode, align_corners):
        self.out_H, self.out_W = output_shape
        self.mode = mode
        self.align_corners = align_corners

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
        )

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        _, _, H, W = x.shape
        dtype = _compute_dtype(x.dtype)
        xc = x.astype(dtype, copy=False)
        # Bilinear interpolation is separable: rows first, then columns.
        v0, v1, vw = _source_positions(H, self.out_H, self.mode, self.align_corners)
        u0, u1, uw = _source_positions(W, self.out_W, self.mode, self.align_corners)
        vw = xp.asarray(vw.astype(dtype)[:, None])
        uw = xp.asarray(uw.astype(dtype))
        rows0 = xc.take(xp.asarray(v0), axis=2)
        if self.mode == "nearest":
            y = rows0.take(xp.asarray(u0), axis=3)
        else:
            rows1 = xc.take(xp.asarray(v1), axis=2)
            t = rows0 + (rows1 - rows0) * vw
            t0 = t.take(xp.asarray(u0), axis=3)
            t1 = t.take(xp.asarray(u1), axis=3)
            y = t0 + (t1 - t0) * uw
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        _, _, H, W = self.inputs[0].shape
        return ResizeImagesGrad(
            (H, W), (self.out_H, self.out_W), self.mode, self.align_corners
        ).apply((gy,))


class ResizeImagesGrad(function_node.FunctionNode):
    """Adjoint of :class:`ResizeImages`: spreads gradients back to pixels."""

    def __init__(self, input_shape, output_shape, mode, align_corners):
        self.input_shape = input_shape
        self.output_shape = output_shape
        self.mode = mode
        self.align_corners = align_corners

    def forward(self, inputs):
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        (H, W), (out_H, out_W) = self.input_shape, self.output_shape
        dtype = _compute_dtype(gy.dtype)
        mv = _interpolation_matrix(H, out_H, self.mode, self.align_corners, dtype)
        mu = _interpolation_matrix(W, out_W, self.mode, self.align_corners, dtype)
        # gx = Mv^T @ gy @ Mu, batched over the leading two axes.
        gx = xp.matmul(xp.asarray(mv.T), gy.astype(dtype, copy=False))
        gx = xp.matmul(gx, xp.asarray(mu))
        return (gx.astype(gy.dtype, copy=False),)

    def backward(self, indexes, grad_outputs):
        (ggx,) = grad_outputs
        return ResizeImages(self.output_shape, self.mode, self.align_corners).apply(
            (ggx,)
        )


def resize_images(x, output_shape, *, mode="bilinear", align_corners=True):
    """Resizes images to the given shape.

    Resizes the 2-d spatial part of ``x`` to ``output_shape`` by bilinear
    interpolation or by nearest-neighbour sampling.

    With ``mode='bilinear'`` and ``align_corners=True`` the corner pixels of
    the input and output are aligned: output pixel ``i`` of ``out_H`` samples
    input row ``i * (H - 1) / (out_H - 1)``. With ``align_corners=False``
    pixel centres are aligned instead (row ``(i + 0.5) * H / out_H - 0.5``,
    clamped at 0), which is OpenCV's behaviour. ``mode='nearest'`` takes
    input row ``floor(i * H / out_H)`` and ignores ``align_corners``.
    Columns are handled the same way.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, H, W)``.
        output_shape (tuple of ints): ``(out_H, out_W)``, both positive.
        mode (str): ``'bilinear'`` or ``'nearest'``.
        align_corners (bool): How bilinear positions are computed (see
            above).

    Returns:
        ~chainer.Variable: Array of shape ``(n, c, out_H, out_W)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.array([[[[0, 1], [2, 3]]]], np.float32)
        >>> F.resize_images(x, (3, 3)).array
        array([[[[0. , 0.5, 1. ],
                 [1. , 1.5, 2. ],
                 [2. , 2.5, 3. ]]]], dtype=float32)
    """
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"mode must be 'bilinear' or 'nearest', not {mode!r}")
    output_shape = tuple(output_shape)
    if len(output_shape) != 2 or any(
        not isinstance(s, (int, numpy.integer)) or s < 1 for s in output_shape
    ):
        raise ValueError(
            f"output_shape must be a pair of positive ints, not {output_shape!r}"
        )
    output_shape = (int(output_shape[0]), int(output_shape[1]))
    (y,) = ResizeImages(output_shape, mode, bool(align_corners)).apply((x,))
    return y
