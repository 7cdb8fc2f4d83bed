"""CUDA source of N-d im2col/col2im kernels (``chainer.utils.conv_nd_kernel``).

:meth:`Im2colNDKernel.generate` and :meth:`Col2imNDKernel.generate` return
``(in_params, out_params, operation, name)`` for
``chainer.backends.cuda.elementwise`` (CuPy's ``ElementwiseKernel``), for a
given number of spatial dimensions. Only source text is built here: nothing
imports CuPy. The arrays are laid out as :mod:`chainer.utils.conv_nd` does:
``img`` is ``(n, c, d_0, ..., d_N-1)`` and ``col`` is
``(n, c, k_0, ..., k_N-1, out_0, ..., out_N-1)``.
"""

from __future__ import annotations

import functools


def mulexp(xs, init=None):
    """Joins C expressions with ``*`` (``init`` first if given)."""
    if init is not None:
        return functools.reduce("{} * {}".format, xs, init)
    return functools.reduce("{} * {}".format, xs)


def andexp(xs):
    """Joins C conditions with ``&&``."""
    return functools.reduce("{} && {}".format, xs)


def muladdexp(xs, ys, init=None):
    """Builds the Horner form ``y_N + x_N * (... (y_0 + x_0 * init))``."""

    def aux(exp, arg):
        x, y = arg
        return f"({y} + {x} * {exp})"

    if init is not None:
        return functools.reduce(aux, zip(xs, ys, strict=True), init)
    return functools.reduce(aux, zip(xs[1:], ys[1:], strict=True), ys[0])


def map_(fn, *lst):
    """``list(map(fn, *lst))``."""
    return list(map(fn, *lst))


def succ_sides(xs):
    """The suffixes of ``xs``: ``[xs, xs[1:], ..., xs[-1:]]``."""
    return [xs[i:] for i in range(len(xs))]


def vars(prefix, n):
    """Variable names ``prefix_0 .. prefix_{n-1}``."""
    return [f"{prefix}_{i}" for i in range(n)]


def _decls_of_index(names, sizes, trailing):
    # "int name_j = i / (sizes_{j+1} * ... * trailing) % sizes_j;"
    decls = []
    for name, side in zip(names, succ_sides(sizes), strict=True):
        tail = list(side[1:]) + list(trailing)
        if tail:
            decls.append(f"int {name} = i / ({mulexp(tail)}) % {side[0]};")
        else:
            decls.append(f"int {name} = i % {side[0]};")
    return decls


class _NDKernel:
    """Common part of the im2col and col2im kernel generators.

    A subclass sets ``_kind`` and writes ``_in_params``, ``_out_params`` and
    ``_operation`` over the per-axis names of the geometry.
    """

    _kind = ""

    def _generate(self, ndim):
        ds = vars("d", ndim)
        outs = vars("out", ndim)
        ks = vars("k", ndim)
        ss = vars("s", ndim)
        ps = vars("p", ndim)
        dis = vars("di", ndim)
        in_params = self._in_params(ds, outs, ks, ss, ps, dis)
        out_params = self._out_params()
        operation = self._operation(ndim, ds, outs, ks, ss, ps, dis)
        return in_params, out_params, operation, f"{self._kind}_{ndim}d"


class Im2colNDKernel(_NDKernel):
    """Generates an elementwise kernel: one thread per ``col`` element."""

    _kind = "im2col"

    def _in_params(self, ds, outs, ks, ss, ps, dis):
        ints = [f"int32 {x}" for x in ds + outs + ks + ss + ps + dis]
        return ", ".join(["raw T img", *ints])

    def _out_params(self):
        return "T col"

    def _operation(self, ndim, ds, outs, ks, ss, ps, dis):
        lines = [f"int c0 = i / ({mulexp(ks + outs)});"]
        kxs = vars("kx", ndim)
        lines += _decls_of_index(kxs, ks, outs)
        out_xs = vars("out_x", ndim)
        lines += _decls_of_index(out_xs, outs, ())
        ins = vars("in", ndim)
        for in_, kx, out_x, s, p, di in zip(ins, kxs, out_xs, ss, ps, dis, strict=True):
            lines.append(f"int {in_} = {kx} * {di} + {out_x} * {s} - {p};")
        test = andexp(
            [f"0 <= {in_} && {in_} < {d}" for in_, d in zip(ins, ds, strict=True)]
        )
        lines.append(f"if ({test}) {{")
        index = muladdexp(ds, ins, "c0")
        lines.append(f"  int idx = {index};")
        lines.append("  col = img[idx];")
        lines.append("} else {")
        lines.append("  col = (T)0;")
        lines.append("}")
        return "\n".join(lines)

    @staticmethod
    @functools.cache
    def generate(ndim):
        """Returns ``(in_params, out_params, operation, name)`` for ``ndim``."""
        return _im2col_nd_kernel._generate(ndim)


class Col2imNDKernel(_NDKernel):
    """Generates an elementwise kernel: one thread per ``img`` element."""

    _kind = "col2im"

    def _in_params(self, ds, outs, ks, ss, ps, dis):
        ints = [f"int32 {x}" for x in ds + outs + ks + ss + ps + dis]
        return ", ".join(["raw T col", *ints])

    def _out_params(self):
        return "T img"

    def _operation(self, ndim, ds, outs, ks, ss, ps, dis):
        lines = [f"int c0 = i / ({mulexp(ds)});"]
        xs = vars("x", ndim)
        lines += [
            decl[:-1] + f" + {p};"
            for decl, p in zip(_decls_of_index(xs, ds, ()), ps, strict=True)
        ]
        lines.append("T val = 0;")
        kxs = vars("kx", ndim)
        out_xs = vars("out_x", ndim)
        for kx, k, out_x, x, out, s, di in zip(
            kxs, ks, out_xs, xs, outs, ss, dis, strict=True
        ):
            lines.append(f"for (int {kx} = 0; {kx} < {k}; ++{kx}) {{")
            lines.append(f"  int {out_x} = {x} - {kx} * {di};")
            lines.append(f"  if (0 > {out_x} || {out_x} >= {out} * {s}) continue;")
            lines.append(f"  if ({out_x} % {s} != 0) continue;")
            lines.append(f"  {out_x} /= {s};")
        index = muladdexp(outs, out_xs, muladdexp(ks, kxs, "c0"))
        lines.append(f"  int idx = {index};")
        lines.append("  val = val + col[idx];")
        lines += ["}"] * ndim
        lines.append("img = val;")
        return "\n".join(lines)

    @staticmethod
    @functools.cache
    def generate(ndim):
        """Returns ``(in_params, out_params, operation, name)`` for ``ndim``."""
        return _col2im_nd_kernel._generate(ndim)


_im2col_nd_kernel = Im2colNDKernel()
_col2im_nd_kernel = Col2imNDKernel()
