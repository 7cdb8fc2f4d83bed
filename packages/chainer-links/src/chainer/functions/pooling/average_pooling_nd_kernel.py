"""CUDA source generators for N-d average pooling (see :mod:`.pooling_nd_kernel`)."""

from chainer.functions.pooling import pooling_nd_kernel


class _AverageHooks:
    # What both directions share: a running sum scaled by ``coeff``.

    def name(self):
        return "avg"

    def in_params(self):
        return ["T coeff"]

    def before(self):
        return "T val = (T)0;"


class AveragePoolingNDKernelForward(
    _AverageHooks, pooling_nd_kernel.PoolingNDKernelForward
):
    """Writes the forward kernel of N-d average pooling.

    It sums the window's elements inside the input (the padding adds zero)
    and multiplies the sum by the input ``coeff``, an elementwise argument
    after the geometry: ``1 / prod(ksize)`` when the padding counts in the
    average, or an array broadcast to the output holding the reciprocal of
    each window's count of elements inside the input.
    """

    def main(self, offset, xs):
        return f"val = val + in[{offset}];"

    def after(self, out_xs):
        return "out = val * coeff;"


class AveragePoolingNDKernelBackward(
    _AverageHooks, pooling_nd_kernel.PoolingNDKernelBackward
):
    """Writes the backward kernel of N-d average pooling.

    Each input element sums the gradients of the windows covering it and
    multiplies the sum by ``coeff``, an elementwise argument after the
    geometry (``1 / prod(ksize)``); for per-window divisors, pass ``gy``
    already divided and ``coeff = 1``.
    """

    def main(self, offset, xs):
        return f"val = val + gy[{offset}];"

    def after(self, out_xs):
        return "gx = val * coeff;"
