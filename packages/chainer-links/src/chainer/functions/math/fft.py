from chainer import backend
from chainer import function_node
from chainer import variable
from chainer.utils import type_check


class FFT(function_node.FunctionNode):
    """Discrete Fourier transform along the last axis, on (real, imag) pairs."""

    def __init__(self, method):
        if method not in ("fft", "ifft"):
            raise ValueError(f"method must be 'fft' or 'ifft', not {method!r}")
        self._method = method

    @property
    def label(self):
        return self._method

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        r_type, i_type = in_types
        type_check.expect(
            r_type.dtype.kind == "f",
            r_type.ndim > 0,
            r_type.shape == i_type.shape,
            r_type.dtype == i_type.dtype,
        )

    def forward(self, inputs):
        real, imag = inputs
        xp = backend.get_array_module(real)
        y = getattr(xp.fft, self._method)(real + imag * 1j)
        dtype = real.dtype
        return (y.real.astype(dtype), y.imag.astype(dtype))

    def backward(self, indexes, grad_outputs):
        gr, gi = grad_outputs
        if gr is None:
            gr = _zeros_like(gi)
        if gi is None:
            gi = _zeros_like(gr)
        # Both transforms are symmetric matrices F, so the gradient
        # conj(F) @ (gr + i gi) equals the same transform of (gi + i gr)
        # with its real and imaginary parts swapped.
        gxi, gxr = FFT(self._method).apply((gi, gr))
        return (gxr, gxi)


def _zeros_like(v):
    xp = backend.get_array_module(v.array)
    return variable.Variable(xp.zeros_like(v.array), requires_grad=False)


def fft(x):
    """Fast Fourier transform along the last axis.

    Args:
        x (tuple): A pair ``(real, imag)`` of :class:`~chainer.Variable` or
            :ref:`ndarray`: the real and imaginary parts of the input, float
            arrays of one shape (``ndim >= 1``) and one dtype.

    Returns:
        tuple: A pair ``(real, imag)`` of :class:`~chainer.Variable`: the real
        and imaginary parts of the result, of the shape and dtype of the input.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> r, i = F.fft((np.ones(4, np.float32), np.zeros(4, np.float32)))
        >>> r.array
        array([4., 0., 0., 0.], dtype=float32)
        >>> i.array
        array([0., 0., 0., 0.], dtype=float32)
    """
    real, imag = x
    return FFT("fft").apply((real, imag))


def ifft(x):
    """Inverse fast Fourier transform along the last axis.

    Args:
        x (tuple): A pair ``(real, imag)`` of :class:`~chainer.Variable` or
            :ref:`ndarray`: the real and imaginary parts of the input, float
            arrays of one shape (``ndim >= 1``) and one dtype.

    Returns:
        tuple: A pair ``(real, imag)`` of :class:`~chainer.Variable`: the real
        and imaginary parts of the result, of the shape and dtype of the input.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> r, i = F.ifft((np.ones(4, np.float32), np.zeros(4, np.float32)))
        >>> r.array
        array([1., 0., 0., 0.], dtype=float32)
    """
    real, imag = x
    return FFT("ifft").apply((real, imag))
