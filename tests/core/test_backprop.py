import numpy
import pytest

import chainer
from chainer import Variable
from chainer import primitive_ops


def _x(values, dtype=numpy.float32):
    return Variable(numpy.asarray(values, dtype=dtype))


def test_scalar_backward_initial_grad_one():
    x = _x([1.0, 2.0])
    y = primitive_ops.sum(x * x)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [2.0, 4.0])
    numpy.testing.assert_array_equal(y.grad, 1.0)


def test_empty_variable_gets_an_empty_initial_grad():
    # ChainerMN's delegate variables are empty: backward starts from them.
    x = _x([1.0, 2.0])
    y = x[:0] * 2
    y.backward()
    assert y.grad.shape == (0,)
    numpy.testing.assert_array_equal(x.grad, [0.0, 0.0])


def test_non_scalar_needs_grad():
    # As in Chainer: without a gradient, a variable of several elements has
    # nothing to propagate; backward does nothing (and does not raise).
    x = _x([1.0, 2.0])
    y = x * 2
    y.backward()
    assert x.grad is None
    assert y.grad is None
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [2.0, 2.0])


def test_leaf_grads_accumulate_until_cleared():
    x = _x([1.0])
    for _ in range(2):
        (x * 3).backward()
    numpy.testing.assert_allclose(x.grad, [6.0])
    x.cleargrad()
    (x * 3).backward()
    numpy.testing.assert_allclose(x.grad, [3.0])


def test_branching_graph_sums_paths():
    x = _x([2.0])
    h = x * x
    y = h + h * x  # x^2 + x^3 -> 2x + 3x^2
    y.backward()
    numpy.testing.assert_allclose(x.grad, [16.0])


def test_same_input_twice():
    x = _x([3.0])
    (x + x).backward()
    numpy.testing.assert_allclose(x.grad, [2.0])


def test_retain_grad():
    x = _x([1.0, 2.0])
    h = x * 2
    y = primitive_ops.sum(h)
    y.backward()
    assert h.grad is None
    x.cleargrad()
    h = x * 2
    y = primitive_ops.sum(h)
    y.backward(retain_grad=True)
    numpy.testing.assert_allclose(h.grad, [1.0, 1.0])


def test_requires_grad_false_gets_no_grad():
    x = _x([1.0])
    c = Variable(numpy.array([2.0], numpy.float32), requires_grad=False)
    (x * c).backward()
    assert c.grad is None
    numpy.testing.assert_allclose(x.grad, [2.0])


def test_double_backprop_through_grad_var():
    x = _x([1.5], numpy.float64)
    y = x**3
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    assert gx.creator is not None
    x.cleargrad()
    gx.backward()
    numpy.testing.assert_allclose(x.grad, [6 * 1.5])


def test_without_double_backprop_grad_has_no_graph():
    x = _x([1.5])
    (x**3).backward()
    assert x.grad_var.creator is None


def test_loss_scale():
    x = _x([1.0, 2.0])
    y = primitive_ops.sum(x * x)
    y.backward(loss_scale=8.0)
    numpy.testing.assert_allclose(x.grad, [16.0, 32.0])
    assert x._loss_scale == 8.0


def test_chainer_backward_multiple_outputs():
    x = _x([1.0, 2.0])
    y1 = primitive_ops.sum(x * 2)
    y2 = x * x
    y1.grad = numpy.array(1.0, numpy.float32)
    y2.grad = numpy.ones(2, numpy.float32)
    chainer.backward([y1, y2])
    numpy.testing.assert_allclose(x.grad, [4.0, 6.0])
    # The outputs' gradients are taken by the call.
    assert y1.grad is None
    assert y2.grad is None


def test_chainer_backward_sets_no_default_grad():
    # Chainer 7: a None entry of grad_outputs skips its output, even a
    # scalar one; without grad_outputs, outputs lacking a grad are skipped
    # with a RuntimeWarning.
    x = _x([1.0, 2.0])
    y1 = primitive_ops.sum(x * 2)
    y2 = x * x
    chainer.backward([y1, y2], [None, Variable(numpy.ones(2, numpy.float32))])
    numpy.testing.assert_allclose(x.grad, [2.0, 4.0])
    x.cleargrad()
    y2.grad = numpy.ones(2, numpy.float32)
    with pytest.warns(RuntimeWarning, match="does not set a default grad"):
        chainer.backward([y1, y2])
    numpy.testing.assert_allclose(x.grad, [2.0, 4.0])
    x.cleargrad()
    y1.grad = numpy.array(1.0, numpy.float32)
    with pytest.warns(RuntimeWarning, match="duplicate"):
        chainer.backward([y1, y1])
    numpy.testing.assert_allclose(x.grad, [2.0, 2.0])


def test_chainer_backward_outputs_of_different_depths():
    # The outputs' creators are taken by rank, deepest first, merged with the
    # nodes that become ready on the way: y1 must get y2's and y3's
    # contributions before its own creator runs.
    x = _x([1.0, 2.0])
    y1 = x * 2  # rank 1
    y2 = y1 * 3  # rank 2
    y3 = (y2 + y1) * 5  # rank 4
    z = x * x  # rank 1, independent
    ones = numpy.ones(2, numpy.float32)
    chainer.backward([z, y1, y3, y2], [_x(ones), _x(ones), _x(ones * 2), _x(ones)])
    # dz/dx = 2x; dy1/dx = 2; y2: 6; y3 = 5 * (6x + 2x) = 40x -> 40 * 2
    numpy.testing.assert_allclose(x.grad, 2 * x.array + 2 + 6 + 80)


def test_chainer_backward_many_losses():
    x = _x([[1.0, 2.0, 3.0]])
    losses = [primitive_ops.sum(x * float(i)) for i in range(50)]
    chainer.backward(losses, [numpy.array(1.0, numpy.float32)] * 50)
    numpy.testing.assert_allclose(x.grad, numpy.full((1, 3), sum(range(50))))


def test_chainer_backward_errors():
    x = _x([1.0])
    with pytest.raises(TypeError):
        chainer.backward(x * 2)
    with pytest.raises(ValueError, match="same length"):
        chainer.backward([x * 2], [None, None])


class TestGrad:
    def test_does_not_touch_grad(self):
        x = _x([1.0, 2.0])
        y = primitive_ops.sum(x * x)
        (gx,) = chainer.grad([y], [x])
        numpy.testing.assert_allclose(gx.array, [2.0, 4.0])
        assert x.grad is None

    def test_set_grad(self):
        x = _x([1.0, 2.0])
        (gx,) = chainer.grad([primitive_ops.sum(x * x)], [x], set_grad=True)
        assert x.grad_var is gx

    def test_intermediate_input(self):
        x = _x([1.0, 2.0])
        h = x * 3
        y = primitive_ops.sum(h * h)
        gh, gx = chainer.grad([y], [h, x])
        numpy.testing.assert_allclose(gh.array, 2 * h.array)
        numpy.testing.assert_allclose(gx.array, 18 * x.array)

    def test_grad_inputs_added(self):
        x = _x([1.0])
        (gx,) = chainer.grad(
            [x * 2],
            [x],
            grad_outputs=[numpy.ones(1, numpy.float32)],
            grad_inputs=[numpy.full(1, 5, numpy.float32)],
        )
        numpy.testing.assert_allclose(gx.array, [7.0])

    def test_missing_grad_outputs_are_ones_of_any_size(self):
        # Unlike Variable.backward, chainer.grad seeds every output without
        # an initial gradient with ones, whatever its size.
        x = _x([1.0, 2.0])
        y = x * x
        z = x * 3
        z.grad = numpy.full(2, 7.0, numpy.float32)  # not used by grad
        (gx,) = chainer.grad([y, z], [x])
        numpy.testing.assert_allclose(gx.array, [5.0, 7.0])
        (gx,) = chainer.grad([y, z], [x], grad_outputs=[None, z.grad_var])
        numpy.testing.assert_allclose(gx.array, [23.0, 25.0])
        (gx,) = chainer.grad([y], [x], loss_scale=2.0)
        numpy.testing.assert_allclose(gx.array, [4.0, 8.0])

    def test_unreachable_is_none(self):
        x = _x([1.0])
        z = _x([1.0])
        _, gz = chainer.grad([x * 2], [x, z])
        assert gz is None

    def test_higher_order(self):
        x = _x([0.5, -1.0], numpy.float64)
        y = primitive_ops.sum(x**4)
        (g1,) = chainer.grad([y], [x], enable_double_backprop=True)
        (g2,) = chainer.grad([primitive_ops.sum(g1)], [x], enable_double_backprop=True)
        (g3,) = chainer.grad([primitive_ops.sum(g2)], [x])
        numpy.testing.assert_allclose(g3.array, 24 * x.array)

    def test_bad_arguments(self):
        x = _x([1.0, 2.0])
        with pytest.raises(TypeError, match="outputs"):
            chainer.grad(x, [x])
        with pytest.raises(ValueError, match="same length"):
            chainer.grad([x * 2], [x], grad_outputs=[None, None])


class _WrongShapeGrad(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, indexes, grad_outputs):
        return (Variable(numpy.ones(5, numpy.float32)),)


def test_wrong_gradient_shape_names_function():
    x = _x([1.0, 2.0])
    (y,) = _WrongShapeGrad().apply((x,))
    y.grad = numpy.ones(2, numpy.float32)
    with pytest.raises(ValueError, match="_WrongShapeGrad"):
        y.backward()


class _NaNForward(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * numpy.float32("nan"),)


class _NaNBackward(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0].copy(),)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * numpy.float32("nan"),)


def test_debug_mode_detects_nan_in_forward():
    x = _x([1.0])
    with (
        chainer.using_config("debug", True),
        pytest.raises(RuntimeError, match="NaN is detected on forward.*_NaNForward"),
    ):
        _NaNForward().apply((x,))
    # Outside debug mode NaN passes silently, as in Chainer.
    _NaNForward().apply((x,))


def test_debug_mode_detects_nan_in_backward():
    x = _x([1.0])
    with chainer.DebugMode(True):
        (y,) = _NaNBackward().apply((x,))
        with pytest.raises(RuntimeError, match="NaN is detected"):
            y.backward()


def test_backward_error_has_call_site_in_debug_mode():
    x = _x([1.0, 2.0])
    with chainer.DebugMode(True):
        (y,) = _WrongShapeGrad().apply((x,))
        y.grad = numpy.ones(2, numpy.float32)
        with pytest.raises(ValueError) as info:
            y.backward()
    assert any("was called at" in n for n in getattr(info.value, "__notes__", []))


class _AddIntoLeaf(chainer.FunctionNode):
    """y = x; its backward_accumulate adds into the gradient array it is given."""

    returned = []

    def forward(self, inputs):
        return (inputs[0].copy(),)

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        (gy,) = grad_outputs
        (old,) = grad_inputs
        if old is None:
            old = Variable(gy.array.copy())
        else:
            old.array += gy.array
        _AddIntoLeaf.returned.append(old.array)
        return (old,)


def test_in_place_accumulation_into_a_leaf_keeps_its_array():
    x = _x([1.0, 2.0])
    (a,) = _AddIntoLeaf().apply((x,))
    (b,) = _AddIntoLeaf().apply((x,))
    chainer.backward([a, b], [_x([1.0, 1.0]), _x([2.0, 3.0])])
    first = x.grad
    numpy.testing.assert_array_equal(first, [3.0, 4.0])
    # The second delivery of the same pass added into the first one's array.
    assert first is _AddIntoLeaf.returned[-1]
    (c,) = _AddIntoLeaf().apply((x,))
    chainer.backward([c], [_x([1.0, 1.0])])
    # Added into the same array (no copy per accumulation), and right.
    assert x.grad is first
    numpy.testing.assert_array_equal(x.grad, [4.0, 5.0])


def test_leaf_gradients_never_share_arrays():
    x = _x([1.0, 2.0])
    y = _x([3.0, 4.0])
    chainer.backward([x + y], [_x([1.0, 1.0])])
    assert x.grad is not y.grad
    x.grad[0] = 10.0
    numpy.testing.assert_array_equal(y.grad, [1.0, 1.0])


class _PassThrough(chainer.FunctionNode):
    """y = x; backward hands the output gradient itself to the input."""

    def forward(self, inputs):
        return (inputs[0].copy(),)

    def backward(self, target_input_indexes, grad_outputs):
        return grad_outputs


def test_repeated_leaf_gradients_sum_without_touching_given_arrays():
    x = _x([1.0, 2.0])
    outs = [_PassThrough().apply((x,))[0] for _ in range(4)]
    given = [_x([1.0, 2.0]), _x([10.0, 20.0]), _x([100.0, 200.0]), _x([0.5, 0.5])]
    before = [g.array.copy() for g in given]
    chainer.backward(outs, given)
    numpy.testing.assert_array_equal(x.grad, [111.5, 222.5])
    for g, b in zip(given, before, strict=True):
        numpy.testing.assert_array_equal(g.array, b)
        assert x.grad is not g.array


def test_repeated_leaf_gradients_keep_the_graph_in_double_backprop():
    x = _x([1.0, 2.0])
    y = x * x + x * x + x * x
    (gx,) = chainer.grad([primitive_ops.sum(y)], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(gx.array, [6.0, 12.0])
    primitive_ops.sum(gx).backward()
    numpy.testing.assert_allclose(x.grad, [6.0, 6.0])


def test_repeated_gradients_of_a_0d_leaf_stay_an_array():
    x = _x(2.0)
    (x * x + x * x + x * x).backward()
    assert type(x.grad) is numpy.ndarray
    assert x.grad.shape == ()
    assert float(x.grad) == 12.0
