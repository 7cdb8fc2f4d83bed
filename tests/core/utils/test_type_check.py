import pickle
import threading

import numpy
import pytest

import chainer
from chainer.utils import type_check as T


class _Func:
    label = "MyFunc"


def _types(*arrays):
    return T.get_types(arrays, "in_types", False)


def _message(*conds, func=None):
    with pytest.raises(T.InvalidType) as info:
        if func is None:
            T.expect(*conds)
        else:
            with T.get_function_check_context(func):
                T.expect(*conds)
    return str(info.value)


# -- full mode: messages ----------------------------------------------------


def test_dtype_message_matches_chainer_format():
    (x_type,) = _types(numpy.zeros((2, 3), numpy.float64))
    msg = _message(x_type.dtype == numpy.float32, func=_Func())
    assert msg == (
        "\nInvalid operation is performed in: MyFunc (Forward)\n\n"
        "Expect: in_types[0].dtype == <class 'numpy.float32'>\n"
        "Actual: float64 != <class 'numpy.float32'>"
    )


def test_message_without_function_context():
    (x_type,) = _types(numpy.zeros((2, 3, 4), numpy.float32))
    assert _message(x_type.ndim == 2) == "Expect: in_types[0].ndim == 2\nActual: 3 != 2"


def test_size_message():
    in_types = _types(numpy.zeros(1), numpy.zeros(1))
    assert _message(in_types.size() == 1) == (
        "Expect: in_types.size == 1\nActual: 2 != 1"
    )


def test_arithmetic_message():
    x_type, y_type = _types(numpy.zeros((3,)), numpy.zeros((1,)))
    msg = _message(x_type.shape[0] == y_type.shape[0] * 4)
    assert msg == (
        "Expect: in_types[0].shape[0] == in_types[1].shape[0] * 4\nActual: 3 != 4"
    )


def test_variable_names_value():
    (x_type,) = _types(numpy.zeros((3,)))
    in_size = T.Variable(4, "in_size")
    assert _message(x_type.shape[0] == in_size) == (
        "Expect: in_types[0].shape[0] == in_size\nActual: 3 != 4"
    )


def test_call_message():
    (x_type,) = _types(numpy.zeros((3, 4)))
    total = T.Variable(numpy.sum, "sum")
    assert _message(total(x_type.shape) == 10) == (
        "Expect: sum(in_types[0].shape) == 10\nActual: 7 != 10"
    )


def test_kind_and_slice_messages():
    (x_type,) = _types(numpy.zeros((2, 3), numpy.int32))
    assert _message(x_type.dtype.kind == "f") == (
        "Expect: in_types[0].dtype.kind == 'f'\nActual: i != f"
    )
    assert _message(x_type.shape[1:] == (2,)) == (
        "Expect: in_types[0].shape[1:] == (2,)\nActual: (3,) != (2,)"
    )


def test_all_comparisons_pass_and_fail():
    (x_type,) = _types(numpy.zeros((2, 3)))
    T.expect(
        x_type.ndim == 2,
        x_type.ndim != 3,
        x_type.ndim < 3,
        x_type.ndim <= 2,
        x_type.ndim > 1,
        x_type.ndim >= 2,
    )
    for cond, inv in [
        (x_type.ndim == 3, "!="),
        (x_type.ndim != 2, "=="),
        (x_type.ndim < 2, ">="),
        (x_type.ndim <= 1, ">"),
        (x_type.ndim > 2, "<="),
        (x_type.ndim >= 3, "<"),
    ]:
        assert f"Actual: 2 {inv} " in _message(cond)


def test_expect_stops_at_first_failure():
    (x_type,) = _types(numpy.zeros((2,)))
    msg = _message(x_type.ndim == 1, x_type.shape[0] == 5, x_type.ndim == 7)
    assert "shape[0] == 5" in msg


def test_conditions_evaluated_lazily_on_missing_axis():
    (x_type,) = _types(numpy.zeros(()))
    # ndim is checked before shape[1] is evaluated, so no IndexError.
    assert "ndim == 3" in _message(x_type.ndim == 3, x_type.shape[1] == 2)


# -- expression trees -------------------------------------------------------


def test_expr_eval_and_str_doc_example():
    x = T.Variable(1, "x")
    y = T.Variable(1, "y")
    c = x == y
    assert c.eval() is True
    assert str(c) == "x == y"
    assert (x == 1).eval()


def test_expr_bool_raises():
    x = T.Variable(1, "x")
    y = T.Variable(1, "y")
    with pytest.raises(RuntimeError, match="Don't convert Expr to bool"):
        bool(x == y)


def test_expr_not_iterable():
    (x_type,) = _types(numpy.zeros((2,)))
    with pytest.raises(TypeError, match="not iterable"):
        list(x_type.shape)


def test_operators_eval_and_parentheses():
    a = T.Variable(7, "a")
    b = T.Variable(2, "b")
    cases = [
        (a + b, "a + b", 9),
        (a - b, "a - b", 5),
        (a * b, "a * b", 14),
        (a / b, "a / b", 3.5),
        (a // b, "a // b", 3),
        (a % b, "a % b", 1),
        (a**b, "a ** b", 49),
        (a << b, "a << b", 28),
        (a >> b, "a >> b", 1),
        (a & b, "a & b", 2),
        (a ^ b, "a ^ b", 5),
        (a | b, "a | b", 7),
        (-a, "-a", -7),
        (+a, "+a", 7),
        (~a, "~a", -8),
        (3 + a, "3 + a", 10),
        (10 - a, "10 - a", 3),
        (2 * a, "2 * a", 14),
        ((a + b) * 2, "(a + b) * 2", 18),
        (a - (b - 1), "a - (b - 1)", 6),
        (a - b - 1, "a - b - 1", 4),
        ((a**b) ** 2, "(a ** b) ** 2", 2401),
        (a ** (b**2), "a ** b ** 2", 2401),
        (-(a + b), "-(a + b)", -9),
    ]
    for expr, text, value in cases:
        assert str(expr) == text
        assert expr.eval() == value


def test_getattr_getitem_call_nodes():
    v = T.Variable(numpy.zeros((2, 5)), "v")
    assert isinstance(v.shape, T.GetAttr)
    assert isinstance(v.shape[0], T.GetItem)
    assert v.shape[-1].eval() == 5
    assert str(v.shape[::2]) == "v.shape[::2]"
    assert v.shape[::2].eval() == (2,)
    call = T.Call(T.Variable(max, "max"), (v.shape[0], 3))
    assert str(call) == "max(v.shape[0], 3)"
    assert call.eval() == 3
    assert str(T.GetAttr(v, T.Constant("ndim"))) == "v.ndim"


def test_constant_and_atoms():
    c = T.Constant(numpy.float32)
    assert str(c) == "<class 'numpy.float32'>"
    assert c.eval() is numpy.float32
    assert isinstance(c, T.Atom)
    assert isinstance(T.Variable(1, "n"), T.Expr)


def test_operator_classes_direct_construction():
    op = T.BinaryOperator(8, T.Variable(1, "p"), 2, "+", lambda a, b: a + b)
    assert str(op) == "p + 2"
    assert op.eval() == 3
    un = T.UnaryOperator(10, T.Variable(3, "q"), "-", lambda a: -a)
    assert un.eval() == -3
    cmp = T.BoolBinaryOperator(T.Variable(1, "r"), 2, "==", "!=", lambda a, b: a == b)
    assert isinstance(cmp, T.Testable)
    with pytest.raises(T.InvalidType, match="Actual: 1 != 2"):
        cmp.expect()


def test_call_rejects_non_sequence_args():
    with pytest.raises(TypeError, match="tuple or a list"):
        T.Call(T.Variable(max, "max"), 3)


def test_base_expr_eval_is_an_error():
    with pytest.raises(TypeError, match="cannot be evaluated"):
        T.Expr(0).eval()


def test_dunder_attributes_not_turned_into_expressions():
    v = T.Variable(1, "v")
    with pytest.raises(AttributeError):
        v.__array_interface__  # noqa: B018


def test_eval_function():
    v = T.Variable(3, "v")
    assert T.eval(v + 1) == 4
    assert T.eval(5) == 5


# -- type info ----------------------------------------------------------------


def test_get_types_builds_named_variables():
    x = numpy.zeros((2, 3), numpy.float32)
    types = T.get_types((x, None), "in_types", True)
    assert isinstance(types, T.TypeInfoTuple)
    assert str(types[0]) == "in_types[0]"
    info = types[0].eval()
    assert isinstance(info, T.TypeInfo)
    assert info.shape == (2, 3)
    assert info.ndim == 2
    assert info.size == 6
    assert info.dtype == numpy.float32
    assert types[1].eval().dtype is None
    assert types.size().eval() == 2


def test_get_types_with_shapes():
    x = numpy.zeros((2, 3), numpy.float32)
    (t,) = T.get_types((x,), "in_types", False, shapes=((3, 2),))
    assert t.shape.eval() == (3, 2)


def test_get_types_bad_input():
    with pytest.raises(TypeError, match="tuple"):
        T.get_types([numpy.zeros(1)], "in_types", False)
    with pytest.raises(TypeError, match="is None"):
        T.get_types((None,), "in_types", False)
    with pytest.raises(TypeError, match="must be an array"):
        T.get_types((3,), "in_types", False)
    with pytest.raises(ValueError, match="one entry per array"):
        T.get_types((numpy.zeros(1),), "in_types", False, shapes=())


def test_light_types_are_plain_values():
    x = numpy.zeros((2, 3), numpy.float32)
    y = numpy.zeros((4,), numpy.int32)
    with T.light_mode:
        assert T.in_light_mode()
        types = T.get_light_types((x, y))
        assert isinstance(types, T.LightTypeInfoTuple)
        assert types.size() == 2
        x_type, y_type = types
        assert x_type.shape == (2, 3)
        assert x_type.ndim == 2
        assert x_type.size == 6
        assert x_type.dtype.kind == "f"
        assert y_type.dtype.kind == "i"
        T.expect(types.size() == 2, x_type.dtype == numpy.float32)
        with pytest.raises(T.InvalidType):
            T.expect(x_type.ndim == 3)
    assert not T.in_light_mode()


def test_light_types_with_shapes():
    x = numpy.zeros((2, 3), numpy.float32)
    (t,) = T.get_light_types((x,), shapes=((6,),))
    assert t.shape == (6,)
    assert t.ndim == 1
    assert t.size == 6
    assert t.dtype == numpy.float32
    with pytest.raises(ValueError, match="one entry per array"):
        T.get_light_types((x,), shapes=((1,), (2,)))


def test_light_mode_nests_and_restores():
    with T.light_mode:
        with T.light_mode:
            assert T.in_light_mode()
        assert T.in_light_mode()
    assert not T.in_light_mode()
    with pytest.raises(ValueError), T.light_mode:
        raise ValueError
    assert not T.in_light_mode()


def test_is_light_tells_light_type_infos():
    x = numpy.zeros((2, 3), numpy.float32)
    assert T.is_light(T.get_light_types((x,)))
    assert not T.is_light(T.get_types((x,), "in_types", False))
    with T.light_mode:
        assert T.is_light((x,))


def test_expect_takes_booleans_and_expressions_in_either_mode():
    x = numpy.zeros((2, 3), numpy.float32)
    T.expect(True, numpy.bool_(True))
    with pytest.raises(T.InvalidType):
        T.expect(True, numpy.bool_(False))
    (x_type,) = T.get_types((x,), "in_types", False)
    T.expect(x_type.ndim == 2)
    with pytest.raises(T.InvalidType, match="in_types"):
        T.expect(x_type.ndim == 3)


def test_light_check_in_apply_keeps_named_conditions():
    # apply's light check reads the thread-local flag through its dict: a
    # function that names a value with make_variable still gets a plain value.
    seen = []

    class F(chainer.FunctionNode):
        def check_type_forward(self, in_types):
            seen.append(T.make_variable(1, "one"))
            T.expect(in_types[0].ndim == T.make_variable(2, "two"))

        def forward(self, inputs):
            return inputs

    F().apply((numpy.zeros((2, 3), numpy.float32),))
    assert seen == [1]
    assert not T.in_light_mode()
    with pytest.raises(T.InvalidType, match="two"):
        F().apply((numpy.zeros(3, numpy.float32),))
    assert not T.in_light_mode()


def test_light_mode_is_thread_local():
    seen = []
    with T.light_mode:
        t = threading.Thread(target=lambda: seen.append(T.in_light_mode()))
        t.start()
        t.join()
    assert seen == [False]


def test_function_check_context_restores():
    f = _Func()
    with T.get_function_check_context(f):
        pass
    err = T.InvalidType("a", "b")
    assert "Invalid operation" not in str(err)


# -- helpers ------------------------------------------------------------------


def test_invalid_type_attributes_and_pickle():
    err = T.InvalidType("x", "y")
    assert err.expect == "x"
    assert err.actual == "y"
    err2 = pickle.loads(pickle.dumps(err))
    assert str(err2) == str(err)
    assert str(T.InvalidType("x", "y", msg="custom")) == "custom"


def test_expect_full_mode_plain_bool():
    T.expect(True)
    with pytest.raises(T.InvalidType):
        T.expect(False)


def test_make_variable_modes():
    v = T.make_variable(3, "n")
    assert isinstance(v, T.Variable)
    assert str(v) == "n"
    with T.light_mode:
        assert T.make_variable(3, "n") == 3


def test_prod():
    assert T.prod((2, 3, 4)) == 24
    assert T.prod(()) == 1
    (x_type,) = _types(numpy.zeros((2, 5)))
    expr = T.prod(x_type.shape)
    assert str(expr) == "prod(in_types[0].shape)"
    assert expr.eval() == 10
    with T.light_mode:
        assert T.prod((2, 5)) == 10


def test_expect_broadcast_shapes():
    x_type, y_type = _types(numpy.zeros((2, 3)), numpy.zeros((1, 3)))
    T.expect_broadcast_shapes(x_type.shape, y_type.shape)
    T.expect_broadcast_shapes((2, 3), (3,))
    x_type, y_type = _types(numpy.zeros((2, 3)), numpy.zeros((4,)))
    with pytest.raises(T.InvalidType) as info:
        T.expect_broadcast_shapes(x_type.shape, y_type.shape)
    assert str(info.value) == (
        "cannot broadcast inputs of the following shapes:\n"
        "in_types[0].shape = (2, 3)\n"
        "in_types[1].shape = (4,)"
    )


def test_same_types():
    assert T.same_types(numpy.zeros(1), numpy.zeros(2))
    assert T.same_types()
    assert not T.same_types(numpy.zeros(1), [1.0])


def test_argname():
    in_types = _types(numpy.zeros((2,), numpy.int32), numpy.zeros((2,)))
    T.argname(in_types, ("x", "W"))
    x_type, w_type = in_types
    assert "Expect: x.dtype.kind == 'f'" in _message(x_type.dtype.kind == "f")
    assert str(w_type) == "W"
    assert T._argname is T.argname
    with T.light_mode:
        T.argname(T.get_light_types((numpy.zeros(1),)), ("x",))


def test_argname_wrong_count():
    in_types = _types(numpy.zeros(1))
    with pytest.raises(T.InvalidType) as info:
        T.argname(in_types, ("x", "W"))
    assert str(info.value) == "Expect: 2 argument(s)\nActual: 1 argument(s)"


# -- integration with FunctionNode.apply ----------------------------------------


def test_function_node_apply_reports_full_message():
    from chainer import function_node

    class Twice(function_node.FunctionNode):
        def check_type_forward(self, in_types):
            T.expect(in_types.size() == 1)
            (x_type,) = in_types
            T.expect(x_type.dtype == numpy.float32, x_type.ndim == 2)

        def forward(self, inputs):
            (x,) = inputs
            return (x * 2,)

    (y,) = Twice().apply((numpy.ones((2, 2), numpy.float32),))
    numpy.testing.assert_array_equal(y.array, numpy.full((2, 2), 2, numpy.float32))
    with pytest.raises(T.InvalidType) as info:
        Twice().apply((numpy.ones((2, 2), numpy.float64),))
    assert str(info.value) == (
        "\nInvalid operation is performed in: Twice (Forward)\n\n"
        "Expect: in_types[0].dtype == <class 'numpy.float32'>\n"
        "Actual: float64 != <class 'numpy.float32'>"
    )
    with pytest.raises(T.InvalidType, match="in_types.size == 1"):
        Twice().apply((numpy.ones((2, 2), numpy.float32),) * 2)


def test_light_mode_accepts_named_variables():
    x = numpy.zeros((3, 4), numpy.float32)
    in_size = T.Variable(4, "in_size")
    total = T.Variable(numpy.sum, "sum")
    with T.light_mode:
        (x_type,) = T.get_light_types((x,))
        T.expect(x_type.shape[1] == in_size, total(x_type.shape) == 7)
        with pytest.raises(T.InvalidType):
            T.expect(x_type.shape[0] == in_size)
