"""Parameterized test classes (``testing.parameterize``, ``product``...)."""

from __future__ import annotations

import functools
import itertools
import types
import unittest

from chainer.testing import _bundle

_MAX_VALUE_STR = 100
_MAX_PARAMS_STR = 5000


def _shorten(s, maxlen):
    # Long text keeps its head and tail around "...".
    if len(s) <= maxlen:
        return s
    head = (maxlen - 3) // 2
    tail = maxlen - 3 - head
    return s[:head] + "..." + s[-tail:]


def _balance_braces(s):
    # Shortening can cut a brace pair; the class name stays parsable as
    # "<Name>_param_<i>_{...}" when every brace of a value is paired.
    out = []
    depth = 0
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                continue
            depth -= 1
        out.append(c)
    return "".join(out) + "}" * depth


def _value_str(v):
    if isinstance(v, type):
        return v.__name__
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)):
        return v.__name__
    return _balance_braces(_shorten(repr(v), _MAX_VALUE_STR))


def _param_str(param):
    items = ", ".join(f"{k}={_value_str(v)}" for k, v in sorted(param.items()))
    return "{" + _balance_braces(_shorten(items, _MAX_PARAMS_STR)) + "}"


def _wrap_test_method(base, method, param):
    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except unittest.SkipTest:
            raise
        except Exception as e:
            lines = [
                "Parameterized test failed.",
                f"Base test method: {base.__name__}.{method.__name__}",
                "Test parameters:",
            ]
            lines += [f"  {k}: {v}" for k, v in sorted(param.items())]
            e.add_note("\n".join(lines))
            raise

    return wrapped


def _parameterized_class(base, index, param):
    name = f"{base.__name__}_param_{index}_{_param_str(param)}"
    members = {}
    for key, value in param.items():
        # A function given as a parameter is called as self.f(x): keep it
        # from being bound as a method.
        if isinstance(value, types.FunctionType):
            value = staticmethod(value)
        members[key] = value
    for method_name in _bundle.test_method_names(base):
        method = getattr(base, method_name)
        if isinstance(method, types.FunctionType):
            members[method_name] = _wrap_test_method(base, method, param)
    original_str = base.__str__

    def __str__(self):
        return f"{original_str(self)}  parameter: {_param_str(param)}"

    members["__str__"] = __str__
    return name, _bundle.derive(base, name, members)


def parameterize(*params):
    """Class decorator that generates one test class per parameter dict.

    Each generated class is a subclass whose attributes are set from one
    dict, so test methods read ``self.shape``, ``self.dtype``... The classes
    are named ``<Name>_param_<i>_{k=v, ...}`` and placed in the module; a
    failing test method reports the parameters.

    Args:
        params: Dicts mapping attribute names to values.

    Returns:
        callable: The class decorator.
    """
    for i, p in enumerate(params):
        if not isinstance(p, dict):
            raise TypeError(
                f"parameterize expects dicts; parameter {i} is {type(p).__name__}"
            )

    def decorator(target):
        return _bundle.expand(
            target,
            lambda base: [
                _parameterized_class(base, i, p) for i, p in enumerate(params)
            ],
        )

    return decorator


def product(parameter):
    """Cartesian product of parameter values.

    Args:
        parameter (dict or list): A dict mapping each name to a list of
            values, or a list of lists of dicts (their products are merged).
            A comma-separated key such as ``'shape,axis'`` names several
            attributes at once; each of its values is a tuple with one item
            per name.

    Returns:
        list of dict: One dict per combination.

    Example:
        >>> product({'a': [1, 2], 'b': ['x']})
        [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}]
        >>> product([[{'a': 1}, {'a': 2}], [{'b': 3}]])
        [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
    """
    if isinstance(parameter, dict):
        keys = sorted(parameter)
        for k in keys:
            if not isinstance(parameter[k], (list, tuple)):
                raise TypeError(
                    f"product: values of {k!r} must be a list, "
                    f"not {type(parameter[k]).__name__}"
                )
        # A key "a,b" takes tuples of values, one item per name.
        return product_dict(*[_key_to_dicts(k, parameter[k]) for k in keys])
    if isinstance(parameter, list):
        for i, group in enumerate(parameter):
            if not isinstance(group, (list, tuple)) or not all(
                isinstance(d, dict) for d in group
            ):
                raise TypeError(f"product: element {i} must be a list of dicts")
        return product_dict(*parameter)
    raise TypeError(
        f"product expects a dict or a list of lists of dicts, "
        f"not {type(parameter).__name__}"
    )


def _key_to_dicts(key, values):
    names = [n.strip() for n in key.split(",")]
    if len(names) == 1:
        return [{names[0]: v} for v in values]
    dicts = []
    for v in values:
        if not isinstance(v, (tuple, list)) or len(v) != len(names):
            raise ValueError(
                f"product: each value of {key!r} must be a sequence of "
                f"{len(names)} items; got {v!r}"
            )
        dicts.append(dict(zip(names, v, strict=True)))
    return dicts


def product_dict(*parameters):
    """Cartesian product of lists of dicts, merging each combination.

    Args:
        parameters: Lists of dicts.

    Returns:
        list of dict: One merged dict per combination.

    Example:
        >>> product_dict([{'a': 1}, {'a': 2}], [{'b': 3, 'c': 4}])
        [{'a': 1, 'b': 3, 'c': 4}, {'a': 2, 'b': 3, 'c': 4}]
    """
    result = []
    for dicts in itertools.product(*parameters):
        merged = {}
        for d in dicts:
            merged.update(d)
        result.append(merged)
    return result


# The Cartesian product, kept under this name while ``product_dict`` is
# swapped for ``_pairwise_product_dict`` (pairwise test runs).
_product_dict_orig = product_dict


def _pairwise_product_dict(*parameters):
    """Combinations of lists of dicts that cover every pair of choices.

    Like :func:`product_dict`, but instead of every combination it returns a
    smaller set in which each choice of one list meets each choice of every
    other list at least once (pairwise testing). With two lists or fewer it
    is the full product.

    Args:
        parameters: Lists of dicts.

    Returns:
        list of dict: Merged dicts.
    """
    lists = [list(p) for p in parameters]
    if len(lists) <= 2 or any(not p for p in lists):
        return _product_dict_orig(*lists)
    n = len(lists)
    uncovered = {
        (i, a, j, b)
        for i, j in itertools.combinations(range(n), 2)
        for a in range(len(lists[i]))
        for b in range(len(lists[j]))
    }
    rows = []
    while uncovered:
        # Seed the row with the smallest uncovered pair, then give each other
        # list the choice that covers the most new pairs (first on ties).
        i, a, j, b = min(uncovered)
        row = [None] * n
        row[i], row[j] = a, b
        for k in range(n):
            if row[k] is not None:
                continue
            best, best_gain = 0, -1
            for c in range(len(lists[k])):
                gain = 0
                for m in range(n):
                    if row[m] is None or m == k:
                        continue
                    key = (m, row[m], k, c) if m < k else (k, c, m, row[m])
                    gain += key in uncovered
                if gain > best_gain:
                    best, best_gain = c, gain
            row[k] = best
        for p, q in itertools.combinations(range(n), 2):
            uncovered.discard((p, row[p], q, row[q]))
        rows.append(row)
    result = []
    for row in rows:
        merged = {}
        for k, c in enumerate(row):
            merged.update(lists[k][c])
        result.append(merged)
    return result


def from_pytest_parameterize(names, values):
    """Converts ``pytest.mark.parametrize`` arguments to parameter dicts.

    Args:
        names (str or list of str): Comma-separated names or a list of names.
        values (list): One value per case (a tuple of values when there are
            several names).

    Returns:
        list of dict: Parameters for :func:`parameterize`.
    """
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    names = list(names)
    if not names:
        raise ValueError("from_pytest_parameterize: no parameter names given")
    result = []
    for i, v in enumerate(values):
        if len(names) == 1:
            v = (v,)
        elif not isinstance(v, (tuple, list)) or len(v) != len(names):
            raise ValueError(
                f"from_pytest_parameterize: value {i} must be a sequence of "
                f"{len(names)} items"
            )
        result.append(dict(zip(names, v, strict=True)))
    return result


def parameterize_pytest(names, values):
    """Parameterizes a test class with ``pytest.mark.parametrize``'s arguments.

    Args:
        names (str or list of str): Parameter names.
        values (list): Parameter values.

    Returns:
        callable: The class decorator, as from :func:`parameterize`.
    """
    return parameterize(*from_pytest_parameterize(names, values))
