"""Variable's arithmetic operators (chainer.primitive_ops.basic_math).

Forward results are compared with plain NumPy; gradients and second-order
gradients are checked numerically with chainer.gradient_check.
"""

import operator

import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import primitive_ops
from chainer.primitive_ops import basic_math
from chainer.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]

DIFFERENTIABLE_OPS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "pow": operator.pow,
}
ALL_OPS = {**DIFFERENTIABLE_OPS, "floordiv": operator.floordiv}

SAME_SHAPES = [(), (3,), (2, 3)]
# Pairs of operand shapes that NumPy broadcasts; the gradient of the smaller
# operand has to be summed back to its own shape.
SHAPE_PAIRS = [
    ((), ()),
    ((3,), (3,)),
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((3, 1), (1, 4)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((2, 1, 3), (4, 1)),
]


def _forward_tol(dtype):
    if dtype == numpy.float16:
        return {"atol": 1e-3, "rtol": 5e-3}
    if dtype == numpy.float32:
        return {"atol": 1e-6, "rtol": 1e-5}
    return {"atol": 1e-12, "rtol": 1e-12}


def _backward_tol(dtype):
    # The numerical side runs in float64; the analytic side keeps the dtype.
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2, "dtype": numpy.float64}
    if dtype == numpy.float32:
        return {"atol": 1e-4, "rtol": 1e-3, "dtype": numpy.float64}
    return {"atol": 1e-5, "rtol": 1e-4}


def _uniform(shape, dtype, low=-1.0, high=1.0):
    return numpy.asarray(numpy.random.uniform(low, high, shape), dtype=dtype)


def _away_from_zero(shape, dtype, low=0.5, high=2.0):
    # Magnitude in [low, high) with a random sign: keeps divisors and abs()
    # away from their singular or non-differentiable point 0.
    sign = numpy.where(numpy.random.uniform(size=shape) < 0.5, -1.0, 1.0)
    return numpy.asarray(sign * numpy.random.uniform(low, high, shape), dtype=dtype)


def _operands(opname, lhs_shape, rhs_shape, dtype):
    """Inputs on which ``opname`` is smooth and well conditioned."""
    if opname == "pow":
        # A positive base keeps x ** y real for any exponent.
        return (
            _uniform(lhs_shape, dtype, 0.5, 2.0),
            _uniform(rhs_shape, dtype, -1.5, 1.5),
        )
    if opname in ("truediv", "floordiv"):
        return _uniform(lhs_shape, dtype, -3, 3), _away_from_zero(rhs_shape, dtype)
    return _uniform(lhs_shape, dtype), _uniform(rhs_shape, dtype)


def _expected(opname, lhs, rhs, dtype):
    # The documented behaviour: a scalar operand takes the variable's dtype.
    lhs = numpy.asarray(lhs, dtype=dtype)
    rhs = numpy.asarray(rhs, dtype=dtype)
    return numpy.asarray(ALL_OPS[opname](lhs, rhs)).astype(dtype)


def _scalar_value(opname):
    return {
        "add": 1.5,
        "sub": -0.75,
        "mul": 2.5,
        "truediv": 1.25,
        "pow": 1.5,
        "floordiv": 0.75,
    }[opname]


def _check_double_backward(func, xs, gy, dtype):
    ggxs = tuple(_uniform(x.shape, dtype) for x in xs)
    gradient_check.check_double_backward(func, xs, gy, ggxs, **_backward_tol(dtype))


# ---------------------------------------------------------------------------
# Forward: every operator, every operand kind, broadcasting.
# ---------------------------------------------------------------------------


OPERAND_KINDS = [
    "var-var",
    "var-array",
    "array-var",
    "var-pyscalar",
    "pyscalar-var",
    "var-npscalar",
    "npscalar-var",
]


def _make_operands(kind, opname, shape, dtype):
    lhs, rhs = _operands(opname, shape, shape, dtype)
    scalar = _scalar_value(opname)
    if kind == "var-var":
        return chainer.Variable(lhs), chainer.Variable(rhs), lhs, rhs
    if kind == "var-array":
        return chainer.Variable(lhs), rhs, lhs, rhs
    if kind == "array-var":
        return lhs, chainer.Variable(rhs), lhs, rhs
    if kind == "var-pyscalar":
        return chainer.Variable(lhs), scalar, lhs, scalar
    if kind == "pyscalar-var":
        if opname == "pow":
            rhs = _uniform(shape, dtype, -1.5, 1.5)
        return scalar, chainer.Variable(rhs), scalar, rhs
    # A float64 NumPy scalar must still give a result of the variable's dtype.
    if kind == "var-npscalar":
        return chainer.Variable(lhs), numpy.float64(scalar), lhs, scalar
    if kind == "npscalar-var":
        if opname == "pow":
            rhs = _uniform(shape, dtype, -1.5, 1.5)
        return numpy.float64(scalar), chainer.Variable(rhs), scalar, rhs
    raise AssertionError(kind)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", OPERAND_KINDS)
@pytest.mark.parametrize("opname", sorted(ALL_OPS))
def test_binary_forward(opname, kind, dtype):
    for shape in SAME_SHAPES:
        lhs, rhs, lhs_raw, rhs_raw = _make_operands(kind, opname, shape, dtype)
        y = ALL_OPS[opname](lhs, rhs)
        assert isinstance(y, chainer.Variable)
        assert y.shape == shape
        assert y.dtype == dtype
        # 0-d results too are arrays, never NumPy scalars.
        assert isinstance(y.array, numpy.ndarray)
        numpy.testing.assert_allclose(
            y.array, _expected(opname, lhs_raw, rhs_raw, dtype), **_forward_tol(dtype)
        )


@pytest.mark.parametrize(("lhs_shape", "rhs_shape"), SHAPE_PAIRS)
@pytest.mark.parametrize("opname", sorted(ALL_OPS))
def test_binary_forward_broadcasts(opname, lhs_shape, rhs_shape):
    dtype = numpy.float64
    lhs, rhs = _operands(opname, lhs_shape, rhs_shape, dtype)
    y = ALL_OPS[opname](chainer.Variable(lhs), chainer.Variable(rhs))
    expected = ALL_OPS[opname](lhs, rhs)
    assert y.shape == numpy.broadcast_shapes(lhs_shape, rhs_shape)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-12)


@pytest.mark.parametrize("opname", ["add", "sub", "mul", "floordiv"])
def test_integer_variables(opname):
    lhs = numpy.array([7, -3, 4], numpy.int32)
    rhs = numpy.array([2, 2, -3], numpy.int32)
    op = ALL_OPS[opname]
    y = op(chainer.Variable(lhs), chainer.Variable(rhs))
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, op(lhs, rhs))
    z = op(chainer.Variable(lhs), 2)
    assert z.dtype == numpy.int32
    numpy.testing.assert_array_equal(z.array, op(lhs, numpy.int32(2)))


def test_scalar_keeps_float16():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float16))
    for y in (x + 1, 1 + x, x * numpy.float64(3), x / 3, 3 / x, x**2, 2**x, -x):
        assert y.dtype == numpy.float16


# ---------------------------------------------------------------------------
# Backward and double backward.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opname", sorted(DIFFERENTIABLE_OPS))
def test_binary_backward_var_var(opname, dtype):
    for lhs_shape, rhs_shape in SHAPE_PAIRS:
        lhs, rhs = _operands(opname, lhs_shape, rhs_shape, dtype)
        out_shape = numpy.broadcast_shapes(lhs_shape, rhs_shape)
        gy = _uniform(out_shape, dtype)
        gradient_check.check_backward(
            DIFFERENTIABLE_OPS[opname], (lhs, rhs), gy, **_backward_tol(dtype)
        )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape"), [((), ()), ((2, 3), (2, 3)), ((3, 1), (1, 4))]
)
@pytest.mark.parametrize("opname", sorted(DIFFERENTIABLE_OPS))
def test_binary_double_backward_var_var(opname, lhs_shape, rhs_shape, dtype):
    lhs, rhs = _operands(opname, lhs_shape, rhs_shape, dtype)
    gy = _uniform(numpy.broadcast_shapes(lhs_shape, rhs_shape), dtype)
    _check_double_backward(DIFFERENTIABLE_OPS[opname], (lhs, rhs), gy, dtype)


def _const_funcs(opname, const_array, scalar):
    """One-input functions with the constant on either side of the operator."""
    op = DIFFERENTIABLE_OPS[opname]

    # The array constant follows the input's dtype, because gradient_check
    # may evaluate the function in float64.
    def var_array(x):
        return op(x, const_array.astype(x.dtype))

    def array_var(x):
        return op(const_array.astype(x.dtype), x)

    def var_scalar(x):
        return op(x, scalar)

    def scalar_var(x):
        return op(scalar, x)

    def var_npscalar(x):
        return op(x, numpy.float32(scalar))

    def npscalar_var(x):
        return op(numpy.float32(scalar), x)

    return {
        "var-array": var_array,
        "array-var": array_var,
        "var-pyscalar": var_scalar,
        "pyscalar-var": scalar_var,
        "var-npscalar": var_npscalar,
        "npscalar-var": npscalar_var,
    }


def _const_inputs(opname, kind, shape, dtype):
    """(variable input, constant array) on which the op is smooth."""
    var_on_left = kind.startswith("var")
    if opname == "pow":
        base = _uniform(shape, dtype, 0.5, 2.0)
        exponent = _uniform(shape, dtype, -1.5, 1.5)
        return (base, exponent) if var_on_left else (exponent, base)
    if opname == "truediv" and not var_on_left:
        return _away_from_zero(shape, dtype), _uniform(shape, dtype, -3, 3)
    if opname == "truediv":
        return _uniform(shape, dtype, -3, 3), _away_from_zero(shape, dtype)
    return _uniform(shape, dtype), _uniform(shape, dtype)


CONST_KINDS = [k for k in OPERAND_KINDS if k != "var-var"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", CONST_KINDS)
@pytest.mark.parametrize("opname", sorted(DIFFERENTIABLE_OPS))
def test_binary_backward_with_constant(opname, kind, dtype):
    for shape in [(), (2, 3)]:
        x, const = _const_inputs(opname, kind, shape, dtype)
        func = _const_funcs(opname, const, _scalar_value(opname))[kind]
        gy = _uniform(shape, dtype)
        gradient_check.check_backward(func, x, gy, **_backward_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", CONST_KINDS)
@pytest.mark.parametrize("opname", sorted(DIFFERENTIABLE_OPS))
def test_binary_double_backward_with_constant(opname, kind, dtype):
    x, const = _const_inputs(opname, kind, (2, 3), dtype)
    func = _const_funcs(opname, const, _scalar_value(opname))[kind]
    gy = _uniform((2, 3), dtype)
    _check_double_backward(func, (x,), gy, dtype)


def test_add_double_backward_identity_gradient():
    x0 = numpy.array([0.5, -1.0, 2.0])
    x1 = numpy.array([1.5, 0.25, -0.5])
    gy = numpy.array([1.0, -2.0, 0.5])
    ggx = (numpy.array([1.0, 2.0, 3.0]), numpy.array([-1.0, 0.5, 2.0]))
    gradient_check.check_double_backward(operator.add, (x0, x1), gy, ggx)


def test_backward_from_leaf_output_sets_its_gradient():
    # Chainer 7: an output without creator receives its upstream gradient,
    # added to the gradients flowing to it from the other outputs.
    x = chainer.Variable(numpy.array([1.0, 2.0]))
    y = x * 2
    chainer.backward([x, y], [numpy.array([3.0, 3.0]), numpy.array([1.0, 1.0])])
    numpy.testing.assert_array_equal(x.grad, [5.0, 5.0])


def test_broadcast_gradient_is_summed_to_operand_shape():
    x = chainer.Variable(numpy.array([1.0, 2.0, 3.0], numpy.float32))
    w = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    y = x * w
    y.grad = numpy.ones((2, 3), numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0, 5.0, 7.0])
    numpy.testing.assert_array_equal(w.grad, [[1, 2, 3], [1, 2, 3]])
    assert x.grad.dtype == numpy.float32


def test_gradient_reaches_only_the_variable_operand():
    c = numpy.array([2.0, -1.0], numpy.float32)
    x = chainer.Variable(numpy.array([3.0, 4.0], numpy.float32))
    y = c * x + c
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, c)
    numpy.testing.assert_array_equal(c, [2.0, -1.0])


def test_same_variable_on_both_sides_accumulates():
    x = chainer.Variable(numpy.array([3.0, -2.0]))
    y = x * x + x
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_allclose(x.grad, 2 * x.array + 1)


def test_no_gradient_without_requires_grad():
    # As in Chainer, the graph is recorded, but nothing requires a gradient.
    x = chainer.Variable(numpy.ones(2, numpy.float32), requires_grad=False)
    y = x * 2 + x
    assert y.creator is not None
    assert not y.requires_grad
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    assert x.grad is None


# ---------------------------------------------------------------------------
# Unary operators.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SAME_SHAPES)
def test_neg(shape, dtype):
    x = _uniform(shape, dtype)
    y = -chainer.Variable(x)
    assert y.dtype == dtype
    assert y.shape == shape
    numpy.testing.assert_array_equal(y.array, -x)
    gy = _uniform(shape, dtype)
    gradient_check.check_backward(operator.neg, x, gy, **_backward_tol(dtype))
    _check_double_backward(operator.neg, (x,), gy, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SAME_SHAPES)
def test_abs(shape, dtype):
    x = _away_from_zero(shape, dtype, 0.1, 2.0)
    y = abs(chainer.Variable(x))
    assert y.dtype == dtype
    assert y.shape == shape
    numpy.testing.assert_array_equal(y.array, numpy.abs(x))
    gy = _uniform(shape, dtype)
    gradient_check.check_backward(abs, x, gy, **_backward_tol(dtype))
    _check_double_backward(abs, (x,), gy, dtype)


def test_abs_gradient_is_sign():
    x = chainer.Variable(numpy.array([-2.0, 0.5, -0.25]))
    y = primitive_ops.absolute(x)
    y.grad = numpy.ones(3)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [-1.0, 1.0, -1.0])


def test_pos_returns_the_variable_itself():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    assert +x is x


def test_abs_rejects_integer_input():
    x = chainer.Variable(numpy.array([1, -2], numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == 'f'"):
        abs(x)


def test_neg_of_array_function():
    x = numpy.array([1.0, -2.0], numpy.float32)
    y = primitive_ops.neg(x)
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_array_equal(y.array, -x)


# ---------------------------------------------------------------------------
# Matrix product.
# ---------------------------------------------------------------------------


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (4, 3, 2)),
    ((4, 2, 3), (3,)),
    ((3,), (4, 3, 2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("a_shape", "b_shape"), MATMUL_SHAPES)
def test_matmul_forward(a_shape, b_shape, dtype):
    a = _uniform(a_shape, dtype)
    b = _uniform(b_shape, dtype)
    y = chainer.Variable(a) @ chainer.Variable(b)
    expected = numpy.matmul(a, b)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    tol = _forward_tol(dtype)
    if dtype == numpy.float16:
        tol = {"atol": 5e-3, "rtol": 5e-3}
    numpy.testing.assert_allclose(y.array, expected, **tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("a_shape", "b_shape"), MATMUL_SHAPES)
def test_matmul_backward(a_shape, b_shape, dtype):
    a = _uniform(a_shape, dtype)
    b = _uniform(b_shape, dtype)
    gy = _uniform(numpy.matmul(a, b).shape, dtype)
    gradient_check.check_backward(operator.matmul, (a, b), gy, **_backward_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 1, 2, 3), (4, 3, 2))],
)
def test_matmul_double_backward(a_shape, b_shape, dtype):
    a = _uniform(a_shape, dtype)
    b = _uniform(b_shape, dtype)
    gy = _uniform(numpy.matmul(a, b).shape, dtype)
    _check_double_backward(operator.matmul, (a, b), gy, dtype)


@pytest.mark.parametrize("a_order", ["C", "T"])
@pytest.mark.parametrize("b_order", ["C", "T"])
def test_matmul_gradients_outside_a_graph_match_the_graph_path(
    monkeypatch, a_order, b_order
):
    # A plain backward (no double backprop) computes both gradients of a 2-d
    # product in one chainer.utils.gemm.matmuls call; values and memory
    # orders equal those of the graph path it skips.
    def operand(shape, order):
        x = _uniform(shape if order == "C" else shape[::-1], numpy.float32)
        return x if order == "C" else x.T

    a = operand((4, 3), a_order)
    b = operand((3, 5), b_order)
    gy = _uniform((4, 5), numpy.float32)
    calls = []
    real_matmuls = basic_math.gemm.matmuls

    def spy(pairs):
        calls.append(len(pairs))
        return real_matmuls(pairs)

    monkeypatch.setattr(basic_math.gemm, "matmuls", spy)
    grads = {}
    for path in ("fast", "graph"):
        if path == "graph":
            monkeypatch.setattr(basic_math.gemm, "product_grads", lambda a, b, gy: None)
        va = chainer.Variable(a.copy(order="K"))
        vb = chainer.Variable(b.copy(order="K"))
        y = va @ vb
        y.grad = gy
        y.backward()
        grads[path] = (va.grad, vb.grad)
    assert calls == [2]
    for fast, graph in zip(grads["fast"], grads["graph"], strict=True):
        numpy.testing.assert_allclose(fast, graph, rtol=1e-6)
        assert fast.flags.c_contiguous == graph.flags.c_contiguous


def test_weight_gradient_through_a_transpose_is_c_ordered():
    # h @ W.T, the usual layer: W's gradient comes back C-ordered.
    h = chainer.Variable(_uniform((4, 3), numpy.float32))
    W = chainer.Variable(_uniform((5, 3), numpy.float32))
    y = h @ W.T
    y.grad = _uniform((4, 5), numpy.float32)
    y.backward()
    assert W.grad.flags.c_contiguous
    numpy.testing.assert_allclose(W.grad, y.grad.T @ h.array, rtol=1e-6)
    numpy.testing.assert_allclose(h.grad, y.grad @ W.array, rtol=1e-6)


def test_matmul_with_array_operand_on_either_side():
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    b = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    va = chainer.Variable(a)
    vb = chainer.Variable(b)
    left = va @ b
    right = a @ vb
    assert isinstance(left, chainer.Variable)
    assert isinstance(right, chainer.Variable)
    numpy.testing.assert_array_equal(left.array, a @ b)
    numpy.testing.assert_array_equal(right.array, a @ b)
    right.grad = numpy.ones((2, 4), numpy.float32)
    right.backward()
    numpy.testing.assert_array_equal(vb.grad, a.T @ numpy.ones((2, 4)))


def test_matmul_function_accepts_arrays():
    a = numpy.ones((2, 3))
    b = numpy.ones((3,))
    y = primitive_ops.matmul(a, b)
    numpy.testing.assert_array_equal(y.array, [3.0, 3.0])


def test_matmul_batched_broadcast_gradient_shapes():
    a = chainer.Variable(numpy.random.uniform(-1, 1, (5, 1, 2, 3)))
    b = chainer.Variable(numpy.random.uniform(-1, 1, (4, 3, 2)))
    y = a @ b
    assert y.shape == (5, 4, 2, 2)
    y.grad = numpy.ones(y.shape)
    y.backward()
    assert a.grad.shape == (5, 1, 2, 3)
    assert b.grad.shape == (4, 3, 2)
    # Broadcast batch axes are summed: b's over the leading 5, a's over the 4.
    gy = y.grad
    expected_ga = numpy.matmul(gy, b.array.swapaxes(-1, -2)).sum(axis=1, keepdims=True)
    expected_gb = numpy.matmul(a.array.swapaxes(-1, -2), gy).sum(axis=0)
    numpy.testing.assert_allclose(a.grad, expected_ga, rtol=1e-12)
    numpy.testing.assert_allclose(b.grad, expected_gb, rtol=1e-12)


# ---------------------------------------------------------------------------
# Floor division: piecewise constant, so no gradient flows.
# ---------------------------------------------------------------------------


def _assert_zero_or_none(grad, shape):
    if grad is not None:
        assert grad.shape == shape
        numpy.testing.assert_array_equal(grad, numpy.zeros(shape))


@pytest.mark.parametrize(
    "make",
    [
        lambda x, w: x // w,
        lambda x, w: x // 2.5,
        lambda x, w: 7.0 // w,
        lambda x, w: x.array // w,
        lambda x, w: x // w.array,
    ],
    ids=["var-var", "var-scalar", "scalar-var", "array-var", "var-array"],
)
def test_floordiv_has_no_gradient(make):
    x = chainer.Variable(numpy.array([3.5, -4.0, 9.0], numpy.float32))
    w = chainer.Variable(numpy.array([2.0, 3.0, -2.5], numpy.float32))
    y = make(x, w) + x * 0 + w * 0
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    # The only gradient left is the zero of ``* 0``: floordiv adds nothing.
    numpy.testing.assert_array_equal(x.grad, numpy.zeros(3))
    numpy.testing.assert_array_equal(w.grad, numpy.zeros(3))


def test_floordiv_gradient_of_direct_inputs():
    x = chainer.Variable(numpy.array([3.5, -4.0], numpy.float64))
    w = chainer.Variable(numpy.array([2.0, 3.0], numpy.float64))
    y = x // w
    numpy.testing.assert_array_equal(y.array, [1.0, -2.0])
    y.grad = numpy.ones(2)
    y.backward()
    _assert_zero_or_none(x.grad, (2,))
    _assert_zero_or_none(w.grad, (2,))


# ---------------------------------------------------------------------------
# add() with several inputs.
# ---------------------------------------------------------------------------


def test_add_many_inputs():
    xs = [numpy.random.uniform(-1, 1, (2, 3)) for _ in range(4)]
    y = primitive_ops.add(*xs)
    numpy.testing.assert_allclose(y.array, sum(xs))
    gy = numpy.random.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(lambda *vs: primitive_ops.add(*vs), tuple(xs), gy)


def test_add_single_input_is_identity():
    x = chainer.Variable(numpy.ones(3))
    assert primitive_ops.add(x) is x


def test_add_without_inputs():
    with pytest.raises(TypeError, match="at least one input"):
        primitive_ops.add()


# ---------------------------------------------------------------------------
# Bad input.
# ---------------------------------------------------------------------------


def test_matmul_promotes_mixed_float_dtypes():
    # As in Chainer 7, matmul promotes; each gradient keeps its operand's dtype.
    a = chainer.Variable(numpy.ones((2, 2), numpy.float32))
    b = chainer.Variable(numpy.ones((2, 2), numpy.float64))
    y = a @ b
    assert y.dtype == numpy.float64
    y.grad = numpy.ones((2, 2))
    y.backward()
    assert a.grad.dtype == numpy.float32
    assert b.grad.dtype == numpy.float64


@pytest.mark.parametrize("opname", sorted(ALL_OPS))
def test_dtype_mismatch(opname):
    op = ALL_OPS[opname]
    a = chainer.Variable(numpy.ones((2, 2), numpy.float32))
    b = chainer.Variable(numpy.ones((2, 2), numpy.float64))
    with pytest.raises(type_check.InvalidType) as info:
        op(a, b)
    message = str(info.value)
    assert "in_types[0].dtype == in_types[1].dtype" in message
    assert "float32 != float64" in message


@pytest.mark.parametrize("opname", sorted(ALL_OPS))
def test_array_operand_takes_variable_dtype(opname):
    # As in Chainer, a plain array operand is cast to the Variable's dtype
    # (seed 000's DCGAN adds float64 noise to float32 activations).
    a = chainer.Variable(numpy.full(3, 2.0, numpy.float16))
    b = numpy.full(3, 3.0, numpy.float64)
    for y in (ALL_OPS[opname](a, b), ALL_OPS[opname](b, a)):
        assert y.dtype == numpy.float16


@pytest.mark.parametrize("opname", sorted(ALL_OPS))
def test_dtype_mismatch_between_variables(opname):
    a = chainer.Variable(numpy.ones(3, numpy.float16))
    b = chainer.Variable(numpy.ones(3, numpy.float64))
    with pytest.raises(type_check.InvalidType, match="float16 != float64"):
        ALL_OPS[opname](a, b)


@pytest.mark.parametrize("opname", sorted(ALL_OPS))
def test_shapes_not_broadcastable(opname):
    a = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    b = chainer.Variable(numpy.ones((4,), numpy.float32))
    with pytest.raises(type_check.InvalidType) as info:
        ALL_OPS[opname](a, b)
    message = str(info.value)
    assert "broadcast" in message
    assert "(2, 3)" in message
    assert "(4,)" in message


@pytest.mark.parametrize("bad", ["abc", object(), [1.0, 2.0], None, {"a": 1}])
@pytest.mark.parametrize("opname", [*sorted(ALL_OPS), "matmul"])
def test_unsupported_operand_type(opname, bad):
    op = operator.matmul if opname == "matmul" else ALL_OPS[opname]
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    # Python words the error itself once Variable returns NotImplemented
    # ("unsupported operand type(s)...", "can only concatenate str...").
    with pytest.raises(TypeError, match="Variable"):
        op(x, bad)
    with pytest.raises(TypeError, match="Variable"):
        op(bad, x)


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "pattern"),
    [
        ((2, 3), (4, 2), r"a\.shape=\(2, 3\), b\.shape=\(4, 2\)"),
        ((3,), (4,), r"a\.shape=\(3,\), b\.shape=\(4,\)"),
        ((), (3,), r"ndim >= 1"),
        ((3,), (), r"ndim >= 1"),
    ],
)
def test_matmul_bad_shapes(a_shape, b_shape, pattern):
    a = chainer.Variable(numpy.ones(a_shape, numpy.float32))
    b = chainer.Variable(numpy.ones(b_shape, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=pattern):
        a @ b


@pytest.mark.parametrize("scalar", [2.0, numpy.float32(2.0)])
def test_matmul_rejects_scalars(scalar):
    x = chainer.Variable(numpy.ones((2, 2), numpy.float32))
    with pytest.raises(TypeError, match="Variable"):
        x @ scalar
    with pytest.raises(TypeError, match="Variable"):
        scalar @ x


def test_matmul_rejects_integer_input():
    a = chainer.Variable(numpy.ones((2, 2), numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == 'f'"):
        a @ a


def test_type_check_can_be_disabled():
    a = chainer.Variable(numpy.ones(2, numpy.float32))
    b = chainer.Variable(numpy.ones(2, numpy.float64))
    with chainer.using_config("type_check", False):
        y = a + b
    # Without the check NumPy's type promotion applies.
    assert y.dtype == numpy.float64


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    "func",
    [
        lambda a, b: a @ b.T,  # F-ordered right operand
        lambda a, b: a.T.T @ b.T,
        lambda a, b: b @ a.T,  # F-ordered right operand, other side
        lambda a, b: (a.T.T @ b.T).T,
    ],
)
def test_matmul_through_transposes_grad(func, dtype):
    a = numpy.random.uniform(-1, 1, (3, 4)).astype(dtype)
    b = numpy.random.uniform(-1, 1, (5, 4)).astype(dtype)
    y = func(chainer.Variable(a), chainer.Variable(b))
    gy = numpy.random.uniform(-1, 1, y.shape).astype(dtype)
    tol = {"atol": 1e-3, "rtol": 1e-2} if dtype == numpy.float32 else {}
    gradient_check.check_backward(func, (a, b), gy, dtype=numpy.float64, **tol)
    ggx = (
        numpy.random.uniform(-1, 1, a.shape).astype(dtype),
        numpy.random.uniform(-1, 1, b.shape).astype(dtype),
    )
    gradient_check.check_double_backward(
        func, (a, b), gy, ggx, dtype=numpy.float64, **tol
    )


def test_matmul_weight_gradient_through_transpose_is_c_ordered():
    w = chainer.Parameter(numpy.ones((3, 4), numpy.float32))
    x = chainer.Variable(numpy.ones((2, 4), numpy.float32))
    y = x @ w.T
    y.grad = numpy.ones((2, 3), numpy.float32)
    y.backward()
    assert w.grad.flags.c_contiguous
    numpy.testing.assert_array_equal(w.grad, numpy.full((3, 4), 2.0))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2, "2"),
        (0, "0"),
        (-2, "(-2)"),
        (-2.0, "(-2.0)"),
        (numpy.float32(2), "2.0"),
        (numpy.array([1, 2]), "constant array"),
        (chainer.Variable(numpy.array([1.0])), "constant array"),
    ],
)
def test_constant_labels(value, text):
    assert primitive_ops.basic_math.convert_value_to_string(value) == text
    assert primitive_ops.basic_math.AddConstant(value).label == f"_ + {text}"


def test_constant_label_of_other_objects():
    with pytest.raises(ValueError, match="scalar"):
        primitive_ops.basic_math.convert_value_to_string("x")
