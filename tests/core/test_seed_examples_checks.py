"""The seeds' type-check and gradient-check examples, run as written.

References read ``000:1950`` = line 1950 of the seed file starting with
``000_``. ``chainer.functions.relu`` (not part of chainer-core) is replaced by
a ReLU written as the seeds teach (a FunctionNode).
"""

import numpy as np
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.utils import type_check


def _apply(check, *arrays):
    """Runs a one-off FunctionNode whose check_type_forward is ``check``."""

    class Checked(chainer.FunctionNode):
        def check_type_forward(self, in_types):
            check(self, in_types)

        def forward(self, inputs):
            return (inputs[0] * 2,)

    return Checked().apply(arrays)


def _message(check, *arrays):
    with pytest.raises(type_check.InvalidType) as info:
        _apply(check, *arrays)
    return info.value


# ---------------------------------------------------------------------------
# Type checks (000:1917-2120, 001:1483-1640, 004:1060-1230)
# ---------------------------------------------------------------------------


def test_ndim_check_message():
    # 000:1950-1958: Expect: in_types[0].ndim == 2 / Actual: 3 != 2.
    def check(self, in_types):
        (x_type,) = in_types
        type_check.expect(x_type.ndim == 2)

    _apply(check, np.zeros((2, 3), dtype=np.float32))
    err = _message(check, np.zeros((1, 2, 3), dtype=np.float32))
    assert err.expect == "in_types[0].ndim == 2"
    assert err.actual == "3 != 2"
    assert "Expect: in_types[0].ndim == 2\nActual: 3 != 2" in str(err)


def test_dtype_check_message():
    # 000:1974-1982.
    def check(self, in_types):
        (x_type,) = in_types
        type_check.expect(x_type.dtype == np.float64)

    err = _message(check, np.zeros(3, dtype=np.float32))
    assert err.expect == "in_types[0].dtype == <class 'numpy.float64'>"
    assert err.actual == "float32 != <class 'numpy.float64'>"


def test_dtype_kind_and_comparison_between_arguments():
    # 000:1983-1990: dtype.kind == 'f' and x.shape[1] == y.shape[1].
    def check(self, in_types):
        x_type, y_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.shape[1] == y_type.shape[1],
        )

    _apply(check, np.zeros((2, 3), np.float32), np.zeros((4, 3), np.float32))
    err = _message(check, np.zeros((2, 3), np.int32), np.zeros((4, 3), np.float32))
    assert err.expect == "in_types[0].dtype.kind == 'f'"
    err = _message(check, np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32))
    assert err.expect == "in_types[0].shape[1] == in_types[1].shape[1]"
    assert err.actual == "3 != 4"


def test_arithmetic_inside_expressions():
    # 000:2030-2040: x.shape[0] == y.shape[0] * 4 with 3 and 1 -> "3 != 4".
    def check(self, in_types):
        x_type, y_type = in_types
        type_check.expect(x_type.shape[0] == y_type.shape[0] * 4)

    err = _message(check, np.zeros(3, np.float32), np.zeros(1, np.float32))
    assert err.expect == "in_types[0].shape[0] == in_types[1].shape[0] * 4"
    assert err.actual == "3 != 4"


def test_named_variable_makes_the_message_readable():
    # 000:2041-2057: Variable(self.in_size, "in_size") vs a bare 4.
    def named(self, in_types):
        (x_type,) = in_types
        type_check.expect(x_type.shape[0] == type_check.Variable(4, "in_size"))

    def bare(self, in_types):
        (x_type,) = in_types
        type_check.expect(x_type.shape[0] == 4)

    err = _message(named, np.zeros(3, np.float32))
    assert err.expect == "in_types[0].shape[0] == in_size"
    assert err.actual == "3 != 4"
    err = _message(bare, np.zeros(3, np.float32))
    assert err.expect == "in_types[0].shape[0] == 4"
    assert err.actual == "3 != 4"


def test_call_of_a_wrapped_function():
    # 000:2058-2072: sum = Variable(np.sum, 'sum'); sum(x.shape) == 10.
    def check(self, in_types):
        (x_type,) = in_types
        sum_ = type_check.Variable(np.sum, "sum")
        type_check.expect(sum_(x_type.shape) == 10)

    _apply(check, np.zeros((4, 6), np.float32))
    err = _message(check, np.zeros((3, 4), np.float32))
    assert err.expect == "sum(in_types[0].shape) == 10"
    assert err.actual == "7 != 10"


def _complicated_check_with(evaluate):
    def check(self, in_types):
        (x_type,) = in_types
        x_shape = evaluate(x_type.shape)
        if len(x_shape) != 5:
            expect_msg = "Shape is expected to be ..."
            actual_msg = "Shape is ..."
            raise type_check.InvalidType(expect_msg, actual_msg)

    return check


def test_hand_written_invalid_type_with_type_check_eval():
    # 000:2079-2092, evaluating with type_check.eval (works in every mode).
    check = _complicated_check_with(type_check.eval)
    _apply(check, np.zeros((1, 1, 1, 1, 1), np.float32))
    err = _message(check, np.zeros((3, 4), np.float32))
    assert err.expect == "Shape is expected to be ..."
    assert err.actual == "Shape is ..."
    assert "Expect: Shape is expected to be ...\nActual: Shape is ..." in str(err)


def test_hand_written_invalid_type_with_expr_eval_as_documented():
    # 000:2079-2092 verbatim: x_type.shape.eval().
    check = _complicated_check_with(lambda shape: shape.eval())
    err = _message(check, np.zeros((3, 4), np.float32))
    assert err.expect == "Shape is expected to be ..."


def _typical_check(self, in_types):
    # 000:2093-2116: size first, then unpack, then the invariants.
    type_check.expect(in_types.size() == 2)
    x_type, _y_type = in_types
    type_check.expect(
        x_type.dtype == np.float32,
        x_type.ndim == 3,
        x_type.shape[1] == 2,
    )


def test_typical_type_check_example():
    # 000:2093-2116: size, then dtype, ndim and shape[1] in one expect.
    ok = np.zeros((4, 2, 5), np.float32)
    _apply(_typical_check, ok, ok)
    err = _message(_typical_check, ok)
    assert err.expect == "in_types.size == 2"
    assert err.actual == "1 != 2"
    err = _message(_typical_check, ok.astype(np.float64), ok)
    assert err.expect == "in_types[0].dtype == <class 'numpy.float32'>"
    bad_shape = np.zeros((4, 3, 5), np.float32)
    err = _message(_typical_check, bad_shape, bad_shape)
    assert err.expect == "in_types[0].shape[1] == 2"
    assert err.actual == "3 != 2"


def test_typical_type_check_is_lazy_for_low_rank_inputs():
    # 000:2117-2118: a 1-d input must fail on ndim == 3, not crash.
    low_rank = np.zeros(4, np.float32)
    err = _message(_typical_check, low_rank, low_rank)
    assert err.expect == "in_types[0].ndim == 3"


def test_old_style_function_type_check():
    # 000:1926-1934 (the method exists on Function as well).
    class Checked(chainer.Function):
        def check_type_forward(self, in_types):
            type_check.expect(in_types.size() == 1)
            (x_type,) = in_types
            type_check.expect(x_type.ndim == 2)

        def forward(self, inputs):
            return (inputs[0] * 2,)

    Checked()(np.zeros((2, 2), np.float32))
    with pytest.raises(type_check.InvalidType) as info:
        Checked()(np.zeros(3, np.float32))
    assert info.value.expect == "in_types[0].ndim == 2"
    assert "Checked" in str(info.value)


def test_expr_reference_example():
    # 001:3250-3264, 004:1828-1843.
    x = type_check.Variable(1, "x")
    y = type_check.Variable(1, "y")
    c = x == y
    assert isinstance(c, type_check.Expr)
    assert c.eval() is True
    assert str(c) == "x == y"
    assert (x == 1).eval() is True
    z = type_check.Variable(1, "z")
    with pytest.raises(RuntimeError, match="Don't convert Expr to bool"):
        _ = x == y and y == z


def test_expr_eval_gives_type_info_and_values():
    # 000:2015-2020: x_type.eval() is a TypeInfo; x_type.shape[0].eval() an int.
    types = type_check.get_types((np.zeros((3, 2), np.float32),), "in_types", False)
    (x_type,) = types
    info = x_type.eval()
    assert isinstance(info, type_check.TypeInfo)
    assert info.shape == (3, 2)
    assert info.dtype == np.float32
    assert x_type.shape[0].eval() == 3


# ---------------------------------------------------------------------------
# Gradient checks (000:803-876, 001:3280-3400)
# ---------------------------------------------------------------------------


class ReLU(chainer.FunctionNode):
    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (np.maximum(x, 0),)

    def backward(self, target_input_indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        return (gy * (x.array > 0).astype(gy.dtype),)


def relu(x):
    (y,) = ReLU().apply((x,))
    return y


def _away_from_kink(shape):
    x = np.random.randn(*shape).astype(np.float32)
    x[np.abs(x) < 0.05] = 0.5
    return x


def test_numerical_grad_of_a_closure():
    # 000:812-816.
    x = np.random.randn(4, 3).astype(np.float32)
    gy = np.ones((4, 3), dtype=np.float32)

    def f():
        return (x * x,)

    gx = gradient_check.numerical_grad(f, (x,), (gy,))
    assert len(gx) == 1
    np.testing.assert_allclose(gx[0], 2 * x, atol=1e-2)


def test_numerical_grad_weighted_by_gy_and_eps():
    # 000:823-826: gy weights the summation; eps is the quantization width.
    x = np.random.randn(5).astype(np.float64)
    gy = np.random.randn(5)

    def f():
        return (x**3,)

    (gx,) = gradient_check.numerical_grad(f, (x,), (gy,), eps=1e-4)
    np.testing.assert_allclose(gx, 3 * x**2 * gy, rtol=1e-5, atol=1e-8)


def test_relu_test_case_with_numerical_grad():
    # 000:845-858: backward vs numerical_grad with testing.assert_allclose.
    x = chainer.Variable(_away_from_kink((3, 2)))
    y = relu(x)
    y.grad = np.random.randn(3, 2).astype(np.float32)
    y.backward(retain_grad=True)

    def f():
        return (relu(x).array,)

    (gx,) = gradient_check.numerical_grad(f, (x.array,), (y.grad,))
    testing.assert_allclose(gx, x.grad)


def test_check_backward_relu():
    # 000:859-868 (atol=1e-4, rtol=1e-4 as in the tutorial).
    def f(x):
        return relu(x)

    x = _away_from_kink((3, 2))
    y_grad = np.random.randn(3, 2).astype(np.float32)
    gradient_check.check_backward(f, x, y_grad, atol=1e-4, rtol=1e-4)


def test_check_backward_detects_a_wrong_backward():
    # 001:3285-3297: check_backward compares with numerical gradients.
    class Wrong(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, target_input_indexes, grad_outputs):
            return (grad_outputs[0] * 3,)

    x = np.random.randn(3)
    with pytest.raises(AssertionError):
        gradient_check.check_backward(
            lambda x: Wrong().apply((x,))[0], x, np.random.randn(3)
        )


def test_check_backward_of_a_loss_with_y_grad_none():
    # 001:3300-3304: y_grad None for a function returning a scalar.
    def loss(x1, x2):
        d = x1 - x2
        return (d * d).mean()

    x1 = np.random.randn(4)
    x2 = np.random.randn(4)
    gradient_check.check_backward(loss, (x1, x2), None)


def test_check_backward_with_multiple_outputs():
    # 001:3305-3309: one gradient per output, as a tuple.
    def func(x):
        return x * 2, x * x

    x = np.random.randn(3)
    gradient_check.check_backward(func, x, (np.random.randn(3), np.random.randn(3)))


def test_check_backward_ignores_integer_inputs():
    # 001:3303-3305: "If input objects ... represent integer variables, their
    # gradients are ignored."
    def pick(x, index):
        return x[index.array]

    x = np.random.randn(5)
    index = np.array([0, 2], dtype=np.int32)
    gradient_check.check_backward(pick, (x, index), np.random.randn(2))


def test_check_backward_of_a_link_with_params():
    # 001:3310-3316: params=(my_link.W, my_link.b).
    class Affine(chainer.Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.W = chainer.Parameter(np.random.randn(3))
                self.b = chainer.Parameter(np.random.randn(3))

        def forward(self, x):
            return self.W * x + self.b

    link = Affine()
    x = np.random.randn(2, 3)
    gradient_check.check_backward(
        link, x, np.random.randn(2, 3), (link.W, link.b), atol=1e-4
    )


def test_check_double_backward_of_a_new_style_function():
    # 000:869-876: second-order check with x_grad_grad.
    def cube(x):
        return x**3

    x = np.random.randn(3)
    gradient_check.check_double_backward(
        cube, x, np.random.randn(3), np.random.randn(3)
    )
