import gc
import weakref

import numpy
import pytest

import chainer
from chainer import Variable
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


class Square(chainer.FunctionNode):
    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 1)

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (inputs[0] ** 2,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (2 * x * grad_outputs[0],)


class ExpOut(chainer.FunctionNode):
    """Uses its retained output in backward."""

    def forward(self, inputs):
        self.retain_outputs((0,))
        return (numpy.exp(inputs[0]),)

    def backward(self, indexes, grad_outputs):
        (y,) = self.get_retained_outputs()
        return (y * grad_outputs[0],)


def _x(*values):
    return Variable(numpy.array(values, numpy.float32))


def test_apply_builds_graph():
    x = _x(1.0, 2.0)
    f = Square()
    (y,) = f.apply((x,))
    assert y.creator_node is f
    assert f.inputs == (x.node,)
    assert f.outputs[0]() is y.node
    assert f.rank == 0
    assert y.rank == 1
    assert x.node.data is x.array  # retained
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [2.0, 4.0])


class _Scale(chainer.FunctionNode):
    """x * c for a constant array c; retains c."""

    def forward(self, inputs):
        self.retain_inputs((1,))
        return (inputs[0] * inputs[1],)

    def backward(self, indexes, grad_outputs):
        c = self.inputs[1].get_variable()
        return grad_outputs[0] * c, None


def test_plain_array_input_gets_a_node_without_variable():
    x = _x(1.0, 2.0)
    c = numpy.array([3.0, 4.0], numpy.float32)
    f = _Scale()
    (y,) = f.apply((x, c))
    node = f.inputs[1]
    assert node.get_variable_or_none() is None
    assert not node.requires_grad
    assert node.creator_node is None
    assert node.shape == (2,)
    assert node.dtype == numpy.float32
    assert node.data is c  # retained
    var = node.get_variable()
    assert var.array is c
    assert var.node is node
    assert not var.requires_grad
    assert y.rank == 1
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [3.0, 4.0])


def test_apply_accepts_arrays():
    # As in Chainer, with backprop enabled the node is the creator even when
    # no input is a Variable; the output requires no gradient.
    f = Square()
    (y,) = f.apply((numpy.ones(2, numpy.float32),))
    assert isinstance(y, Variable)
    assert y.creator is f
    assert not y.requires_grad
    assert f.inputs[0].data is not None  # retained for backward
    with chainer.no_backprop_mode():
        (y,) = Square().apply((numpy.ones(2, numpy.float32),))
    assert y.creator is None


def test_graph_of_constants_joins_a_graph_needing_gradients():
    c = Square().apply((numpy.full(2, 3.0, numpy.float32),))[0]
    x = _x(1.0, 2.0)
    y = x * c
    assert y.rank == 2
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [9.0, 9.0])
    assert c.grad is None


class _Constant(chainer.FunctionNode):
    def forward(self, inputs):
        assert inputs == ()
        return (numpy.arange(3, dtype=numpy.float32),)


def test_apply_without_inputs():
    f = _Constant()
    (y,) = f.apply(())
    numpy.testing.assert_array_equal(y.array, [0.0, 1.0, 2.0])
    assert y.creator is f
    assert f.inputs == ()
    assert y.rank == 1
    assert not y.requires_grad


def test_apply_without_inputs_with_kernel_overrides(monkeypatch):
    # With any override registered, apply looks one up by the backend of the
    # first input: there is none here.
    monkeypatch.setitem(
        function_node._kernel_overrides, (Square, "numpy"), lambda node, xs: xs
    )
    (y,) = _Constant().apply(())
    numpy.testing.assert_array_equal(y.array, [0.0, 1.0, 2.0])


def test_zero_dim_numpy_scalar_output_becomes_array():
    class Sum(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0].sum(),)

    (y,) = Sum().apply((_x(1.0, 2.0),))
    assert isinstance(y.array, numpy.ndarray)
    assert y.shape == ()


def test_retained_output_after_output_dropped():
    x = _x(0.5)
    (y,) = ExpOut().apply((x,))
    z = y * 3
    del y
    gc.collect()
    z.backward()
    numpy.testing.assert_allclose(x.grad, [3 * numpy.exp(0.5)], rtol=1e-6)


def test_retained_output_double_backprop():
    x = Variable(numpy.array([0.3]))
    (y,) = ExpOut().apply((x,))
    (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
    (ggx,) = chainer.grad([gx], [x])
    numpy.testing.assert_allclose(ggx.array, numpy.exp([0.3]))


def test_type_check_error_message():
    with pytest.raises(type_check.InvalidType) as info:
        Square().apply((Variable(numpy.array([1, 2], numpy.int32)),))
    msg = str(info.value)
    assert "Square" in msg
    assert "Expect:" in msg
    assert "Actual:" in msg
    assert "dtype.kind == 'f'" in msg or "dtype.kind == f" in msg


def test_type_check_can_be_disabled():
    with chainer.using_config("type_check", False):
        (y,) = Square().apply((Variable(numpy.array([3], numpy.int32)),))
    assert y.array[0] == 9


def test_forward_must_return_tuple():
    class Bad(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0]

    with pytest.raises(TypeError, match="tuple"):
        Bad().apply((_x(1.0),))


class ScaledSum(chainer.FunctionNode):
    """x * (g or 1): a gradient function whose g input may be None."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, g = inputs
        return (x if g is None else x * g,)

    def backward(self, indexes, grad_outputs):
        _x_var, g = self.get_retained_inputs()
        (gy,) = grad_outputs
        return (gy if g is None else gy * g, None)


def test_none_input_reaches_forward_as_none():
    # As in Chainer: a None input (an absent gradient passed on to a gradient
    # function) gets a node without data; the retained input reads None.
    x = _x(1.0, 2.0)
    (y,) = ScaledSum().apply((x, None))
    numpy.testing.assert_array_equal(y.array, [1.0, 2.0])
    assert y.creator.inputs[1].data is None
    assert y.creator.get_retained_inputs()[1] is None
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 1.0])


def test_forward_cpu_dispatch_and_missing():
    class CpuOnly(chainer.FunctionNode):
        def forward_cpu(self, inputs):
            return (inputs[0] + 1,)

    (y,) = CpuOnly().apply((_x(1.0),))
    assert y.array[0] == 2

    class NoForward(chainer.FunctionNode):
        pass

    with pytest.raises(TypeError, match="does not implement forward"):
        NoForward().apply((_x(1.0),))


def test_wrong_number_of_gradients():
    class Bad(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] + inputs[1],)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0],) * 3

    a, b = _x(1.0), _x(2.0)
    (y,) = Bad().apply((a, b))
    with pytest.raises(ValueError, match="number of gradients"):
        y.backward()


@pytest.mark.parametrize("n_inputs", [1, 2, 3])
@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        (numpy.ones(3, numpy.float32), ValueError, "shape of data and grad mismatch"),
        (numpy.ones(2, numpy.float64), TypeError, "dtype of data and grad mismatch"),
        ([1.0, 1.0], TypeError, "must return Variables or arrays"),
    ],
)
def test_bad_gradient_is_named(n_inputs, bad, error, match):
    # Every input count goes through the engine's checks (one input and
    # several inputs take different paths); raw arrays are accepted.
    class Bad(chainer.FunctionNode):
        def forward(self, inputs):
            return (sum(inputs),)

        def backward(self, indexes, grad_outputs):
            return (bad,) + (grad_outputs[0],) * (len(indexes) - 1)

    xs = [_x(1.0, 2.0) for _ in range(n_inputs)]
    (y,) = Bad().apply(xs)
    y.grad = numpy.ones(2, numpy.float32)
    with pytest.raises(error, match=match):
        y.backward()


def test_raw_array_gradients_for_several_inputs():
    class Two(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] + inputs[1],)

        def backward(self, indexes, grad_outputs):
            g = grad_outputs[0].array
            return g * 2, g * 3

    a, b = _x(1.0, 2.0), _x(3.0, 4.0)
    (y,) = Two().apply((a, b))
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [2.0, 2.0])
    numpy.testing.assert_array_equal(b.grad, [3.0, 3.0])


def test_backward_returning_all_inputs_is_filtered():
    class Two(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * inputs[1],)

        def backward(self, indexes, grad_outputs):
            # Returns a gradient for every input even when one is not needed.
            return (grad_outputs[0] * 2, grad_outputs[0] * 3)

    a = _x(1.0)
    b = Variable(numpy.array([1.0], numpy.float32), requires_grad=False)
    (y,) = Two().apply((a, b))
    y.backward()
    numpy.testing.assert_allclose(a.grad, [2.0])


def test_backward_accumulate_override_used():
    class Acc(chainer.FunctionNode):
        calls = 0

        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
            Acc.calls += 1
            (gx,) = grad_inputs
            g = grad_outputs[0] * 2
            return (g if gx is None else g + gx,)

    x = _x(1.0)
    x.grad = numpy.array([10.0], numpy.float32)
    (y,) = Acc().apply((x,))
    y.backward()
    assert Acc.calls == 1
    numpy.testing.assert_allclose(x.grad, [12.0])


class RecordingHook(chainer.FunctionHook):
    name = "recording"

    def __init__(self):
        self.events = []

    def forward_preprocess(self, function, in_data):
        self.events.append(("fpre", function.label))

    def forward_postprocess(self, function, in_data):
        self.events.append(("fpost", function.label))

    def backward_preprocess(self, function, in_data, out_grad):
        self.events.append(("bpre", function.label))

    def backward_postprocess(self, function, in_data, out_grad):
        self.events.append(("bpost", function.label))


def test_global_hook():
    hook = RecordingHook()
    x = _x(1.0)
    with hook:
        assert chainer.get_function_hooks()["recording"] is hook
        (y,) = Square().apply((x,))
        y.backward()
    assert "recording" not in chainer.get_function_hooks()
    assert hook.events[:2] == [("fpre", "Square"), ("fpost", "Square")]
    assert ("bpre", "Square") in hook.events
    assert ("bpost", "Square") in hook.events


def test_local_hook():
    hook = RecordingHook()
    f = Square()
    f.add_hook(hook)
    with pytest.raises(KeyError):
        f.add_hook(hook)
    with pytest.raises(TypeError):
        f.add_hook(object())
    f.apply((_x(1.0),))
    assert hook.events == [("fpre", "Square"), ("fpost", "Square")]
    f.delete_hook("recording")
    with pytest.raises(KeyError):
        f.delete_hook("recording")


def test_unchain():
    x = _x(1.0)
    f = Square()
    (y,) = f.apply((x,))
    f.unchain()
    assert y.creator is None
    assert f.inputs is None


def test_kernel_override_dict():
    calls = []

    def kernel(node, inputs):
        calls.append(node)
        return (inputs[0] * 0 + 42,)

    from chainer import plugins

    class _Plugin:
        @plugins.hookimpl
        def register_kernels(self):
            return {(Square, "numpy"): kernel}

    name = plugins.register(_Plugin(), name="test-square-kernel")
    try:
        (y,) = Square().apply((_x(1.0),))
    finally:
        plugins.unregister(name)
    assert y.array[0] == 42
    assert len(calls) == 1
    (y,) = Square().apply((_x(2.0),))
    assert y.array[0] == 4


def test_graph_does_not_keep_function_alive_after_outputs_dropped():
    x = _x(1.0)
    f = Square()
    ref = weakref.ref(f)
    (y,) = f.apply((x,))
    del f, y
    gc.collect()
    assert ref() is None


def test_output_data_requires_retain():
    f = Square()
    f.apply((_x(1.0),))
    with pytest.raises(RuntimeError, match="retain_outputs"):
        _ = f.output_data
    g = ExpOut()
    (_y,) = g.apply((_x(0.0),))
    numpy.testing.assert_allclose(g.output_data[0], [1.0])


class _ScaleByLeaf(function_node.FunctionNode):
    """``y = x * w`` (w a scalar leaf) that defers w's gradient to the pass's end."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, w = inputs
        return (x * w,)

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        x, w = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret = []
        for index, g_input in zip(target_input_indexes, grad_inputs, strict=True):
            if index == 0:
                gx = gy * w
                ret.append(gx if g_input is None else gx + g_input)
            elif g_input is not None and self.defer_input_grad(
                1, _sum_payloads, (gy.array, x.array)
            ):
                ret.append(g_input)
            else:
                gw = primitive_ops.sum(gy * x)
                ret.append(gw if g_input is None else gw + g_input)
        return tuple(ret)

    def backward(self, indexes, grad_outputs):  # pragma: no cover - unused
        raise AssertionError("backward_accumulate computes the gradients")


_REDUCED = []


def _sum_payloads(payloads):
    _REDUCED.append(len(payloads))
    return sum(float((gy * x).sum()) for gy, x in payloads) * numpy.ones(
        (), numpy.float64
    )


def _three_steps():
    x = numpy.arange(1.0, 4.0)
    w = Variable(numpy.array(2.0))
    h = Variable(x)
    for _ in range(3):
        (h,) = _ScaleByLeaf().apply((h, w))
    return x, w, h


def test_defer_input_grad_reduces_the_deferred_contributions_once():
    _REDUCED.clear()
    x, w, h = _three_steps()
    primitive_ops.sum(h).backward()
    # d/dw sum(x * w**3) = 3 w**2 sum(x); the first contribution is computed,
    # the other two are deferred and reduced together at the end.
    numpy.testing.assert_allclose(w.grad, 3 * 4.0 * x.sum())
    assert _REDUCED == [2]


def test_defer_input_grad_is_refused_outside_a_plain_backward_pass():
    _REDUCED.clear()
    x, w, h = _three_steps()
    (gw,) = chainer.grad([primitive_ops.sum(h)], [w])
    numpy.testing.assert_allclose(gw.array, 3 * 4.0 * x.sum())
    assert _REDUCED == []
