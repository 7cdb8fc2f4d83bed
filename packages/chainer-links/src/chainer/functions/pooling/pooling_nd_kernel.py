"""CUDA source generators for N-dimensional pooling kernels.

:class:`PoolingNDKernelForward` and :class:`PoolingNDKernelBackward` write the
parameter lists and loop body of a CuPy elementwise kernel for any number of
spatial axes; subclasses (:mod:`.max_pooling_nd_kernel`,
:mod:`.average_pooling_nd_kernel`) fill in what is done per window element.
``generate(ndim)`` returns ``(in_params, out_params, operation, name)``, the
arguments of ``cupy.ElementwiseKernel`` (or :func:`chainer.backends.cuda.elementwise`);
nothing here needs CuPy.

Kernel arguments, for ``ndim`` spatial axes and C-contiguous arrays of shape
``(B, C, *spatial)``:

- forward: ``in`` (the input), ``d_0 .. d_{n-1}`` (input spatial sizes),
  ``out_0 ..`` (output spatial sizes), ``k_0 ..`` (window), ``s_0 ..``
  (stride), ``p_0 ..`` (padding), then the subclass's inputs; outputs ``out``
  and the subclass's outputs. One thread per output element.
- backward: ``gy``, the subclass's raw inputs, the same geometry scalars,
  then the subclass's other inputs; output ``gx``. One thread per input
  element, gathering from every window that covers it.
"""

from chainer.backends import cuda


def _names(prefix, ndim):
    return [f"{prefix}_{j}" for j in range(ndim)]


def _int32(names):
    return [f"int32 {name}" for name in names]


def _split_params(params):
    # A hook returns either a list of parameters or a pair (raw parameters
    # placed before the geometry, other parameters placed after it).
    if isinstance(params, tuple):
        raws, rest = params
        return list(raws), list(rest)
    return [], list(params)


class _Hooks:
    """The per-kernel pieces a subclass provides."""

    @classmethod
    @cuda.memoize()
    def generate(klass, ndim):
        """Returns ``(in_params, out_params, operation, name)`` for ``ndim`` axes.

        The result is memoized per class and ``ndim``.

        Args:
            ndim (int): Number of spatial axes.

        Returns:
            tuple: Four strings, the arguments of ``cupy.ElementwiseKernel``.
        """
        return klass()._generate(ndim)

    def _signature(self, ndim, array_in, array_out):
        # Checks ``ndim`` and names the geometry parameters (input sizes d,
        # output sizes out, window k, stride s, padding p; one per axis) and
        # the kernel's parameter lists around the arrays read and written.
        ndim = int(ndim)
        if ndim < 1:
            raise ValueError(f"ndim must be at least 1, got {ndim}")
        self.ndim = ndim
        ds = _names("d", ndim)
        outs = _names("out", ndim)
        ks = _names("k", ndim)
        ss = _names("s", ndim)
        ps = _names("p", ndim)
        raws, extra = _split_params(self.in_params())
        geometry = _int32(ds + outs + ks + ss + ps)
        in_params = ", ".join([f"raw T {array_in}", *raws, *geometry, *extra])
        out_params = ", ".join([f"T {array_out}", *self.out_params()])
        return ndim, ds, outs, ks, ss, ps, in_params, out_params

    def _missing(self, hook):
        raise TypeError(
            f"{type(self).__name__} does not define {hook}(): a pooling kernel "
            "generator is a subclass defining name(), before(), main() and after()"
        )

    def name(self):
        """Short name of the pooling kind, used in the kernel name (``'max'``)."""
        self._missing("name")

    def in_params(self):
        """Extra input parameters: a list, or a pair ``(raw ones, others)``."""
        return []

    def out_params(self):
        """Extra output parameters, a list of CuPy parameter declarations."""
        return []

    def before(self):
        """Code run once per thread before the loop over the window."""
        self._missing("before")

    def main(self, offset, xs):
        """Code run for each element of the loop.

        Args:
            offset (str): Expression of the flat index of the element in the
                array looped over (``in`` forward, ``gy`` backward).
            xs (list of str): Names of the loop's per-axis coordinates.
        """
        self._missing("main")

    def after(self, out_xs):
        """Code run once per thread after the loop, writing the outputs.

        Args:
            out_xs (list of str): Names of the thread's own per-axis
                coordinates (output coordinates forward, input ones
                backward).
        """
        self._missing("after")


class PoolingNDKernelForward(_Hooks):
    """Writes the forward kernel of N-d pooling: one thread per output element.

    The loop visits the elements of the thread's window that lie inside the
    input (padding is skipped), in C order.
    """

    def _generate(self, ndim):
        ndim, ds, outs, ks, ss, ps, in_params, out_params = self._signature(
            ndim, "in", "out"
        )

        out_xs = _names("out_x", ndim)
        lines = ["int rest = i;"]
        for j in reversed(range(ndim)):
            lines.append(f"const int {out_xs[j]} = rest % {outs[j]};")
            lines.append(f"rest /= {outs[j]};")
        lines.append("const int c0 = rest;")
        for j in range(ndim):
            start = f"{out_xs[j]} * {ss[j]} - {ps[j]}"
            lines.append(f"const int in_x0_{j} = max(0, {start});")
            lines.append(f"const int in_x1_{j} = min({ds[j]}, {start} + {ks[j]});")
        lines.append(self.before())
        xs = _names("x", ndim)
        for j in range(ndim):
            lines.append(
                f"for (int {xs[j]} = in_x0_{j}; {xs[j]} < in_x1_{j}; ++{xs[j]}) {{"
            )
            previous = "c0" if j == 0 else f"offset_{j - 1}"
            lines.append(f"const int offset_{j} = {previous} * {ds[j]} + {xs[j]};")
        lines.append(self.main(f"offset_{ndim - 1}", xs))
        lines.extend("}" for _ in range(ndim))
        lines.append(self.after(out_xs))
        operation = "\n".join(lines)
        name = f"{self.name()}_pool_{ndim}d_fwd"
        return in_params, out_params, operation, name


class PoolingNDKernelBackward(_Hooks):
    """Writes the backward kernel of N-d pooling: one thread per input element.

    The loop visits every output element whose window covers the thread's
    input element. Besides the loop coordinates, ``main`` may read
    ``koffset``, the window-local index (C order over the window) of the
    input element in the visited window.
    """

    def _generate(self, ndim):
        ndim, ds, outs, ks, ss, ps, in_params, out_params = self._signature(
            ndim, "gy", "gx"
        )

        xs = _names("x", ndim)
        lines = ["int rest = i;"]
        for j in reversed(range(ndim)):
            lines.append(f"const int {xs[j]} = rest % {ds[j]};")
            lines.append(f"rest /= {ds[j]};")
        lines.append("const int c0 = rest;")
        for j in range(ndim):
            # Windows o with o * s - p <= x < o * s - p + k.
            lines.append(
                f"const int out_x0_{j} = max(0, "
                f"({xs[j]} + {ps[j]} - {ks[j]} + {ss[j]}) / {ss[j]});"
            )
            lines.append(
                f"const int out_x1_{j} = min({outs[j]}, "
                f"({xs[j]} + {ps[j]}) / {ss[j]} + 1);"
            )
        lines.append(self.before())
        out_xs = _names("out_x", ndim)
        for j in range(ndim):
            lines.append(
                f"for (int {out_xs[j]} = out_x0_{j}; {out_xs[j]} < out_x1_{j}; "
                f"++{out_xs[j]}) {{"
            )
            previous = "c0" if j == 0 else f"offset_{j - 1}"
            lines.append(
                f"const int offset_{j} = {previous} * {outs[j]} + {out_xs[j]};"
            )
            tap = f"{xs[j]} + {ps[j]} - {out_xs[j]} * {ss[j]}"
            if j == 0:
                lines.append(f"const int koffset_0 = {tap};")
            else:
                lines.append(
                    f"const int koffset_{j} = koffset_{j - 1} * {ks[j]} + {tap};"
                )
        lines.append(f"const int koffset = koffset_{ndim - 1};")
        lines.append(self.main(f"offset_{ndim - 1}", out_xs))
        lines.extend("}" for _ in range(ndim))
        lines.append(self.after(xs))
        operation = "\n".join(lines)
        name = f"{self.name()}_pool_{ndim}d_bwd"
        return in_params, out_params, operation, name
