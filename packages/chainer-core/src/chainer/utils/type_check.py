"""Type checking of function inputs (``chainer.utils.type_check``).

``check_type_forward`` receives the types of the inputs and states invariants
with :func:`expect`. Two modes exist:

* Light mode (used by ``FunctionNode.apply`` on every call): the type infos are
  the input arrays themselves, so ``x_type.shape`` is a plain tuple and
  ``expect`` only tests truthiness. This keeps per-op overhead small.
* Full mode: the type infos are :class:`Expr` trees, so a failed ``expect``
  can print the condition (``Expect: in_types[0].ndim == 2``) and the values
  it saw (``Actual: 3 != 2``).
"""

from __future__ import annotations

import contextlib
import operator
import threading

import numpy


class _ThreadLocal(threading.local):
    # __init__ runs once per thread, giving each thread its own state.
    def __init__(self):
        self.light_mode = False
        self.light_mode_stack = []
        self.current_function = None


_thread_local = _ThreadLocal()


# ---------------------------------------------------------------------------
# Type information
# ---------------------------------------------------------------------------


class TypeInfo:
    """Type information of an input/gradient array.

    It holds the shape and dtype of an array, independent of its device.

    Args:
        shape (tuple of ints): Shape of the array.
        dtype (numpy.dtype): Data type of the array (``None`` for an absent
            optional input).
    """

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.ndim = len(self.shape)
        self.size = _prod_impl(self.shape)

    def __repr__(self):
        return f"TypeInfo(shape={self.shape}, dtype={self.dtype})"


class TypeInfoTuple(tuple):
    """Tuple of type information (full mode).

    Its elements are :class:`Variable` expressions holding :class:`TypeInfo`.
    :meth:`size` returns an expression of the number of elements.
    """

    name = "in_types"

    def size(self):
        """Returns an expression representing the length of the tuple.

        Returns:
            Variable: Expression whose value is ``len(self)``.
        """
        return Variable(len(self), f"{self.name}.size")


class LightTypeInfoTuple(tuple):
    """Tuple of type information (light mode).

    Elements expose ``shape``, ``dtype``, ``ndim`` and ``size`` as plain values
    (usually they are the arrays themselves). :meth:`size` returns an int.
    """

    def size(self):
        """Returns the number of elements.

        Returns:
            int: ``len(self)``.
        """
        return len(self)


class _LightTypeInfo:
    """Light type info for an array seen through a different shape."""

    __slots__ = ("dtype", "ndim", "shape", "size")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = numpy.dtype(dtype)
        self.ndim = len(self.shape)
        self.size = _prod_impl(self.shape)


def _check_data_tuple(data, name):
    if not isinstance(data, tuple):
        raise TypeError(
            f"type_check: {name} must be a tuple of arrays, not {type(data).__name__}"
        )


def _check_shapes_length(data, shapes):
    if shapes is not None and len(shapes) != len(data):
        raise ValueError(
            "type_check: shapes must have one entry per array; "
            f"got {len(shapes)} shapes for {len(data)} arrays"
        )


def get_types(data, name, accept_none, *, shapes=None):
    """Builds full-mode type information for a tuple of arrays.

    Args:
        data (tuple of arrays): Arrays to describe.
        name (str): Name of the tuple shown in messages (e.g. ``'in_types'``).
        accept_none (bool): Whether ``None`` elements are allowed; they get a
            ``TypeInfo((), None)``.
        shapes (tuple of tuples or None): Shapes to report instead of the
            arrays' own shapes.

    Returns:
        TypeInfoTuple: One :class:`Variable` per array, named ``name[i]``.
    """
    _check_data_tuple(data, "data")
    _check_shapes_length(data, shapes)
    infos = []
    for i, x in enumerate(data):
        var_name = f"{name}[{i}]"
        if x is None:
            if not accept_none:
                raise TypeError(f"type_check: {var_name} is None")
            info = TypeInfo((), None)
        else:
            dtype = getattr(x, "dtype", None)
            if dtype is None or not hasattr(x, "shape"):
                raise TypeError(
                    f"type_check: {var_name} must be an array, not {type(x).__name__}"
                )
            shape = x.shape if shapes is None else shapes[i]
            info = TypeInfo(shape, dtype)
        infos.append(Variable(info, var_name))
    result = TypeInfoTuple(infos)
    result.name = name
    return result


def get_light_types(data, *, shapes=None):
    """Builds light-mode type information for a tuple of arrays.

    Args:
        data (tuple of arrays): Arrays to describe.
        shapes (tuple of tuples or None): Shapes to report instead of the
            arrays' own shapes.

    Returns:
        LightTypeInfoTuple: The arrays themselves (or light infos carrying the
        given shapes).
    """
    if shapes is None:
        return LightTypeInfoTuple(data)
    _check_data_tuple(data, "data")
    _check_shapes_length(data, shapes)
    return LightTypeInfoTuple(
        [
            x if x is None else _LightTypeInfo(shape, x.dtype)
            for x, shape in zip(data, shapes, strict=True)
        ]
    )


# ---------------------------------------------------------------------------
# Expression trees
# ---------------------------------------------------------------------------


def _eval_expr(v):
    if isinstance(v, Expr):
        return v.eval()
    if isinstance(v, list):
        return [_eval_expr(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_eval_expr(x) for x in v)
    return v


def _repr(v):
    if isinstance(v, Expr):
        return str(v)
    if isinstance(v, slice):
        parts = [
            "" if v.start is None else _repr(v.start),
            "" if v.stop is None else _repr(v.stop),
        ]
        if v.step is not None:
            parts.append(_repr(v.step))
        return ":".join(parts)
    if isinstance(v, list):
        return "[" + ", ".join(_repr(x) for x in v) + "]"
    if isinstance(v, tuple):
        if len(v) == 1:
            return "(" + _repr(v[0]) + ",)"
        return "(" + ", ".join(_repr(x) for x in v) + ")"
    return repr(v)


def _priority(v):
    return v.priority if isinstance(v, Expr) else _ATOM_PRIORITY


# Python's precedence, lowest to highest; used to place parentheses.
_BOOL_PRIORITY = -1
_OR_PRIORITY = 4
_XOR_PRIORITY = 5
_AND_PRIORITY = 6
_SHIFT_PRIORITY = 7
_ADD_PRIORITY = 8
_MUL_PRIORITY = 9
_UNARY_PRIORITY = 10
_POW_PRIORITY = 11
_POSTFIX_PRIORITY = 12
_ATOM_PRIORITY = 13


def _binary(priority, exp, func, right_associative=False):
    def method(self, other):
        return BinaryOperator(priority, self, other, exp, func, right_associative)

    def rmethod(self, other):
        return BinaryOperator(priority, other, self, exp, func, right_associative)

    return method, rmethod


def _compare(exp, inv, func):
    def method(self, other):
        return BoolBinaryOperator(self, other, exp, inv, func)

    return method


def _unary(exp, func):
    def method(self):
        return UnaryOperator(_UNARY_PRIORITY, self, exp, func)

    return method


class Expr:
    """Abstract syntax tree of an expression.

    It represents a lazily evaluated expression, not a value. :meth:`eval`
    computes its value and ``str()`` gives its source form. Operators (``+``,
    ``==``, indexing, attribute access, calls...) build new expressions.

    Boolean operators such as ``and`` cannot be used: converting an ``Expr``
    to ``bool`` raises ``RuntimeError``.

    Args:
        priority (int): Operator precedence, used to insert parentheses.

    Example:
        >>> x = Variable(1, 'x')
        >>> y = Variable(1, 'y')
        >>> c = (x == y)
        >>> c.eval()
        True
        >>> str(c)
        'x == y'
    """

    def __init__(self, priority):
        self.priority = priority

    def eval(self):
        """Evaluates the expression.

        Returns:
            The value of the expression.
        """
        raise TypeError(f"{type(self).__name__} cannot be evaluated")

    def __bool__(self):
        raise RuntimeError(
            "Don't convert Expr to bool. "
            "Please call Expr.eval method to evaluate expression."
        )

    def __iter__(self):
        raise TypeError(
            "Expr is not iterable; call eval() to get its value, "
            "or index it (e.g. shape[0])"
        )

    def __getattr__(self, name):
        # Dunder lookups (copy, pickle protocols) must not build expressions.
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return GetAttr(self, name)

    def __getitem__(self, key):
        return GetItem(self, key)

    def __call__(self, *args):
        return Call(self, args)

    __eq__ = _compare("==", "!=", operator.eq)
    __ne__ = _compare("!=", "==", operator.ne)
    __lt__ = _compare("<", ">=", operator.lt)
    __le__ = _compare("<=", ">", operator.le)
    __gt__ = _compare(">", "<=", operator.gt)
    __ge__ = _compare(">=", "<", operator.ge)
    __hash__ = None  # type: ignore[assignment]  # __eq__ builds expressions

    __add__, __radd__ = _binary(_ADD_PRIORITY, "+", operator.add)
    __sub__, __rsub__ = _binary(_ADD_PRIORITY, "-", operator.sub)
    __mul__, __rmul__ = _binary(_MUL_PRIORITY, "*", operator.mul)
    __truediv__, __rtruediv__ = _binary(_MUL_PRIORITY, "/", operator.truediv)
    __floordiv__, __rfloordiv__ = _binary(_MUL_PRIORITY, "//", operator.floordiv)
    __mod__, __rmod__ = _binary(_MUL_PRIORITY, "%", operator.mod)
    __pow__, __rpow__ = _binary(_POW_PRIORITY, "**", operator.pow, True)
    __lshift__, __rlshift__ = _binary(_SHIFT_PRIORITY, "<<", operator.lshift)
    __rshift__, __rrshift__ = _binary(_SHIFT_PRIORITY, ">>", operator.rshift)
    __and__, __rand__ = _binary(_AND_PRIORITY, "&", operator.and_)
    __xor__, __rxor__ = _binary(_XOR_PRIORITY, "^", operator.xor)
    __or__, __ror__ = _binary(_OR_PRIORITY, "|", operator.or_)

    __neg__ = _unary("-", operator.neg)
    __pos__ = _unary("+", operator.pos)
    __invert__ = _unary("~", operator.invert)


class Atom(Expr):
    """An expression without operators (a value or a named variable)."""

    def __init__(self):
        super().__init__(_ATOM_PRIORITY)


class Constant(Atom):
    """A literal value in an expression.

    Args:
        value: The value; shown with ``repr``.
    """

    def __init__(self, value):
        super().__init__()
        self.value = value

    def __str__(self):
        return _repr(self.value)

    def eval(self):
        return self.value


class Variable(Atom):
    """A named value in an expression.

    The name is what error messages show, so wrap a function's attribute to
    explain a number: ``x_type.shape[1] == Variable(self.in_size, 'in_size')``.

    Args:
        value: The value.
        name (str): The name used in messages.
    """

    def __init__(self, value, name):
        super().__init__()
        self.value = value
        self.name = name

    def __str__(self):
        return self.name

    def eval(self):
        return self.value


class GetAttr(Expr):
    """Attribute access ``obj.name`` in an expression.

    Args:
        obj: Expression or value whose attribute is read.
        name (str or Constant): Attribute name.
    """

    def __init__(self, obj, name):
        super().__init__(_POSTFIX_PRIORITY)
        self.obj = obj
        self.name = name

    def __str__(self):
        name = self.name
        if isinstance(name, Constant):
            name = name.value
        if isinstance(name, str):
            return f"{_paren(self.obj, self.priority)}.{name}"
        return f"getattr({_repr(self.obj)}, {_repr(name)})"

    def eval(self):
        return getattr(_eval_expr(self.obj), _eval_expr(self.name))


class GetItem(Expr):
    """Indexing ``obj[key]`` in an expression.

    Args:
        obj: Expression or value being indexed.
        key: Index, slice or tuple of them (may contain expressions).
    """

    def __init__(self, obj, key):
        super().__init__(_POSTFIX_PRIORITY)
        self.obj = obj
        self.key = key

    def __str__(self):
        key = self.key
        if isinstance(key, tuple) and key:
            key_str = ", ".join(_repr(k) for k in key)
        else:
            key_str = _repr(key)
        return f"{_paren(self.obj, self.priority)}[{key_str}]"

    def eval(self):
        key = self.key
        if isinstance(key, slice):
            key = slice(
                _eval_expr(key.start), _eval_expr(key.stop), _eval_expr(key.step)
            )
        else:
            key = _eval_expr(key)
        return _eval_expr(self.obj)[key]


class Call(Expr):
    """Function call ``obj(*args)`` in an expression.

    Args:
        obj: Expression (usually a :class:`Variable` wrapping a function).
        args (tuple): Arguments (may contain expressions).
    """

    def __init__(self, obj, args):
        if not isinstance(args, (tuple, list)):
            raise TypeError("Call: args must be a tuple or a list")
        super().__init__(_POSTFIX_PRIORITY)
        self.obj = obj
        self.args = tuple(args)

    def __str__(self):
        args = ", ".join(_repr(a) for a in self.args)
        return f"{_paren(self.obj, self.priority)}({args})"

    def eval(self):
        func = _eval_expr(self.obj)
        return func(*[_eval_expr(a) for a in self.args])


def _paren(v, priority, strict=True):
    s = _repr(v)
    p = _priority(v)
    if p < priority or (not strict and p == priority):
        return f"({s})"
    return s


class UnaryOperator(Expr):
    """Unary operator expression such as ``-x``.

    Args:
        priority (int): Precedence of the operator.
        term: Operand (expression or value).
        exp (str): Operator symbol.
        func (callable): Function computing the result from the operand.
    """

    def __init__(self, priority, term, exp, func):
        super().__init__(priority)
        self.term = term
        self.exp = exp
        self.func = func

    def __str__(self):
        return self.exp + _paren(self.term, self.priority)

    def eval(self):
        return self.func(_eval_expr(self.term))


class BinaryOperator(Expr):
    """Binary operator expression such as ``x + y``.

    Args:
        priority (int): Precedence of the operator.
        lhs: Left operand (expression or value).
        rhs: Right operand (expression or value).
        exp (str): Operator symbol.
        func (callable): Function computing the result.
        right_associative (bool): Whether the operator groups right to left
            (``**``).
    """

    def __init__(self, priority, lhs, rhs, exp, func, right_associative=False):
        super().__init__(priority)
        self.lhs = lhs
        self.rhs = rhs
        self.exp = exp
        self.func = func
        self.right_associative = right_associative

    def _operand_strs(self):
        ra = self.right_associative
        left = _paren(self.lhs, self.priority, strict=not ra)
        right = _paren(self.rhs, self.priority, strict=ra)
        return left, right

    def __str__(self):
        left, right = self._operand_strs()
        return f"{left} {self.exp} {right}"

    def eval(self):
        return self.func(_eval_expr(self.lhs), _eval_expr(self.rhs))


class Testable:
    """Mixin for expressions that :func:`expect` can test."""

    def expect(self):
        """Raises :class:`InvalidType` unless the condition holds."""
        if not self.eval():
            raise InvalidType(str(self), "False")


class BoolBinaryOperator(BinaryOperator, Testable):
    """Comparison expression such as ``x == y``, testable by :func:`expect`.

    Args:
        lhs: Left operand.
        rhs: Right operand.
        exp (str): Operator symbol (``'=='``).
        inv (str): Symbol of the negated operator (``'!='``), used in the
            ``Actual:`` line.
        func (callable): Comparison function.
    """

    def __init__(self, lhs, rhs, exp, inv, func):
        super().__init__(_BOOL_PRIORITY, lhs, rhs, exp, func)
        self.inv = inv

    def expect(self):
        left = _eval_expr(self.lhs)
        right = _eval_expr(self.rhs)
        if not self.func(left, right):
            # "Actual:" shows values with str(), "Expect:" with repr(), so
            # a dtype reads "float64 != <class 'numpy.float32'>".
            raise InvalidType(str(self), f"{left} {self.inv} {right}")


# ---------------------------------------------------------------------------
# Errors and checking
# ---------------------------------------------------------------------------


class InvalidType(Exception):
    """Raised when the types of a function's inputs are invalid.

    Args:
        expect (str): The expected condition.
        actual (str): What was actually seen.
        msg (str or None): Full message; built from ``expect`` and ``actual``
            (and the function being checked, if any) when omitted.
    """

    def __init__(self, expect, actual, msg=None):
        if msg is None:
            msg = f"Expect: {expect}\nActual: {actual}"
            func = _thread_local.current_function
            if func is not None:
                label = getattr(func, "label", type(func).__name__)
                msg = f"\nInvalid operation is performed in: {label} (Forward)\n\n{msg}"
        super().__init__(msg)
        self.expect = expect
        self.actual = actual

    def __reduce__(self):
        (msg,) = self.args
        return (InvalidType, (self.expect, self.actual, msg))


def eval(exp):
    """Evaluates an expression (returns other values unchanged).

    Args:
        exp: An :class:`Expr` or a plain value (as in light mode).

    Returns:
        The value.
    """
    if isinstance(exp, Expr):
        return exp.eval()
    return exp


def expect(*bool_exprs):
    """Evaluates and tests all given conditions.

    In light mode the conditions are plain booleans and only their truth is
    tested. In full mode they are comparison expressions and a failure gives
    an ``Expect: ... / Actual: ...`` message.

    Args:
        bool_exprs: Conditions to test, in order.

    Raises:
        InvalidType: If a condition does not hold.
    """
    # The kind of each condition tells the mode: light checks pass plain
    # booleans (``True`` takes the first branch, the one that runs for nearly
    # every op), full checks pass expressions. A named Variable turns a plain
    # comparison into an expression in either mode.
    for cond in bool_exprs:
        if cond is True:
            continue
        if isinstance(cond, Testable):
            cond.expect()
        elif isinstance(cond, Expr):
            if not cond.eval():
                raise InvalidType(str(cond), "False")
        elif not cond:
            raise InvalidType("a condition that holds", f"{cond!r}")


class LightMode:
    """Context manager that switches type checking to light mode."""

    def __enter__(self):
        local = _thread_local
        local.light_mode_stack.append(local.light_mode)
        local.light_mode = True

    def __exit__(self, *exc):
        local = _thread_local
        local.light_mode = local.light_mode_stack.pop()


light_mode = LightMode()


def in_light_mode():
    """Returns whether type checking is in light mode.

    ``FunctionNode.apply`` does not set this flag for its light check: it
    passes a :class:`LightTypeInfoTuple`, which :func:`is_light` recognises.

    Returns:
        bool: ``True`` inside ``with light_mode:``.
    """
    return _thread_local.light_mode


def is_light(in_types):
    """Returns whether ``in_types`` are light type infos (plain values).

    Args:
        in_types: The argument of ``check_type_forward``.

    Returns:
        bool: ``True`` for a :class:`LightTypeInfoTuple` or inside
        ``with light_mode:``; then shapes and dtypes are plain values.
    """
    return type(in_types) is LightTypeInfoTuple or _thread_local.light_mode


@contextlib.contextmanager
def get_function_check_context(f):
    """Context in which :class:`InvalidType` messages name function ``f``.

    Args:
        f: The function being checked; its ``label`` appears in messages.
    """
    prev = _thread_local.current_function
    _thread_local.current_function = f
    try:
        yield
    finally:
        _thread_local.current_function = prev


def make_variable(value, name):
    """Wraps a value in a named :class:`Variable` (full mode only).

    Args:
        value: The value.
        name (str): Name shown in messages.

    Returns:
        ``value`` itself in light mode, else ``Variable(value, name)``.
    """
    if _thread_local.light_mode:
        return value
    return Variable(value, name)


def _prod_impl(xs):
    result = 1
    for x in xs:
        result *= x
    return result


_prod_var = Variable(_prod_impl, "prod")


def prod(xs):
    """Product of a sequence, usable inside type check expressions.

    Args:
        xs: Sequence of ints, or an expression of one (e.g. ``x_type.shape``).

    Returns:
        The product (an int), or a :class:`Call` expression when ``xs`` is an
        expression.
    """
    if isinstance(xs, Expr) or (
        isinstance(xs, (tuple, list)) and any(isinstance(x, Expr) for x in xs)
    ):
        return _prod_var(xs)
    return _prod_impl(xs)


def expect_broadcast_shapes(*shape_types):
    """Checks that shapes can be broadcast together.

    Args:
        shape_types: Shapes (tuples or shape expressions such as
            ``x_type.shape``).

    Raises:
        InvalidType: If the shapes cannot be broadcast.
    """
    shapes = [tuple(eval(s)) for s in shape_types]
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        lines = ["cannot broadcast inputs of the following shapes:"]
        for shape_type, shape in zip(shape_types, shapes, strict=True):
            lines.append(f"{_repr(shape_type)} = {shape}")
        raise InvalidType("", "", msg="\n".join(lines)) from None


def same_types(*arrays):
    """Returns whether all arrays belong to the same array module.

    Args:
        arrays: Arrays (NumPy, CuPy...).

    Returns:
        bool: ``True`` if all are NumPy arrays or all are of one other kind.
    """
    if all(isinstance(x, numpy.ndarray) for x in arrays):
        return True
    from chainer import backend

    modules = {backend.get_array_module(x) for x in arrays}
    return len(modules) <= 1 and numpy not in modules


def fast_path(predicate):
    """Attaches a fast pre-check to a ``check_type_forward`` (decorator).

    ``predicate(node, inputs)`` gets the function node and the sequence of
    its input arrays, and returns ``True`` only when those inputs certainly
    pass the decorated check; :meth:`FunctionNode.apply
    <chainer.FunctionNode.apply>` then skips the check itself. Otherwise the
    check runs as usual and reports what is wrong. A plain Python predicate
    costs a fraction of the light-mode machinery (about 1k CPU instructions
    instead of 4-9k per call), which matters for ops on small arrays.

    The predicate belongs to the decorated function: a subclass that
    overrides ``check_type_forward`` does not inherit it.

    Example:
        >>> from chainer import function_node
        >>> from chainer.utils import type_check
        >>> class Square(function_node.FunctionNode):
        ...     @type_check.fast_path(
        ...         lambda node, xs: len(xs) == 1 and xs[0].dtype.kind == "f")
        ...     def check_type_forward(self, in_types):
        ...         type_check.expect(in_types.size() == 1,
        ...                           in_types[0].dtype.kind == "f")
        ...     def forward(self, inputs):
        ...         return inputs[0] ** 2,
        >>> Square().apply((numpy.arange(3.0),))[0].array
        array([0., 1., 4.])

    Args:
        predicate (callable): ``predicate(node, inputs) -> bool``; it must not
            raise for any inputs.

    Returns:
        callable: The decorator, which returns the check unchanged.
    """

    def decorate(check):
        target = check.__func__ if isinstance(check, staticmethod) else check
        target._fast_type_check = predicate
        return check

    return decorate


def single_float_input(node, inputs):
    """A :func:`fast_path` predicate: exactly one input, of a floating dtype.

    Args:
        node: The function node (unused).
        inputs (sequence of :ref:`ndarray`): The input arrays.

    Returns:
        bool: Whether the inputs are one float array.
    """
    return len(inputs) == 1 and inputs[0].dtype.kind == "f"


def argname(in_types, names):
    """Gives readable names to input type infos for error messages.

    Args:
        in_types (tuple): Type infos from ``check_type_forward``.
        names (tuple of str): One name per input (``('x', 'W', 'b')``).

    Raises:
        InvalidType: If the number of inputs differs from ``len(names)``.
    """
    if len(in_types) != len(names):
        raise InvalidType(
            f"{len(names)} argument(s)",
            f"{len(in_types)} argument(s)",
        )
    if type(in_types) is LightTypeInfoTuple or _thread_local.light_mode:
        return  # light type infos are arrays: nothing to name
    for in_type, name in zip(in_types, names, strict=True):
        if isinstance(in_type, Variable):
            in_type.name = name


# Chainer's functions call the private spelling.
_argname = argname
