"""The range check of integer labels and indices, shared by the catalogue.

Every function that reads an array at positions given by labels (class
labels, word ids, item indexes) checks them here first, on every backend and
every path, fused or not: an out-of-range label would otherwise read another
sample's data (a flat index) or wrap around (a negative index) without a word.
"""

import numpy

from chainer import backend

_ndarray = numpy.ndarray

_UNSIGNED = {numpy.dtype(f"i{size}"): numpy.dtype(f"u{size}") for size in (1, 2, 4, 8)}
_UNSIGNED.update((u, u) for u in list(_UNSIGNED.values()))


def _below(t, n):
    # Whether 0 <= t < n everywhere, as one reduction (one synchronisation
    # on a device): seen as unsigned, a negative label exceeds any count.
    unsigned = _UNSIGNED.get(t.dtype)
    if unsigned is None:
        return bool(((t >= 0) & (t < n)).all())
    return int(t.view(unsigned).max()) < n


class LabelRangeError(ValueError, IndexError):
    """A label or index outside its valid range.

    A ``ValueError``, as Chainer's debug-mode checks raise, and an
    ``IndexError``, as NumPy's indexing raises for an index past the end.
    """


def check_labels(func_name, t, n, ignore_label=None, name="t", bound=None):
    """Checks that each label is in ``[0, n)`` or equals ``ignore_label``.

    Two cheap passes over a NumPy ``t`` (``argmin`` and ``argmax``), one
    reduction on other arrays (the maximum of their unsigned view: one device
    synchronisation on a GPU) when every label is in range or, on NumPy, the
    negative ones are all an ``ignore_label`` of -1; one more otherwise
    (ignored labels aside), and only a failed check looks for the position.

    Args:
        func_name (str): Name of the function, for the message.
        t (:ref:`ndarray`): Labels, integer array of any shape.
        n (int): Number of valid labels.
        ignore_label (int or None): A label value that is allowed anywhere.
        name (str): Name of ``t`` in the message.
        bound (str or None): What ``n`` is, for the message (such as
            ``'x.shape[1]'``).

    Returns:
        :ref:`ndarray`: Labels safe to index with: ``t`` itself when every
        label is in ``[0, n)`` (so none equals an ``ignore_label`` outside
        that range), else a copy with the ignored labels replaced by 0.

    Raises:
        LabelRangeError: Some label is neither in range nor ``ignore_label``.
    """
    if type(t) is _ndarray:
        # The smallest and the largest label: on small arrays, argmin and
        # argmax cost a fraction of a reduction, and need no view.
        try:
            lo = t.item(t.argmin())
        except ValueError:  # no labels at all
            return t
        if t.item(t.argmax()) < n:
            if lo >= 0:
                return t
            if lo == ignore_label == -1:
                # The negative labels are all -1, the ignored ones.
                return numpy.where(t == -1, 0, t).astype(t.dtype, copy=False)
        xp = numpy
    else:
        xp = backend.get_array_module(t)
        if not t.size or _below(t, n):
            return t
    if ignore_label is not None and n:
        # Some labels are negative or too large: most often ignored ones.
        labels = xp.where(t == ignore_label, 0, t).astype(t.dtype, copy=False)
        if _below(labels, n):
            return labels
    # An error (or labels of another dtype): find the first bad label.
    outside = (t < 0) | (t >= n)
    bad = outside if ignore_label is None else outside & (t != ignore_label)
    bad = bad.ravel()
    if not bad.any():
        return xp.where(outside, 0, t).astype(t.dtype, copy=False)
    first = int(bad.argmax())
    index = tuple(int(i) for i in numpy.unravel_index(first, t.shape))
    where = f"{name}[{', '.join(map(str, index))}]" if index else name
    allowed = f"0 <= {name} < {n if bound is None else f'{bound} = {n}'}"
    if ignore_label is not None:
        allowed += f" or {name} == {ignore_label} (ignore_label)"
    raise LabelRangeError(
        f"{func_name}: {where} = {t.ravel()[first].item()} is out of range; "
        f"each label must satisfy {allowed}"
    )
