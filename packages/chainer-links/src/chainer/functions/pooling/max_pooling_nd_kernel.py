"""CUDA source generators for N-d max pooling (see :mod:`.pooling_nd_kernel`)."""

from chainer.functions.pooling import pooling_nd_kernel


class MaxPoolingNDKernelForward(pooling_nd_kernel.PoolingNDKernelForward):
    """Writes the forward kernel of N-d max pooling.

    Besides ``out``, the kernel writes ``indexes`` (any integer type ``S``):
    the window-local index, in C order over the window, of each window's
    maximum, counting padded positions, as
    :attr:`~chainer.functions.pooling.max_pooling_nd.MaxPoolingND.indexes`.
    The first maximum wins; a NaN wins over numbers.
    """

    def name(self):
        return "max"

    def out_params(self):
        return ["S indexes"]

    def before(self):
        lines = ["T maxval = (T)(-INFINITY);"]
        lines.extend(f"int argmax_{j} = in_x0_{j};" for j in range(self.ndim))
        return "\n".join(lines)

    def main(self, offset, xs):
        lines = [
            f"const T v = in[{offset}];",
            "if (!(maxval != maxval) && (v > maxval || v != v)) {",
            "maxval = v;",
        ]
        lines.extend(f"argmax_{j} = {x};" for j, x in enumerate(xs))
        lines.append("}")
        return "\n".join(lines)

    def after(self, out_xs):
        taps = [
            f"(argmax_{j} + p_{j} - {out_x} * s_{j})" for j, out_x in enumerate(out_xs)
        ]
        flat = taps[0]
        for j in range(1, self.ndim):
            flat = f"({flat} * k_{j} + {taps[j]})"
        return f"out = maxval;\nindexes = {flat};"


class MaxPoolingNDKernelBackward(pooling_nd_kernel.PoolingNDKernelBackward):
    """Writes the backward kernel of N-d max pooling.

    It reads ``indexes`` (``raw S``, as written by
    :class:`MaxPoolingNDKernelForward`) right after ``gy``: each input element
    gathers the gradients of the windows whose maximum it was.
    """

    def name(self):
        return "max"

    def in_params(self):
        return (["raw S indexes"], [])

    def before(self):
        return "T val = (T)0;"

    def main(self, offset, xs):
        return f"if ((int)indexes[{offset}] == koffset) val = val + gy[{offset}];"

    def after(self, out_xs):
        return "gx = val;"
