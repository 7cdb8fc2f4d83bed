import operator
import string

import numpy

from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _unique(sub):
    return "".join(dict.fromkeys(sub))


def _as_subs(in_subs):
    # Chainer spells the input subscripts as one comma-separated string.
    if isinstance(in_subs, str):
        return tuple(in_subs.split(","))
    return tuple(in_subs)


def _einsum(xp, in_subs, out_sub, arrays, dtype):
    spec = ",".join(in_subs) + "->" + out_sub
    if dtype == numpy.float16:
        # Long float16 sums lose precision; contract in float32.
        arrays = [a.astype(numpy.float32) for a in arrays]
    y = xp.einsum(spec, *arrays, optimize=len(arrays) > 2)
    return xp.asarray(y, dtype=dtype)


class EinSum(function_node.FunctionNode):
    """Einstein summation over explicit subscripts (no ellipsis).

    Args:
        in_subs (str or sequence of str): The subscripts of each input, as
            one comma-separated string (``'ij,jk'``) or one string each.
        out_sub (str): The subscripts of the output; each letter appears once
            and in some input.
    """

    def __init__(self, in_subs, out_sub):
        self.in_subs = _as_subs(in_subs)
        self.out_sub = out_sub

    def check_type_forward(self, in_types):
        n = len(self.in_subs)
        type_check.expect(in_types.size() == n)
        type_check.argname(in_types, tuple(f"x{i}" for i in range(n)))
        for i, sub in enumerate(self.in_subs):
            type_check.expect(
                in_types[i].dtype.kind == "f",
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
        dtype = numpy.result_type(*[x.dtype for x in inputs])
        return (_einsum(xp, self.in_subs, self.out_sub, inputs, dtype),)

    def backward(self, indexes, grad_outputs):
        xs = self.get_retained_inputs()
        (gy,) = grad_outputs
        return tuple(self._grad(i, xs, gy) for i in indexes)

    def _grad(self, i, xs, gy):
        # The adjoint of a contraction contracts the output gradient with the
        # other operands; letters only x_i has are broadcast, and repeated
        # letters of x_i put the result on its diagonals.
        others = [j for j in range(len(xs)) if j != i]
        subs = [self.out_sub] + [self.in_subs[j] for j in others]
        node = DiagEinSum(subs, self.in_subs[i], xs[i].shape)
        (g,) = node.apply((gy, *(xs[j] for j in others)))
        if g.dtype != xs[i].dtype:
            g = primitive_ops.cast(g, xs[i].dtype)
        return g


class DiagEinSum(EinSum):
    """Einstein summation whose output may repeat letters or add new ones.

    A letter of ``out_sub`` that no input has broadcasts the result along
    that axis (its length comes from ``out_shape``); a letter repeated in
    ``out_sub`` places the result on that diagonal, zeros elsewhere. It is
    the adjoint of :class:`EinSum`, which sums over such axes and takes such
    diagonals.

    Args:
        in_subs (str or sequence of str): The subscripts of each input.
        out_sub (str): The subscripts of the output.
        out_shape (tuple of int): The shape of the output.
    """

    def __init__(self, in_subs, out_sub, out_shape):
        super().__init__(in_subs, out_sub)
        if len(out_shape) != len(out_sub):
            raise ValueError(
                f"out_shape {tuple(out_shape)} does not match out_sub {out_sub!r}"
            )
        self.out_shape = tuple(out_shape)

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        dtype = numpy.result_type(*[x.dtype for x in inputs])
        out_sub = self.out_sub
        unique = _unique(out_sub)
        present = set("".join(self.in_subs))
        direct = "".join(c for c in unique if c in present)
        y = _einsum(xp, self.in_subs, direct, inputs, dtype)
        if direct == out_sub:
            return (y,)
        sizes = dict(zip(out_sub, self.out_shape, strict=True))
        y = y.reshape(tuple(sizes[c] if c in present else 1 for c in unique))
        out = xp.zeros(self.out_shape, dtype)
        if unique == out_sub:
            out[...] = y
            return (out,)
        n = len(unique)
        ranges = {}
        for k, c in enumerate(unique):
            shape = [1] * n
            shape[k] = sizes[c]
            ranges[c] = xp.arange(sizes[c]).reshape(shape)
        out[tuple(ranges[c] for c in out_sub)] = y
        return (out,)


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
    with_ellipsis = {
        n for sub, n in zip(in_subs, n_ellipsis, strict=True) if "..." in sub
    }
    if len(with_ellipsis) > 1:
        # NumPy would broadcast; F.einsum does not.
        raise type_check.InvalidType(
            "the same number of axes for '...' in every operand",
            f"subscripts={subscripts!r}, ndims={tuple(ndims)}",
        )
    n_max = max(n_ellipsis, default=0)
    if n_max > len(free):
        raise ValueError("too many dimensions for einsum")
    ell = "".join(free[:n_max])
    in_subs = [sub.replace("...", ell) for sub in in_subs]

    if out_part is None:
        letters = "".join(in_part.replace("...", "").split(","))
        once = sorted(c for c in set(letters) if letters.count(c) == 1)
        out_sub = ell + "".join(once)
    else:
        if "." in out_part.replace("...", "", 1) or out_part.count("...") > 1:
            raise ValueError(f"invalid ellipsis in einsum output {out_part!r}")
        if "..." in out_part and not with_ellipsis:
            raise ValueError(
                f"einsum output {out_part!r} has '...' but no operand has it"
            )
        if n_max and "..." not in out_part:
            raise ValueError(
                f"einsum output {out_part!r} omits '...': summing over the "
                "axes of an ellipsis is not supported"
            )
        out_sub = out_part.replace("...", ell)
        all_in = set("".join(in_subs))
        for c in out_sub:
            if c not in all_in:
                raise ValueError(f"output subscript {c!r} appears in no input")
        if len(set(out_sub)) != len(out_sub):
            raise ValueError(f"output subscripts {out_part!r} repeat a letter")
    return in_subs, out_sub


def _sublist_to_str(sublist):
    # NumPy's sublist form: ints 0-25 stand for 'A'-'Z', 26-51 for 'a'-'z'.
    if isinstance(sublist, str):
        raise TypeError(
            "einsum takes a subscripts string followed by the operands, or "
            "operands each followed by a list of ints"
        )
    chars = []
    for s in sublist:
        if s is Ellipsis:
            chars.append("...")
            continue
        try:
            k = operator.index(s)
        except TypeError:
            raise TypeError(
                f"einsum subscript list items must be ints or Ellipsis, not {s!r}"
            ) from None
        if not 0 <= k < 52:
            raise ValueError(f"einsum subscript {k} is not in the range [0, 52)")
        chars.append(
            string.ascii_uppercase[k] if k < 26 else string.ascii_lowercase[k - 26]
        )
    return "".join(chars)


def einsum(*operands):
    """Einstein summation convention on the operands.

    Like :func:`numpy.einsum`, in either of its forms: a subscripts string
    followed by the operands (``einsum('ij,jk->ik', a, b)``), or each operand
    followed by its list of integer subscripts, with an optional output list
    last (``einsum(a, [0, 1], b, [1, 2], [0, 2])``). The explicit form
    ``'ij,jk->ik'``, the implicit form ``'ij,jk'`` (the output has the
    letters that appear once, sorted) and ``...`` (``Ellipsis`` in a list)
    for leading axes are supported. Repeated subscripts in one operand take
    its diagonal. Unlike NumPy, axes are not broadcast: axes of one letter
    must have equal lengths, every ``...`` must stand for the same number of
    axes, and an explicit output must keep ``...``.

    Args:
        operands: The subscripts string followed by the operands
            (:class:`~chainer.Variable` or :ref:`ndarray`), or the operands
            each followed by its subscript list. Operands are float arrays
            whose ``ndim`` matches their subscripts.

    Returns:
        ~chainer.Variable: The result, of the dtype NumPy promotes the
        operands' dtypes to.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> F.einsum('ij,kj->ik', a, a).array
        array([[ 5., 14.],
               [14., 50.]], dtype=float32)
        >>> F.einsum('ii', np.eye(3, dtype=np.float32)).array
        array(3., dtype=float32)
        >>> F.einsum(a, [0, 1], a, [2, 1], [0, 2]).shape
        (2, 2)
    """
    if not operands:
        raise TypeError("einsum needs subscripts and operands")
    if isinstance(operands[0], str):
        subscripts, xs = operands[0], operands[1:]
    else:
        out_list = None
        if len(operands) % 2:
            out_list, operands = operands[-1], operands[:-1]
        xs = operands[0::2]
        if not xs:
            raise TypeError(
                "einsum takes a subscripts string followed by the operands, or "
                "operands each followed by a list of ints"
            )
        subscripts = ",".join(_sublist_to_str(sub) for sub in operands[1::2])
        if out_list is not None:
            subscripts += "->" + _sublist_to_str(out_list)
    in_subs, out_sub = _parse_subscripts(subscripts, [x.ndim for x in xs])
    (y,) = EinSum(in_subs, out_sub).apply(xs)
    return y
