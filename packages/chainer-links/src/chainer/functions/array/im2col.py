from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _pair(x, name):
    if isinstance(x, (tuple, list)):
        if len(x) != 2:
            raise ValueError(f"im2col: {name} must be an int or a pair, got {x!r}")
        return int(x[0]), int(x[1])
    return int(x), int(x)


def _outsize(size, k, s, p, cover_all, d):
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


class _Geometry:
    # Patch geometry shared by Im2Col and Im2ColGrad.

    def __init__(self, ksize, stride, pad, cover_all, dilate):
        self.kh, self.kw = _pair(ksize, "ksize")
        self.sy, self.sx = _pair(stride, "stride")
        self.ph, self.pw = _pair(pad, "pad")
        self.dy, self.dx = _pair(dilate, "dilate")
        self.cover_all = bool(cover_all)
        if min(self.kh, self.kw, self.sy, self.sx, self.dy, self.dx) < 1:
            raise ValueError("im2col: ksize, stride and dilate must be positive")
        if min(self.ph, self.pw) < 0:
            raise ValueError("im2col: pad must not be negative")

    def out_size(self, h, w):
        return (
            _outsize(h, self.kh, self.sy, self.ph, self.cover_all, self.dy),
            _outsize(w, self.kw, self.sx, self.pw, self.cover_all, self.dx),
        )

    def windows(self, out_h, out_w):
        # (j, i, rows, cols): the padded-image slices read by kernel tap (j, i).
        for j in range(self.kh):
            y0 = j * self.dy
            rows = slice(y0, y0 + self.sy * out_h, self.sy)
            for i in range(self.kw):
                x0 = i * self.dx
                yield j, i, rows, slice(x0, x0 + self.sx * out_w, self.sx)

    def padded_shape(self, n, c, h, w):
        # The extra ``s - 1`` rows/columns keep cover_all windows in bounds.
        return (n, c, h + 2 * self.ph + self.sy - 1, w + 2 * self.pw + self.sx - 1)


class Im2Col(function_node.FunctionNode):
    """Patch extraction into the channel axis."""

    def __init__(self, ksize, stride, pad, cover_all, dilate):
        self._geom = _Geometry(ksize, stride, pad, cover_all, dilate)

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 4)

    def forward(self, inputs):
        (x,) = inputs
        g = self._geom
        n, c, h, w = x.shape
        out_h, out_w = g.out_size(h, w)
        if out_h <= 0 or out_w <= 0:
            raise ValueError(
                f"im2col: the output would be empty ({out_h}, {out_w}) for an "
                f"input of spatial size ({h}, {w})"
            )
        xp = backend.get_array_module(x)
        img = xp.zeros(g.padded_shape(n, c, h, w), x.dtype)
        img[:, :, g.ph : g.ph + h, g.pw : g.pw + w] = x
        col = xp.empty((n, c, g.kh, g.kw, out_h, out_w), x.dtype)
        for j, i, rows, cols in g.windows(out_h, out_w):
            col[:, :, j, i] = img[:, :, rows, cols]
        self._in_hw = (h, w)
        return (col.reshape(n, c * g.kh * g.kw, out_h, out_w),)

    def backward(self, indexes, grad_outputs):
        return Im2ColGrad(self._geom, self._in_hw).apply(grad_outputs)


class Im2ColGrad(function_node.FunctionNode):
    """col2im: sums every patch element back onto its image pixel."""

    def __init__(self, geom, in_hw):
        self._geom = geom
        self._in_hw = in_hw

    def forward(self, inputs):
        (gy,) = inputs
        g = self._geom
        h, w = self._in_hw
        n, ckk, out_h, out_w = gy.shape
        c = ckk // (g.kh * g.kw)
        col = gy.reshape(n, c, g.kh, g.kw, out_h, out_w)
        xp = backend.get_array_module(gy)
        img = xp.zeros(g.padded_shape(n, c, h, w), gy.dtype)
        for j, i, rows, cols in g.windows(out_h, out_w):
            img[:, :, rows, cols] += col[:, :, j, i]
        return (xp.ascontiguousarray(img[:, :, g.ph : g.ph + h, g.pw : g.pw + w]),)

    def backward(self, indexes, grad_outputs):
        g = self._geom
        return Im2Col(
            (g.kh, g.kw), (g.sy, g.sx), (g.ph, g.pw), g.cover_all, (g.dy, g.dx)
        ).apply(grad_outputs)


def im2col(x, ksize, stride=1, pad=0, cover_all=False, dilate=1):
    """Extracts patches from an image based on the filter.

    Patches start at multiples of ``stride`` from ``(-ph, -pw)`` and are laid
    out in the channel axis: output channel ``(ci * kh + j) * kw + i`` holds
    input channel ``ci`` at kernel tap ``(j, i)``. Padding reads zeros. The
    output size is

    .. math::

        h_O = (h + 2 p_H - k_H - (k_H - 1)(d_Y - 1)) / s_Y + 1

    (floor division; likewise for :math:`w_O`). With ``cover_all=True``,
    :math:`s_Y - 1` is added to the numerator so that every pixel is covered.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        ksize (int or pair of ints): Filter size ``(kh, kw)``; an int ``k``
            means ``(k, k)``.
        stride (int or pair of ints): Stride ``(sy, sx)`` of filter
            applications.
        pad (int or pair of ints): Spatial zero padding ``(ph, pw)``.
        cover_all (bool): If ``True``, all spatial locations are rearranged
            into some output pixels; the output may get larger.
        dilate (int or pair of ints): Dilation ``(dy, dx)`` of the filter.

    Returns:
        ~chainer.Variable: Variable of shape ``(n, c * kh * kw, out_h, out_w)``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> F.im2col(x, 2, stride=2).shape
        (1, 4, 2, 2)
    """
    (y,) = Im2Col(ksize, stride, pad, cover_all, dilate).apply((x,))
    return y
