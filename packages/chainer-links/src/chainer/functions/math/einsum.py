import string

import numpy

from chainer import _ops
from chainer import backend
from chainer import function_node
from chainer.utils import type_check


def _unique(sub):
    return "".join(dict.fromkeys(sub))


def _einsum(xp, in_subs, out_sub, arrays):
    spec = ",".join(in_subs) + "->" + out_sub
    dtype = arrays[0].dtype
    if dtype == numpy.float16:
        # Long float16 sums lose precision; contract in float32.
        arrays = [a.astype(numpy.float32) for a in arrays]
    y = xp.einsum(spec, *arrays, optimize=len(arrays) > 2)
    return y.astype(dtype, copy=False)


class EinSum(function_node.FunctionNode):
    """Einstein summation over explicit subscripts (no ellipsis)."""

    def __init__(self, in_subs, out_sub):
        self.in_subs = tuple(in_subs)
        self.out_sub = out_sub

    def check_type_forward(self, in_types):
        n = len(self.in_subs)
        type_check.expect(in_types.size() == n)
        type_check.argname(in_types, tuple(f"x{i}" for i in range(n)))
        for i, sub in enumerate(self.in_subs):
            type_check.expect(
                in_types[i].dtype.kind == "f",
                in_types[i].dtype == in_types[0].dtype,
                in_types[i].ndim == len(sub),
            )
        first = {}
        for i, sub in enumerate(self.in_subs):
            for k, c in enumerate(sub):
                if c in first:
                    j, l = first[c]
                    type_check.expect(in_types[j].shape[l] == in_types[i].shape[k])
                else:
                    first[c] = (i, k)

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        return (_einsum(xp, self.in_subs, self.out_sub, inputs),)

    def backward(self, indexes, grad_outputs):
        xs = self.get_retained_inputs()
        (gy,) = grad_outputs
        return tuple(self._grad(i, xs, gy) for i in indexes)

    def _grad(self, i, xs, gy):
        target = self.in_subs[i]
        others = [j for j in range(len(xs)) if j != i]
        present = set(self.out_sub).union(*(self.in_subs[j] for j in others))
        unique = _unique(target)
        kept = "".join(c for c in unique if c in present)
        subs = [self.out_sub] + [self.in_subs[j] for j in others]
        (g,) = EinSum(subs, kept).apply((gy, *(xs[j] for j in others)))
        if len(kept) != len(unique):
            # Letters that only this operand has were summed over in the
            # forward, so the gradient is constant along them.
            sizes = dict(zip(target, xs[i].shape, strict=True))
            g = _ops.reshape(g, tuple(sizes[c] if c in kept else 1 for c in unique))
            g = _ops.broadcast_to(g, tuple(sizes[c] for c in unique))
        if len(unique) != len(target):
            (g,) = DiagEinSum(unique, target, xs[i].shape).apply((g,))
        return g


class DiagEinSum(function_node.FunctionNode):
    """Places an array on the diagonals of repeated subscripts (zeros elsewhere).

    It is the adjoint of taking those diagonals with :class:`EinSum`.
    """

    def __init__(self, in_sub, out_sub, out_shape):
        self.in_sub = in_sub
        self.out_sub = out_sub
        self.out_shape = tuple(out_shape)

    def forward(self, inputs):
        (x,) = inputs
        xp = backend.get_array_module(x)
        y = xp.zeros(self.out_shape, x.dtype)
        n = len(self.in_sub)
        ranges = {}
        for k, c in enumerate(self.in_sub):
            shape = [1] * n
            shape[k] = x.shape[k]
            ranges[c] = xp.arange(x.shape[k]).reshape(shape)
        y[tuple(ranges[c] for c in self.out_sub)] = x
        return (y,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return EinSum((self.out_sub,), self.in_sub).apply((gy,))


def _parse_subscripts(subscripts, ndims):
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        in_part, out_part = subscripts.split("->", 1)
        if "->" in out_part:
            raise ValueError("einsum subscripts may contain '->' only once")
    else:
        in_part, out_part = subscripts, None
    in_subs = in_part.split(",")
    if len(in_subs) != len(ndims):
        raise ValueError(
            "Number of einsum subscripts must be equal to the number of operands."
        )
    used = set(in_part.replace("...", "")) | set((out_part or "").replace("...", ""))
    for c in used:
        if c not in string.ascii_letters and c != ",":
            raise ValueError(f"invalid subscript {c!r} in einsum subscripts")
    free = [c for c in string.ascii_letters if c not in used]

    n_ellipsis = []
    for k, (sub, ndim) in enumerate(zip(in_subs, ndims, strict=True)):
        if "." in sub.replace("...", "", 1) or sub.count("...") > 1:
            raise ValueError(f"invalid ellipsis in einsum subscripts {sub!r}")
        n_letters = len(sub) - (3 if "..." in sub else 0)
        n = ndim - n_letters
        if n < 0 or (n > 0 and "..." not in sub):
            raise ValueError(
                f"einsum subscripts {sub!r} do not match operand {k} of ndim {ndim}"
            )
        n_ellipsis.append(n)
    n_max = max(n_ellipsis, default=0)
    if n_max > len(free):
        raise ValueError("too many dimensions for einsum")
    ell = "".join(free[:n_max])
    in_subs = [
        sub.replace("...", ell[n_max - n :])
        for sub, n in zip(in_subs, n_ellipsis, strict=True)
    ]

    if out_part is None:
        letters = "".join(in_part.replace("...", "").split(","))
        once = sorted(c for c in set(letters) if letters.count(c) == 1)
        out_sub = ell + "".join(once)
    else:
        if "." in out_part.replace("...", "", 1) or out_part.count("...") > 1:
            raise ValueError(f"invalid ellipsis in einsum output {out_part!r}")
        out_sub = out_part.replace("...", ell)
        all_in = set("".join(in_subs))
        for c in out_sub:
            if c not in all_in:
                raise ValueError(f"output subscript {c!r} appears in no input")
        if len(set(out_sub)) != len(out_sub):
            raise ValueError(f"output subscripts {out_part!r} repeat a letter")
    return in_subs, out_sub


def einsum(*operands):
    """Einstein summation convention on the operands.

    Like :func:`numpy.einsum` with a subscripts string: the explicit form
    ``'ij,jk->ik'``, the implicit form ``'ij,jk'`` (the output has the
    letters that appear once, sorted) and ``...`` for leading axes are
    supported. Repeated subscripts in one operand take its diagonal. Axes of
    one letter must have equal lengths (no broadcasting of length one).

    Args:
        operands: The subscripts string followed by the operands
            (:class:`~chainer.Variable` or :ref:`ndarray`), float arrays of one
            dtype whose ``ndim`` matches their subscripts.

    Returns:
        ~chainer.Variable: The result, of the dtype of the operands.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> F.einsum('ij,kj->ik', a, a).array
        array([[ 5., 14.],
               [14., 50.]], dtype=float32)
        >>> F.einsum('ii', np.eye(3, dtype=np.float32)).array
        array(3., dtype=float32)
    """
    if not operands or not isinstance(operands[0], str):
        raise TypeError("einsum takes a subscripts string followed by the operands")
    subscripts, xs = operands[0], operands[1:]
    in_subs, out_sub = _parse_subscripts(subscripts, [x.ndim for x in xs])
    (y,) = EinSum(in_subs, out_sub).apply(xs)
    return y
