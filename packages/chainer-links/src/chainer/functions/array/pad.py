import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check

# Modes whose output elements are each a copy of one input element (or a
# constant), so that the gradient is exact: a slice for 'constant', a
# scatter-add for the others.
_GATHER_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pad(xp, x, widths, mode, keywords):
    if x.ndim == 0:
        # numpy.pad fails on the empty widths of a 0-d array; nothing to pad.
        return x.copy()
    return xp.pad(x, widths, mode=mode, **keywords)


def _widths(pad_bw, ndim):
    # ((before, after),) * ndim as Python ints, numpy.pad's broadcasting rules.
    if pad_bw.ndim > 2:
        return None
    if pad_bw.shape == (ndim, 2):
        return tuple(map(tuple, pad_bw.tolist()))
    if pad_bw.size == 1:
        w = int(pad_bw.reshape(()))
        return ((w, w),) * ndim
    if pad_bw.size == 2 and pad_bw.shape[-1] == 2:
        return (tuple(pad_bw.reshape(2).tolist()),) * ndim
    try:
        return tuple(map(tuple, numpy.broadcast_to(pad_bw, (ndim, 2)).tolist()))
    except ValueError:
        return None


class Pad(function_node.FunctionNode):
    """Padding with :func:`numpy.pad` semantics."""

    def __init__(self, pad_width, mode, **keywords):
        if mode not in _GATHER_MODES:
            raise ValueError(
                f"pad: mode {mode!r} is not supported; use one of {_GATHER_MODES}"
            )
        if keywords.get("reflect_type", "even") != "even":
            raise ValueError("pad: only reflect_type='even' is supported")
        self.pad_width = pad_width
        self.mode = mode
        self.keywords = keywords
        self.pad_bw = numpy.asarray(pad_width)
        if self.pad_bw.dtype.kind not in "iu":
            raise TypeError(f"pad: pad_width must be integral, got {pad_width!r}")
        if (self.pad_bw < 0).any():
            raise ValueError(f"pad: pad_width must not be negative, got {pad_width!r}")
        value = keywords.get("constant_values", 0)
        # A scalar constant is written by slicing, much faster than xp.pad.
        self._fill = (
            value
            if mode == "constant"
            and keywords.keys() <= {"constant_values"}
            and numpy.isscalar(value)
            else None
        )

    def check_type_forward(self, in_types):
        # numpy.pad itself rejects pad widths that do not fit the input.
        type_check.expect(in_types.size() == 1)
        type_check.argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        bw = _widths(self.pad_bw, x.ndim)
        if bw is None:
            raise ValueError(
                f"pad: pad_width {self.pad_width!r} does not fit an input of "
                f"ndim {x.ndim}"
            )
        self._widths = bw
        self._in_shape = x.shape
        if self.mode == "constant":
            # Where x sits in the output.
            self._inner = tuple(
                slice(before, before + n)
                for (before, _), n in zip(bw, x.shape, strict=True)
            )
        if self._fill is None:
            return (_pad(xp, x, bw, self.mode, self.keywords),)
        shape = tuple(n + b + a for n, (b, a) in zip(x.shape, bw, strict=True))
        y = xp.full(shape, self._fill, dtype=x.dtype)
        y[self._inner] = x
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        if self.mode == "constant":
            return (primitive_ops.get_item(gy, self._inner),)
        grad = PadGrad(self._in_shape, self._widths, self.mode, self.keywords)
        return grad.apply((gy,))


class PadGrad(function_node.FunctionNode):
    """Sums the gradient of every padded copy back onto its source element."""

    def __init__(self, in_shape, widths, mode, keywords):
        self._in_shape = in_shape
        self._widths = widths
        self.mode = mode
        self.keywords = keywords

    def forward(self, inputs):
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        size = 1
        for n in self._in_shape:
            size *= n
        # Padding the indices of the input gives the source of each output.
        src = xp.arange(size, dtype=xp.intp).reshape(self._in_shape)
        src = _pad(xp, src, self._widths, self.mode, self.keywords)
        gx = xp.bincount(src.reshape(-1), weights=gy.reshape(-1), minlength=size)
        return (gx.astype(gy.dtype, copy=False).reshape(self._in_shape),)

    def backward(self, indexes, grad_outputs):
        (ggx,) = grad_outputs
        widths = numpy.array(self._widths, numpy.intp).reshape(-1, 2)
        (ggy,) = Pad(widths, self.mode, **self.keywords).apply((ggx,))
        return (ggy,)


def pad(x, pad_width, mode, **keywords):
    """Pads an input variable.

    Follows :func:`numpy.pad`. The modes whose output elements copy input
    elements are supported, each with an exact gradient: ``'constant'``
    (keyword ``constant_values``), ``'edge'``, ``'reflect'`` and
    ``'symmetric'`` (with the default ``reflect_type='even'``) and
    ``'wrap'``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of any shape.
        pad_width (int or array-like): Numbers of values padded to the edges
            of each axis: ``((before_1, after_1), ..., (before_N, after_N))``,
            or ``(before, after)`` or an int for all axes.
        mode (str): How the periphery is filled (see above).
        keywords: Keyword arguments of :func:`numpy.pad` for ``mode``, such
            as ``constant_values``.

    Returns:
        ~chainer.Variable: Padded variable of the dtype of ``x``; axis ``i``
        grows by ``before_i + after_i``.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.array([1, 2], dtype=np.float32)
        >>> F.pad(x, 1, "constant", constant_values=-1).array
        array([-1.,  1.,  2., -1.], dtype=float32)
    """
    (y,) = Pad(pad_width, mode, **keywords).apply((x,))
    return y
