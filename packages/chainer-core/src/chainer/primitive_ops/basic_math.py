"""Arithmetic primitives behind Variable's operators (+ - * / // ** @, neg, abs).

Binary operations between two arrays broadcast as NumPy does; the gradient of
a broadcast input is summed back to its shape. A Python or NumPy scalar
operand becomes a constant of the variable's dtype.
"""

from __future__ import annotations

import numbers

import numpy

from chainer import backend
from chainer import function_node
from chainer import utils
from chainer import variable
from chainer.primitive_ops import array as array_ops
from chainer.utils import gemm
from chainer.utils import type_check

_Variable = variable.Variable


def _same_type_pair(node, xs):
    # Two arrays of one dtype and one shape: nothing to broadcast.
    return len(xs) == 2 and xs[0].dtype == xs[1].dtype and xs[0].shape == xs[1].shape


@type_check.fast_path(_same_type_pair)
def _check_binary(in_types):
    type_check.expect(in_types.size() == 2)
    lhs, rhs = in_types
    type_check.expect(lhs.dtype == rhs.dtype)
    if not type_check.is_light(in_types) or lhs.shape != rhs.shape:
        type_check.expect_broadcast_shapes(lhs.shape, rhs.shape)


@type_check.fast_path(lambda node, xs: len(xs) == 1)
def _check_unary(in_types):
    type_check.expect(in_types.size() == 1)


_runs_directly = function_node._runs_directly
_direct_output = function_node._direct_output
_apply_checked_pair = function_node._apply_checked_pair
_apply_unchecked = function_node._apply_unchecked


def _neg(gy):
    # neg(gy) inside a backward pass.
    if _runs_directly(Neg, gy._data):
        return _direct_output(-gy._data, gy._requires_grad)
    return neg(gy)


def _sum_to(g, shape):
    if g is None or g.shape == shape:
        return g
    return array_ops.sum_to(g, shape)


def _to_input_shapes(g0, g1, nodes, indexes):
    # (g0 summed to input 0's shape, g1 to input 1's) for the target indexes
    # of a two-input elementwise node; written out, as this runs per op.
    if g0 is None:
        return (None,) * len(indexes)
    shape = g0._data.shape
    if len(indexes) == 2:
        s0 = nodes[0].shape
        s1 = nodes[1].shape
        if s0 == shape and s1 == shape:
            return (g0, g1)
        return (_sum_to(g0, s0), _sum_to(g1, s1))
    if indexes[0] == 0:
        s0 = nodes[0].shape
        return (g0 if s0 == shape else array_ops.sum_to(g0, s0),)
    s1 = nodes[1].shape
    return (g1 if s1 == shape else array_ops.sum_to(g1, s1),)


class Neg(function_node.FunctionNode):
    """Elementwise negation, ``-x``."""

    check_type_forward = staticmethod(_check_unary)

    @property
    def label(self):
        return "__neg__"

    def forward(self, inputs):
        return (-inputs[0],)

    def backward(self, indexes, grad_outputs):
        return (_neg(grad_outputs[0]),)


class Absolute(function_node.FunctionNode):
    """Elementwise absolute value, ``abs(x)``."""

    @property
    def label(self):
        return "|_|"

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        (x,) = inputs
        self._sign = backend.get_array_module(x).sign(x)
        return (abs(x),)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * self._sign,)


class Add(function_node.FunctionNode):
    """Elementwise sum of two arrays, broadcasting like NumPy."""

    check_type_forward = staticmethod(_check_binary)

    @property
    def label(self):
        return "_ + _"

    def forward(self, inputs):
        return (inputs[0] + inputs[1],)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return _to_input_shapes(gy, gy, self.inputs, indexes)


class AddConstant(function_node.FunctionNode):
    """Sum of an array and a constant, ``x + c``."""

    check_type_forward = staticmethod(_check_unary)

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return f"_ + {convert_value_to_string(self.value)}"

    def forward(self, inputs):
        return (inputs[0] + self.value,)

    def backward(self, indexes, grad_outputs):
        return grad_outputs


class Sub(function_node.FunctionNode):
    """Elementwise difference of two arrays, broadcasting like NumPy."""

    check_type_forward = staticmethod(_check_binary)

    @property
    def label(self):
        return "_ - _"

    def forward(self, inputs):
        return (inputs[0] - inputs[1],)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        if gy is not None and indexes[-1] == 1:
            return _to_input_shapes(gy, _neg(gy), self.inputs, indexes)
        return _to_input_shapes(gy, gy, self.inputs, indexes)


class SubFromConstant(function_node.FunctionNode):
    """Difference of a constant and an array, ``c - x``."""

    check_type_forward = staticmethod(_check_unary)

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return f"{convert_value_to_string(self.value)} - _"

    def forward(self, inputs):
        return (self.value - inputs[0],)

    def backward(self, indexes, grad_outputs):
        return (neg(grad_outputs[0]),)


class Mul(function_node.FunctionNode):
    """Elementwise product of two arrays, broadcasting like NumPy."""

    check_type_forward = staticmethod(_check_binary)

    @property
    def label(self):
        return "_ * _"

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return (inputs[0] * inputs[1],)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        n0, n1 = self.inputs
        if _runs_directly(Mul, gy._data, n0.data, n1.data):
            # gy * other on the retained arrays; the input nodes say whether
            # the inputs require a gradient.
            ret = []
            for i in indexes:
                if i == 0:
                    other, node = n1, n0
                else:
                    other, node = n0, n1
                g = gy._data * other.data
                v = _direct_output(g, gy._requires_grad or other._requires_grad)
                ret.append(v if g.shape == node.shape else _sum_to(v, node.shape))
            return tuple(ret)
        x0, x1 = self.get_retained_inputs()
        return tuple(
            [
                _sum_to(gy * x1, x0.shape) if i == 0 else _sum_to(gy * x0, x1.shape)
                for i in indexes
            ]
        )


class MulConstant(function_node.FunctionNode):
    """Product of an array and a constant, ``x * c``."""

    check_type_forward = staticmethod(_check_unary)

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return f"_ * {convert_value_to_string(self.value)}"

    def forward(self, inputs):
        return (inputs[0] * self.value,)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        if _runs_directly(MulConstant, gy._data):
            return (_direct_output(gy._data * self.value, gy._requires_grad),)
        return (mul_constant(gy, self.value),)


class Div(function_node.FunctionNode):
    """Elementwise quotient of two arrays, broadcasting like NumPy."""

    check_type_forward = staticmethod(_check_binary)

    @property
    def label(self):
        return "_ / _"

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return (inputs[0] / inputs[1],)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        x0, x1 = self.get_retained_inputs()
        if _runs_directly((Div, Neg, Mul), gy._data, x0._data, x1._data):
            # The operations below, on the arrays.
            requires_grad = gy._requires_grad or x1._requires_grad
            g0 = gy._data / x1._data
            ret = []
            for i in indexes:
                if i == 0:
                    g = _direct_output(g0, requires_grad)
                    ret.append(_sum_to(g, x0.shape))
                else:
                    g1 = -g0 * x0._data / x1._data
                    g = _direct_output(g1, requires_grad or x0._requires_grad)
                    ret.append(_sum_to(g, x1.shape))
            return tuple(ret)
        gx0 = gy / x1
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_sum_to(gx0, x0.shape))
            else:
                ret.append(_sum_to(-gx0 * x0 / x1, x1.shape))
        return tuple(ret)


class DivFromConstant(function_node.FunctionNode):
    """Quotient of a constant and an array, ``c / x``."""

    check_type_forward = staticmethod(_check_unary)

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return f"{convert_value_to_string(self.value)} / _"

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (self.value / inputs[0],)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * (-self.value) / (x * x),)


class FloorDiv(function_node.FunctionNode):
    """Floor division; piecewise constant, so its gradient is zero."""

    check_type_forward = staticmethod(_check_binary)

    @property
    def label(self):
        return "_ // _"

    def forward(self, inputs):
        return (inputs[0] // inputs[1],)

    def backward(self, indexes, grad_outputs):
        return (None,) * len(indexes)


class FloorDivConstant(function_node.FunctionNode):
    """Floor division by or of a constant; its gradient is zero."""

    check_type_forward = staticmethod(_check_unary)

    def __init__(self, value, reverse):
        self.value = value
        self.reverse = reverse

    def forward(self, inputs):
        if self.reverse:
            return (self.value // inputs[0],)
        return (inputs[0] // self.value,)

    def backward(self, indexes, grad_outputs):
        return (None,)


class PowVarVar(function_node.FunctionNode):
    """Elementwise power of two arrays, ``x ** y``."""

    check_type_forward = staticmethod(_check_binary)

    @property
    def label(self):
        return "_ ** _"

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        return (inputs[0] ** inputs[1],)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        x0, x1 = self.get_retained_inputs()
        ret = []
        for i in indexes:
            if i == 0:
                g = gy * x1 * x0 ** (x1 - 1)
                ret.append(_sum_to(g, x0.shape))
            else:
                (y,) = self.get_retained_outputs()
                ret.append(_sum_to(gy * log(x0) * y, x1.shape))
        return tuple(ret)


class PowVarConst(function_node.FunctionNode):
    """Power of an array to a constant exponent, ``x ** c``."""

    check_type_forward = staticmethod(_check_unary)

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return f"_ ** {convert_value_to_string(self.value)}"

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (inputs[0] ** self.value,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        c = self.value
        return (grad_outputs[0] * c * x ** (c - 1),)


class PowConstVar(function_node.FunctionNode):
    """Power of a constant to an array exponent, ``c ** x``."""

    check_type_forward = staticmethod(_check_unary)

    def __init__(self, value):
        self.value = value

    @property
    def label(self):
        return f"{convert_value_to_string(self.value)} ** _"

    def forward(self, inputs):
        self.retain_outputs((0,))
        return (self.value ** inputs[0],)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        xp = backend.get_array_module(y)
        log_c = xp.log(xp.asarray(self.value, dtype=y.dtype))
        return (grad_outputs[0] * (y * log_c),)


class Log(function_node.FunctionNode):
    """Elementwise natural logarithm."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        type_check.expect(in_types[0].dtype.kind == "f")

    @property
    def label(self):
        return "log"

    def forward(self, inputs):
        self.retain_inputs((0,))
        xp = backend.get_array_module(inputs[0])
        return (xp.log(inputs[0]),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / x,)


class MatMul(function_node.FunctionNode):
    """Matrix product with NumPy's ``matmul`` semantics (batched, 1-d).

    Float operands of different dtypes are promoted as in NumPy (and
    Chainer); each gradient is cast back to its operand's dtype.
    """

    @property
    def label(self):
        return "_ @ _"

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        a, b = in_types
        type_check.expect(
            a.dtype.kind == "f",
            b.dtype.kind == "f",
            a.ndim >= 1,
            b.ndim >= 1,
        )
        a_shape = tuple(type_check.eval(a.shape))
        b_shape = tuple(type_check.eval(b.shape))
        k = b_shape[0] if len(b_shape) == 1 else b_shape[-2]
        batch_ok = True
        for da, db in zip(a_shape[-3::-1], b_shape[-3::-1], strict=False):
            if da != db and da != 1 and db != 1:
                batch_ok = False
        if a_shape[-1] != k or not batch_ok:
            raise type_check.InvalidType(
                "a.shape[-1] == b.shape[-2] (b.shape[0] for 1-d b) and "
                "broadcastable batch dimensions",
                f"a.shape={a_shape}, b.shape={b_shape}",
            )

    def forward(self, inputs):
        a, b = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(a)
        return (xp.matmul(a, b),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        a, b = self.get_retained_inputs()
        if len(indexes) == 2 and not utils._config_entry("enable_backprop"):
            # Outside a graph, both products in one call (a plugin may run
            # them side by side); memory orders as below.
            both = gemm.product_grads(a.array, b.array, gy.array)
            if both is not None:
                return tuple(_Variable(g, requires_grad=False) for g in both)
        a2 = a if a.ndim > 1 else array_ops.reshape(a, (1, a.shape[0]))
        b2 = b if b.ndim > 1 else array_ops.reshape(b, (b.shape[0], 1))
        gy_shape = list(gy.shape)
        if a.ndim == 1:
            gy_shape.insert(len(gy_shape) - (0 if b.ndim == 1 else 1), 1)
        if b.ndim == 1:
            gy_shape.append(1)
        gy2 = array_ops.reshape(gy, tuple(gy_shape))
        ret = []
        for i in indexes:
            if i == 0:
                if _is_transposed_matrix(a):
                    g = _swap_last(matmul(b2, _swap_last(gy2)))
                else:
                    g = matmul(gy2, _swap_last(b2))
                g = array_ops.cast(_sum_to(g, _batched(g, a2)), a.dtype)
                ret.append(array_ops.reshape(g, a.shape))
            else:
                if _is_transposed_matrix(b):
                    g = _swap_last(matmul(_swap_last(gy2), a2))
                else:
                    g = matmul(_swap_last(a2), gy2)
                g = array_ops.cast(_sum_to(g, _batched(g, b2)), b.dtype)
                ret.append(array_ops.reshape(g, b.shape))
        return tuple(ret)


def _is_transposed_matrix(x):
    """Whether ``x`` is a 2-d F-ordered array, such as ``W.T`` of a C array.

    Its gradient is then computed as the transpose of a C-ordered product, so
    that the gradient flowing back through the transpose to ``W`` is
    C-ordered again (no copy, fast optimizer updates).
    """
    flags = x.array.flags
    return x.ndim == 2 and flags.f_contiguous and not flags.c_contiguous


def _swap_last(x):
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return array_ops.transpose(x, tuple(axes))


def _batched(g, x):
    # The shape x had after broadcasting its batch dims to ndim of g.
    return (1,) * (g.ndim - x.ndim) + x.shape if g.ndim > x.ndim else x.shape


def convert_value_to_string(value):
    """Returns the text for a constant operand in a node's label.

    A negative scalar is parenthesized (``'(-2)'``); an array or a
    Variable is ``'constant array'``. Chainer 7 has this helper as
    ``chainer.functions.math.basic_math._convert_value_to_string``.

    Args:
        value: A scalar, an array or a :class:`~chainer.Variable`.

    Returns:
        str: The label text.

    Raises:
        ValueError: If ``value`` is neither a scalar, an array nor a Variable.
    """
    if isinstance(value, _Variable):
        value = value._data
    if isinstance(value, (numbers.Number, numpy.generic)):
        negative = isinstance(value, (numbers.Real, numpy.floating)) and value < 0
        return f"({value})" if negative else str(value)
    if variable._is_array(value):
        return "constant array"
    raise ValueError(
        f"Value must be a Variable, scalar or array. Actual: {type(value).__name__}"
    )


_FAST_SCALARS = frozenset({int, float})


def _is_scalar(value):
    return isinstance(value, (numbers.Number, numpy.generic))


def _const(x, value):
    # A scalar takes the variable's dtype, so float16 stays float16.
    return x._data.dtype.type(value)


def _array_operand(x, value):
    # As in Chainer, an array operand takes the variable's dtype.
    return _Variable._make(value.astype(x._data.dtype, copy=False), False)


def _other(x, value, opname):
    if isinstance(value, _Variable):
        return value
    if variable._is_array(value):
        return _array_operand(x, value)
    raise TypeError(
        f"unsupported operand type for {opname}: Variable and {type(value).__name__}"
        " (a Variable, an array or a scalar is expected)"
    )


def neg(x):
    """Elementwise negation, ``-x``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input.

    Returns:
        ~chainer.Variable: ``-x``, same shape and dtype.
    """
    return Neg().apply((x,))[0]


def absolute(x):
    """Elementwise absolute value, ``abs(x)``.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input.

    Returns:
        ~chainer.Variable: ``|x|``, same shape and dtype.
    """
    return Absolute().apply((x,))[0]


def log(x):
    """Elementwise natural logarithm.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input.

    Returns:
        ~chainer.Variable: ``log(x)``, same shape and dtype.
    """
    return Log().apply((x,))[0]


def add(*xs):
    """Elementwise sum of the inputs (broadcasting like NumPy).

    Args:
        *xs (~chainer.Variable or :ref:`ndarray`): Two or more operands.

    Returns:
        ~chainer.Variable: The sum.
    """
    if len(xs) < 2:
        if len(xs) == 1:
            return variable.as_variable(xs[0])
        raise TypeError("add needs at least one input")
    y = Add().apply((xs[0], xs[1]))[0]
    for x in xs[2:]:
        y = Add().apply((y, x))[0]
    return y


def mul_constant(x, value):
    """Product of ``x`` and a scalar or array constant ``value`` (no gradient for it).

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Input.
        value (scalar or :ref:`ndarray`): The constant factor.

    Returns:
        ~chainer.Variable: ``x * value``.
    """
    return MulConstant(value).apply((x,))[0]


def matmul(a, b):
    """Matrix product with NumPy ``matmul`` semantics (``a @ b``).

    Args:
        a (~chainer.Variable or :ref:`ndarray`): Left operand, ``ndim >= 1``.
        b (~chainer.Variable or :ref:`ndarray`): Right operand, ``ndim >= 1``.

    Returns:
        ~chainer.Variable: The product.
    """
    return MatMul().apply((a, b))[0]


def _make_binary(var_op, const_op, reverse_const_op):
    # Checks are ordered by frequency: Variable operands first, then Python
    # scalars, then arrays; the ABC check for other numbers comes last.
    # Every node class here checks its inputs with _check_binary (two) or
    # _check_unary (one), the checks _apply_checked_pair / _apply_unchecked
    # stand for.
    def forward_op(self, other):
        if isinstance(other, _Variable):
            return _apply_checked_pair(var_op(), self, other)
        if type(other) in _FAST_SCALARS or _is_scalar(other):
            return _apply_unchecked(const_op(_const(self, other)), self)
        if variable._is_array(other):
            return var_op().apply((self, _array_operand(self, other)))[0]
        return NotImplemented

    def reverse_op(self, other):
        if isinstance(other, _Variable):
            return _apply_checked_pair(var_op(), other, self)
        if type(other) in _FAST_SCALARS or _is_scalar(other):
            return _apply_unchecked(reverse_const_op(_const(self, other)), self)
        if variable._is_array(other):
            return var_op().apply((_array_operand(self, other), self))[0]
        return NotImplemented

    return forward_op, reverse_op


def _rsub_const(value):
    return SubFromConstant(value)


def _floordiv_const(value):
    return FloorDivConstant(value, False)


def _rfloordiv_const(value):
    return FloorDivConstant(value, True)


def _pow(self, other):
    if _is_scalar(other):
        return PowVarConst(_const(self, other)).apply((self,))[0]
    try:
        other = _other(self, other, "**")
    except TypeError:
        return NotImplemented
    return PowVarVar().apply((self, other))[0]


def _rpow(self, other):
    if _is_scalar(other):
        return PowConstVar(_const(self, other)).apply((self,))[0]
    try:
        other = _other(self, other, "**")
    except TypeError:
        return NotImplemented
    return PowVarVar().apply((other, self))[0]


def _matmul(self, other):
    try:
        other = _other(self, other, "@")
    except TypeError:
        return NotImplemented
    return matmul(self, other)


def _rmatmul(self, other):
    try:
        other = _other(self, other, "@")
    except TypeError:
        return NotImplemented
    return matmul(other, self)


def install_variable_arithmetics():
    """Attaches the arithmetic operators to :class:`~chainer.Variable`."""
    v = _Variable
    v.__add__, v.__radd__ = _make_binary(Add, AddConstant, AddConstant)
    v.__sub__, v.__rsub__ = _make_binary(Sub, _neg_const(AddConstant), _rsub_const)
    v.__mul__, v.__rmul__ = _make_binary(Mul, MulConstant, MulConstant)
    v.__truediv__, v.__rtruediv__ = _make_binary(
        Div, _inv_const(MulConstant), DivFromConstant
    )
    v.__floordiv__, v.__rfloordiv__ = _make_binary(
        FloorDiv, _floordiv_const, _rfloordiv_const
    )
    v.__pow__, v.__rpow__ = _pow, _rpow
    v.__matmul__, v.__rmatmul__ = _matmul, _rmatmul


def _neg_const(cls):
    return lambda value: cls(-value)


def _inv_const(cls):
    def make(value):
        # x / c is computed as x * (1 / c) in the variable's dtype.
        return cls(type(value)(1) / value)

    return make
