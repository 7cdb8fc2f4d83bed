"""The seeds' core examples, run as written: Variables, derivatives, functions.

Each test replays one snippet of the seed documents (/work/shared/seeds) and
checks the output the documentation prints or describes. References read
``000:258`` = line 258 of the seed file starting with ``000_``. Seeds 000 and
001 lost their minus signs; the snippets here have them restored. Uses of
``chainer.functions`` (not part of chainer-core) are replaced by Variable
operators where that keeps the point of the snippet.
"""

import math

import numpy as np
import pytest

import chainer
from chainer import backend


def _squash(text):
    # The seeds lost the column alignment of printed arrays.
    return " ".join(text.split())


# ---------------------------------------------------------------------------
# Variables and derivatives
# ---------------------------------------------------------------------------


def test_forward_and_backward_of_one_element_variable():
    # 000:254-284, 001:178-197, 004:31-52: y = x^2 - 2x + 1 at x = 5.
    x_data = np.array([5], dtype=np.float32)
    x = chainer.Variable(x_data)
    y = x**2 - 2 * x + 1
    np.testing.assert_array_equal(y.array, np.array([16.0], dtype=np.float32))
    assert y.array.dtype == np.float32
    y.backward()
    np.testing.assert_array_equal(x.grad, np.array([8.0], dtype=np.float32))
    assert x.grad.dtype == np.float32


def test_array_and_data_refer_to_the_same_object():
    # 000:265-271: "both refer to exactly the same object".
    x = chainer.Variable(np.array([5], dtype=np.float32))
    y = x**2 - 2 * x + 1
    assert y.data is y.array


def test_retain_grad_keeps_intermediate_gradient():
    # 000:288-296, 001:199-207, 004:55-63.
    x = chainer.Variable(np.array([5], dtype=np.float32))
    z = 2 * x
    y = x**2 - z + 1
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(z.grad, np.array([-1.0], dtype=np.float32))


def test_intermediate_gradient_is_released_by_default():
    # 000:285: "Chainer, by default, releases the gradient arrays of
    # intermediate variables".
    x = chainer.Variable(np.array([5], dtype=np.float32))
    z = 2 * x
    y = x**2 - z + 1
    y.backward()
    assert z.grad is None
    np.testing.assert_array_equal(x.grad, np.array([8.0], dtype=np.float32))


def test_multi_element_backward_from_manual_initial_error():
    # 000:297-306, 001:208-220, 004:64-73.
    x = chainer.Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**2 - 2 * x + 1
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward()
    expected = np.array([[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]], dtype=np.float32)
    np.testing.assert_array_equal(x.grad, expected)
    assert x.grad.dtype == np.float32


def test_multi_element_backward_without_initial_error_does_nothing():
    # 000:297-299: a multi-element start "must set the initial error manually";
    # without it, as in Chainer, backward has nothing to propagate.
    x = chainer.Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**2 - 2 * x + 1
    y.backward()
    assert x.grad is None


def test_higher_order_derivative_through_grad_var():
    # 000:314-345: enable_double_backprop, then backprop from x.grad_var.
    x = chainer.Variable(np.array([[0, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**3
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward(enable_double_backprop=True)
    assert _squash(repr(x.grad_var)) == (
        "variable([[ 0., 12., 27.], [ 48., 75., 108.]])"
    )
    assert x.grad_var.array is x.grad
    assert (x.grad == (3 * x**2).array).all()

    gx = x.grad_var
    x.cleargrad()
    gx.grad = np.ones((2, 3), dtype=np.float32)
    gx.backward()
    expected = np.array([[0.0, 12.0, 18.0], [24.0, 30.0, 36.0]], dtype=np.float32)
    np.testing.assert_array_equal(x.grad, expected)
    assert (x.grad == (6 * x).array).all()


def test_chainer_grad_between_any_variables():
    # 000:310-312: chainer.grad() computes gradients of any variables w.r.t.
    # any other variables of the graph, without touching .grad.
    x = chainer.Variable(np.array([1.0, 2.0], dtype=np.float32))
    h = 2 * x
    y = h**2
    (gh,) = chainer.grad([y], [h], grad_outputs=[np.ones(2, dtype=np.float32)])
    np.testing.assert_array_equal(gh.array, np.array([4.0, 8.0], dtype=np.float32))
    (gx,) = chainer.grad(
        [y],
        [x],
        grad_outputs=[np.ones(2, dtype=np.float32)],
        enable_double_backprop=True,
    )
    np.testing.assert_array_equal(gx.array, np.array([8.0, 16.0], dtype=np.float32))
    assert x.grad is None
    (ggx,) = chainer.grad([gx], [x], grad_outputs=[np.ones(2, dtype=np.float32)])
    np.testing.assert_array_equal(ggx.array, np.array([8.0, 8.0], dtype=np.float32))


def test_chainer_grad_rejects_non_variable_inputs():
    # Bad input for chainer.grad (000:310-312): inputs must be Variables.
    x = chainer.Variable(np.array([1.0, 2.0], dtype=np.float32))
    y = x * 2
    with pytest.raises(TypeError):
        chainer.grad([y], [x.array])


def test_blog_variable_records_its_creator():
    # 002:82-101: y = x ** 2 - x + 1 remembers the additive op as creator.
    x = chainer.Variable(np.asarray([[0, 2], [1, -3]]).astype(np.float32))
    np.testing.assert_array_equal(x.data, [[0.0, 2.0], [1.0, -3.0]])
    y = x**2 - x + 1
    np.testing.assert_array_equal(y.data, [[1.0, 3.0], [1.0, 13.0]])
    assert type(y.creator).__name__ == "AddConstant"
    assert isinstance(y.creator, chainer.FunctionNode)
    assert x.creator is None


def test_slides_rnn_loop_over_variable_length_sequences():
    # 003:271-295: a Python for loop builds the graph; loss starts at 0.
    w = chainer.Parameter(np.array([0.5], dtype=np.float32))
    xs = [np.array([1.0], dtype=np.float32) * i for i in range(1, 4)]
    ys = [np.array([2.0], dtype=np.float32) * i for i in range(1, 4)]
    loss = 0
    h = 0
    for x, y in zip(xs, ys, strict=True):
        x_var = chainer.Variable(x)
        y_var = chainer.Variable(y)
        h = w * x_var + h
        loss += (h - y_var) ** 2
    assert isinstance(loss, chainer.Variable)
    loss.backward()
    # h_t = w * (1 + ... + t); d loss / dw = sum_t 2 (h_t - y_t) * S_t.
    s = np.cumsum([1.0, 2.0, 3.0])
    expected = sum(2 * (0.5 * s_t - 2.0 * t) * s_t for t, s_t in enumerate(s, 1))
    np.testing.assert_allclose(w.grad, [expected], rtol=1e-6)


def test_variable_length_is_the_first_axis():
    # 001:3157 (len(x.data) as batch size) and inventory: len(v) = shape[0].
    x = chainer.Variable(np.zeros((3, 4), dtype=np.float32))
    assert len(x) == 3


def test_addgrad_copydata_and_deprecated_zerograd():
    # 001:1713-1745 (addgrad: self.grad += var.grad; copydata copies data)
    # and 001:1758-1762 (zerograd, deprecated since v1.15).
    a = chainer.Variable(np.ones(3, dtype=np.float32))
    b = chainer.Variable(np.full(3, 2.0, dtype=np.float32))
    a.grad = np.ones(3, dtype=np.float32)
    b.grad = np.full(3, 5.0, dtype=np.float32)
    a.addgrad(b)
    np.testing.assert_array_equal(a.grad, np.full(3, 6.0, dtype=np.float32))
    a.copydata(b)
    np.testing.assert_array_equal(a.array, b.array)
    assert a.array is not b.array
    with pytest.warns(DeprecationWarning):
        a.zerograd()
    np.testing.assert_array_equal(a.grad, np.zeros(3, dtype=np.float32))
    a.cleargrad()
    assert a.grad is None


def test_volatile_flag_of_v1_is_gone():
    # 001:660-704 (volatile='on') was replaced by no_backprop_mode (000:3722).
    with pytest.raises(ValueError, match="volatile"):
        chainer.Variable(np.zeros(1, dtype=np.float32), volatile="on")


# ---------------------------------------------------------------------------
# New-style functions (FunctionNode)
# ---------------------------------------------------------------------------


class MulAdd(chainer.FunctionNode):
    # 000:496-520: forward_cpu with retain_inputs, backward on Variables.

    def forward_cpu(self, inputs):
        x, y, z = inputs
        self.retain_inputs((0, 1))
        w = x * y + z
        return (w,)

    def backward(self, target_input_indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        (gw,) = grad_outputs
        gx = y * gw
        gy = x * gw
        gz = gw
        return gx, gy, gz


def muladd(x, y, z):
    # 000:595-598 (returns the tuple as in the seed; unpacked by callers).
    return MulAdd().apply((x, y, z))


def _uniform_variables(n, shape=(3, 2)):
    return [
        chainer.Variable(np.random.uniform(-1, 1, shape).astype(np.float32))
        for _ in range(n)
    ]


def test_new_style_muladd_apply_returns_a_tuple():
    # 000:591-594: w, = MulAdd().apply((x, y, z)).
    x, y, z = _uniform_variables(3)
    result = MulAdd().apply((x, y, z))
    assert isinstance(result, tuple)
    assert len(result) == 1
    (w,) = result
    np.testing.assert_allclose(w.array, x.array * y.array + z.array)
    assert isinstance(w.creator, MulAdd)


def test_new_style_muladd_backward_and_wrapper():
    # 000:595-598 wrapper; gradients are the product rule of 000:525-527.
    x, y, z = _uniform_variables(3)
    (w,) = muladd(x, y, z)
    w.grad = np.ones((3, 2), dtype=np.float32)
    w.backward()
    np.testing.assert_allclose(x.grad, y.array)
    np.testing.assert_allclose(y.grad, x.array)
    np.testing.assert_allclose(z.grad, np.ones((3, 2), dtype=np.float32))


def test_new_style_muladd_supports_double_backprop():
    # 000:448: new-style backward built from Variables gives second order.
    x, y, z = _uniform_variables(3, shape=(4,))
    (w,) = MulAdd().apply((x, y, z))
    (gx,) = chainer.grad(
        [w],
        [x],
        grad_outputs=[np.ones(4, dtype=np.float32)],
        enable_double_backprop=True,
    )
    (ggy,) = chainer.grad([gx], [y], grad_outputs=[np.ones(4, dtype=np.float32)])
    np.testing.assert_array_equal(ggy.array, np.ones(4, dtype=np.float32))


class ExpAdd(chainer.FunctionNode):
    # 000:640-660, unified with get_array_module. F.exp(x) in backward is
    # written math.e ** x, which is the same differentiable function.

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(*inputs)
        x, y = inputs
        z = xp.exp(x) + xp.exp(y)
        return (z,)

    def backward(self, target_input_indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        (gz,) = grad_outputs
        gx = gz * math.e**x
        gy = gz * math.e**y
        return gx, gy


def expadd(x, y):
    (z,) = ExpAdd().apply((x, y))
    return z


def test_new_style_expadd_with_get_array_module():
    # 000:640-660; 000:661-662: without CUDA get_array_module gives numpy.
    assert backend.get_array_module(np.zeros(1)) is np
    x, y = _uniform_variables(2)
    z = expadd(x, y)
    np.testing.assert_allclose(z.array, np.exp(x.array) + np.exp(y.array), rtol=1e-6)
    z.grad = np.ones((3, 2), dtype=np.float32)
    z.backward()
    np.testing.assert_allclose(x.grad, np.exp(x.array), rtol=1e-6)
    np.testing.assert_allclose(y.grad, np.exp(y.array), rtol=1e-6)


class MulAddWithGradNode(chainer.FunctionNode):
    # 000:684-724: the backward of MulAdd delegates to a MulAddGrad node.
    # The seed retains (0, 1) but then unpacks three retained inputs; all
    # three are retained here so that the snippet runs.

    def forward_cpu(self, inputs):
        self.retain_inputs((0, 1, 2))
        x, y, z = inputs
        w = x * y + z
        return (w,)

    def backward(self, target_input_indexes, grad_outputs):
        x, y, z = self.get_retained_inputs()
        (gw,) = grad_outputs
        return MulAddGrad().apply((x, y, z, gw))


class MulAddGrad(chainer.FunctionNode):
    def forward_cpu(self, inputs):
        x, y, _z, gw = inputs
        gx = y * gw
        gy = x * gw
        gz = gw
        return gx, gy, gz

    def backward(self, target_input_indexes, grad_outputs):
        # 000:720-722: may stay unimplemented unless higher order is needed.
        raise RuntimeError("MulAddGrad is not differentiable")


def test_grad_node_pattern_computes_first_order_gradients():
    # 000:684-724: MulAdd whose backward applies MulAddGrad.
    x, y, z = _uniform_variables(3)
    (w,) = MulAddWithGradNode().apply((x, y, z))
    w.grad = np.full((3, 2), 2.0, dtype=np.float32)
    w.backward()
    np.testing.assert_allclose(x.grad, 2 * y.array)
    np.testing.assert_allclose(y.grad, 2 * x.array)
    np.testing.assert_allclose(z.grad, np.full((3, 2), 2.0, dtype=np.float32))


class MyFunc(chainer.FunctionNode):
    # 000:984-1012 migration example, with y = x ** 2 as the computation.

    def forward(self, inputs):
        self.retain_inputs((0,))
        (x,) = inputs
        y = x * x
        return (y,)

    def backward(self, target_input_indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        (gx,) = MyFuncGrad().apply((x, gy))
        return (gx,)


class MyFuncGrad(chainer.FunctionNode):
    def forward(self, inputs):
        x, gy = inputs
        gx = 2 * x * gy
        return (gx,)


def test_migrated_new_style_function_matches_old_style():
    # 000:940-1012: Function -> FunctionNode keeps the results.
    class MyOldFunc(chainer.Function):
        def forward(self, inputs):
            (x,) = inputs
            return (x * x,)

        def backward(self, inputs, grad_outputs):
            (x,) = inputs
            (gy,) = grad_outputs
            return (2 * x * gy,)

    data = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    gy = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    x_old = chainer.Variable(data.copy())
    y_old = MyOldFunc()(x_old)
    y_old.grad = gy
    y_old.backward()
    x_new = chainer.Variable(data.copy())
    (y_new,) = MyFunc().apply((x_new,))
    y_new.grad = gy
    y_new.backward()
    np.testing.assert_allclose(y_new.array, y_old.array)
    np.testing.assert_allclose(x_new.grad, x_old.grad)


def test_function_node_is_not_callable_but_function_is():
    # 000:972-975: "Function is a callable, whereas FunctionNode is not".
    x = chainer.Variable(np.ones(2, dtype=np.float32))
    with pytest.raises(TypeError):
        MulAdd()(x, x, x)


def test_target_input_indexes_lists_only_inputs_needing_gradients():
    # 000:959-963: target_input_indexes holds the sorted indices of inputs
    # whose gradients are required; returning only those is allowed.
    seen = []

    class Mul(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0, 1))
            a, b = inputs
            return (a * b,)

        def backward(self, target_input_indexes, grad_outputs):
            seen.append(target_input_indexes)
            a, b = self.get_retained_inputs()
            (gy,) = grad_outputs
            grads = {0: gy * b, 1: gy * a}
            return tuple(grads[i] for i in target_input_indexes)

    x = chainer.Variable(np.array([2.0], dtype=np.float32))
    (y,) = Mul().apply((x, np.array([3.0], dtype=np.float32)))
    y.backward()
    np.testing.assert_array_equal(x.grad, [3.0])
    c = chainer.Variable(np.array([5.0], dtype=np.float32), requires_grad=False)
    x.cleargrad()
    (y,) = Mul().apply((c, x))
    y.backward()
    np.testing.assert_array_equal(x.grad, [5.0])
    assert c.grad is None
    assert seen == [(0,), (1,)]


def test_retained_outputs_of_new_and_old_style_functions():
    # 000:952-955 (get_retained_outputs in FunctionNode) and 001's
    # Function.retain_outputs/output_data: y = exp(x), gx = gy * y.
    class ExpNode(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_outputs((0,))
            return (np.exp(inputs[0]),)

        def backward(self, target_input_indexes, grad_outputs):
            (y,) = self.get_retained_outputs()
            assert isinstance(y, chainer.Variable)
            return (grad_outputs[0] * y,)

    class ExpFunction(chainer.Function):
        def forward(self, inputs):
            self.retain_inputs(())
            self.retain_outputs((0,))
            return (np.exp(inputs[0]),)

        def backward(self, inputs, grad_outputs):
            assert inputs == (None,)
            (y,) = self.output_data
            return (grad_outputs[0] * y,)

    data = np.array([0.0, 1.0], dtype=np.float32)
    x = chainer.Variable(data.copy())
    (y,) = ExpNode().apply((x,))
    y.grad = np.ones(2, dtype=np.float32)
    y.backward(enable_double_backprop=True)
    np.testing.assert_allclose(x.grad, np.exp(data), rtol=1e-6)
    gx = x.grad_var
    x.cleargrad()
    gx.grad = np.ones(2, dtype=np.float32)
    gx.backward()
    np.testing.assert_allclose(x.grad, np.exp(data), rtol=1e-6)

    x_old = chainer.Variable(data.copy())
    y_old = ExpFunction()(x_old)
    y_old.grad = np.ones(2, dtype=np.float32)
    y_old.backward()
    np.testing.assert_allclose(x_old.grad, np.exp(data), rtol=1e-6)


def test_function_node_inputs_are_not_retained_by_default():
    # 000:940-943: in FunctionNode "the input arrays are NOT retained by
    # default"; get_retained_inputs() is empty without retain_inputs().
    class Twice(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, target_input_indexes, grad_outputs):
            assert self.get_retained_inputs() == ()
            return (grad_outputs[0] * 2,)

    x = chainer.Variable(np.ones(3, dtype=np.float32))
    (y,) = Twice().apply((x,))
    y.grad = np.ones(3, dtype=np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.full(3, 2.0, dtype=np.float32))
