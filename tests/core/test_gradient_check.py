import numpy
import pytest

import chainer
from chainer import function_node
from chainer import gradient_check


class _Square(function_node.FunctionNode):
    """y = x ** 2 with a configurable backward."""

    def __init__(self, mode="ok"):
        self.mode = mode

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        return (x * x,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        if self.mode == "scaled":
            return (2.5 * x * gy,)
        if self.mode == "none":
            return (None,)
        if self.mode == "one_element":
            mask = numpy.ones(x.shape, x.dtype)
            mask.flat[0] = 1.5
            return (2 * x * gy * mask,)
        if self.mode == "constant":
            # Right value, but cut from the graph: double backprop sees a
            # constant and misses the dependence on x and gy.
            return (chainer.Variable(2 * x.array * gy.array),)
        if self.mode == "bad_grad":
            (gx,) = _BadGrad().apply((x, gy))
            return (gx,)
        return (2 * x * gy,)


class _BadGrad(function_node.FunctionNode):
    """Computes 2 * x * gy but differentiates it wrongly."""

    def forward(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        return (2 * x * gy,)

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        (ggx,) = grad_outputs
        return (2 * gy * ggx, -x * ggx)


def square(x, mode="ok"):
    (y,) = _Square(mode).apply((x,))
    return y


class _MulAdd(function_node.FunctionNode):
    """Two inputs, two outputs: (x * w, x + w); optionally a wrong gw."""

    def __init__(self, wrong_w=False):
        self.wrong_w = wrong_w

    def forward(self, inputs):
        x, w = inputs
        self.retain_inputs((0, 1))
        return (x * w, x + w)

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        g1, g2 = grad_outputs
        if g1 is None:
            g1 = chainer.Variable(numpy.zeros_like(x.array))
        if g2 is None:
            g2 = chainer.Variable(numpy.zeros_like(x.array))
        gx = g1 * w + g2
        # The wrong variant errs only on the path through the first output.
        gw = g1 * x * (2.0 if self.wrong_w else 1.0) + g2
        return (gx, gw)


def _data(*shape, dtype=numpy.float64):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def _large(*shape):
    # Values bounded away from 0 keep a wrong gradient's error far above the
    # tolerances along (almost) every random direction.
    return numpy.random.uniform(1, 2, shape)


# -- numerical_grad ---------------------------------------------------------


def test_numerical_grad_square():
    x = _data(3, 4)
    gy = _data(3, 4)
    x_orig = x.copy()
    (gx,) = gradient_check.numerical_grad(lambda: (x * x,), (x,), (gy,))
    numpy.testing.assert_allclose(gx, 2 * x * gy, atol=1e-6)
    numpy.testing.assert_array_equal(x, x_orig)
    assert gx.dtype == x.dtype


def test_numerical_grad_multiple_inputs_outputs():
    a = _data(3)
    b = _data(3)
    g1 = _data(3)
    g2 = _data(3)
    ga, gb = gradient_check.numerical_grad(lambda: (a * b, a + b), (a, b), (g1, g2))
    numpy.testing.assert_allclose(ga, g1 * b + g2, atol=1e-6)
    numpy.testing.assert_allclose(gb, g1 * a + g2, atol=1e-6)


def test_numerical_grad_scalar_and_none_grad_outputs():
    a = _data(2)
    (ga,) = gradient_check.numerical_grad(lambda: (a * 3, a * a), (a,), (2.0, None))
    numpy.testing.assert_allclose(ga, numpy.full(2, 6.0), atol=1e-6)


def test_numerical_grad_accepts_variables_from_f():
    a = _data(2)
    (ga,) = gradient_check.numerical_grad(
        lambda: (chainer.Variable(a * a),), (a,), (numpy.ones(2),)
    )
    numpy.testing.assert_allclose(ga, 2 * a, atol=1e-6)


def test_numerical_grad_float32():
    x = _data(5, dtype=numpy.float32)
    gy = numpy.ones(5, numpy.float32)
    (gx,) = gradient_check.numerical_grad(lambda: (x * x,), (x,), (gy,), eps=1e-2)
    assert gx.dtype == numpy.float32
    numpy.testing.assert_allclose(gx, 2 * x, atol=1e-3)


def test_numerical_grad_higher_order_with_detection():
    # Away from 0, where x ** 3 is not locally quadratic at scale eps.
    x = numpy.random.uniform(0.5, 1, 4)
    gy = numpy.ones(4)
    (gx,) = gradient_check.numerical_grad(
        lambda: (x**3,), (x,), (gy,), eps=1e-2, detect_nondifferentiable=True
    )
    # The five-point stencil is exact for cubics.
    numpy.testing.assert_allclose(gx, 3 * x**2, atol=1e-9)


def test_numerical_grad_detects_kink():
    x = numpy.array([0.0, 0.5])
    with pytest.raises(gradient_check.NondifferentiableError, match="non-diff"):
        gradient_check.numerical_grad(
            lambda: (numpy.abs(x),),
            (x,),
            (numpy.ones(2),),
            detect_nondifferentiable=True,
        )


def test_numerical_grad_detects_change_of_finiteness():
    x = numpy.array([0.0])

    def f():
        return (numpy.where(x > 0, 1.0, numpy.inf),)

    with pytest.raises(gradient_check.NondifferentiableError, match="Finiteness"):
        gradient_check.numerical_grad(
            f, (x,), (numpy.ones(1),), detect_nondifferentiable=True
        )


def test_numerical_grad_consistent_nonfinite_is_not_a_kink():
    x = numpy.array([-1.0])

    def f():
        with numpy.errstate(invalid="ignore"):
            return (numpy.log(x),)

    gradient_check.numerical_grad(
        f, (x,), (numpy.ones(1),), detect_nondifferentiable=True
    )


def test_numerical_grad_bad_input():
    x = _data(2)
    with pytest.raises(TypeError, match="float dtype"):
        gradient_check.numerical_grad(
            lambda: (x,), (numpy.arange(2),), (numpy.ones(2),)
        )
    with pytest.raises(ValueError, match="eps must be positive"):
        gradient_check.numerical_grad(lambda: (x,), (x,), (numpy.ones(2),), eps=0)
    with pytest.raises(TypeError, match="tuple or a list"):
        gradient_check.numerical_grad(lambda: (x,), x, (numpy.ones(2),))
    with pytest.raises(TypeError, match="must be an array"):
        gradient_check.numerical_grad(lambda: (x,), ([1.0],), (numpy.ones(2),))
    with pytest.raises(ValueError, match="outputs but"):
        gradient_check.numerical_grad(lambda: (x, x), (x,), (numpy.ones(2),))
    with pytest.raises(ValueError, match="has shape"):
        gradient_check.numerical_grad(lambda: (x * 1,), (x,), (numpy.ones(3),))


# -- check_backward ----------------------------------------------------------


def test_check_backward_passes_for_correct_backward():
    x = _data(3, 4)
    gy = _data(3, 4)
    gradient_check.check_backward(square, x, gy)


def test_check_backward_float32_default_tolerances():
    x = _data(3, 4, dtype=numpy.float32)
    gy = _data(3, 4, dtype=numpy.float32)
    gradient_check.check_backward(square, x, gy, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("mode", ["scaled", "none", "one_element"])
def test_check_backward_detects_wrong_backward(mode):
    x = _data(3, 4) + 2.0  # away from 0 so the gradient is never negligible
    gy = numpy.ones((3, 4))
    with pytest.raises(AssertionError, match="check_backward failed"):
        gradient_check.check_backward(lambda v: square(v, mode), x, gy)


def test_check_backward_multiple_inputs_and_outputs():
    x = _large(3)
    w = _large(3)
    gys = (_large(3), _large(3))
    gradient_check.check_backward(lambda a, b: _MulAdd().apply((a, b)), (x, w), gys)
    with pytest.raises(AssertionError):
        gradient_check.check_backward(
            lambda a, b: _MulAdd(wrong_w=True).apply((a, b)), (x, w), gys
        )


def test_check_backward_no_grads_skips_input():
    x = _data(3)
    w = _data(3)
    gys = (_data(3), _data(3))

    def f(a, b):
        # b enters as a constant: backward computes no gradient for it.
        return _MulAdd(wrong_w=True).apply((a, b.array))

    gradient_check.check_backward(f, (x, w), gys, no_grads=[False, True])


def test_check_backward_no_grads_input_must_get_no_gradient():
    # As in Chainer: an input marked in no_grads that backward computes a
    # gradient for is an error.
    x = _data(3)
    w = _data(3)
    gys = (_data(3), _data(3))
    with pytest.raises(RuntimeError, match="no_grads"):
        gradient_check.check_backward(
            lambda a, b: _MulAdd().apply((a, b)), (x, w), gys, no_grads=[False, True]
        )


def test_sample_unit_vector():
    numpy.random.seed(0)
    for size in (0, 1, 5, 100):
        v = gradient_check._CheckBackward._sample_unit_vector(size, numpy)
        assert v.shape == (size,)
        assert v.dtype == numpy.float64
        if size:
            numpy.testing.assert_allclose(numpy.square(v).sum(), 1.0)
            assert numpy.abs(v).min() >= 0.1 / numpy.sqrt(size)
    assert v.min() < 0 < v.max()


def test_eps_must_be_positive():
    # ValueError, and AssertionError as Chainer raises.
    for eps in (0, -1.0):
        with pytest.raises(ValueError, match="eps must be positive"):
            gradient_check.numerical_grad(lambda: (1.0,), (_data(2),), (1.0,), eps=eps)
        with pytest.raises(AssertionError):
            gradient_check.check_backward(lambda a: a, (_data(2),), _data(2), eps=eps)


def test_check_backward_ignores_integer_inputs():
    x = _data(4)
    idx = numpy.array([1, 0, 3, 2], numpy.int32)

    def f(x, i):
        return x * x + i.array.astype(x.dtype)

    gradient_check.check_backward(f, (x, idx), numpy.ones(4))


def test_check_backward_loss_function():
    x = _data(5)

    def loss(x):
        return chainer.primitive_ops.sum(x * x)

    gradient_check.check_backward(loss, x, None)


def test_check_backward_ignores_none_grad_output():
    x = _data(3)
    w = _data(3)
    gradient_check.check_backward(
        lambda a, b: _MulAdd(wrong_w=True).apply((a, b)), (x, w), (None, _data(3))
    )


def test_check_backward_with_params():
    x = _large(3)
    w = chainer.Parameter(_large(3))

    def f(x):
        return x * w

    gradient_check.check_backward(f, x, _large(3), params=(w,))
    w_before = w.array.copy()

    def g(x):
        (y, _) = _MulAdd(wrong_w=True).apply((x, w))
        return y

    with pytest.raises(AssertionError):
        gradient_check.check_backward(g, x, _large(3), params=w)
    # Parameters get their original data back.
    numpy.testing.assert_array_equal(w.array, w_before)


def test_check_backward_dtype_float64_for_float16():
    x = numpy.random.uniform(0.5, 1, (3,)).astype(numpy.float16)
    gy = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float16)
    gradient_check.check_backward(
        square, x, gy, dtype=numpy.float64, atol=1e-2, rtol=1e-2
    )


def test_check_backward_detect_nondifferentiable():
    x = numpy.array([0.0, 1.0])

    def f(x):
        return abs(x)

    with pytest.raises(gradient_check.NondifferentiableError):
        gradient_check.check_backward(
            f, x, numpy.ones(2), detect_nondifferentiable=True
        )


def test_check_backward_bad_input():
    x = _data(3)
    gy = _data(3)
    with pytest.raises(TypeError, match="callable"):
        gradient_check.check_backward(None, x, gy)
    with pytest.raises(TypeError, match="x_data"):
        gradient_check.check_backward(square, [1.0, 2.0], gy)
    with pytest.raises(TypeError, match="params"):
        gradient_check.check_backward(square, x, gy, params=(x,))
    with pytest.raises(ValueError, match="no_grads"):
        gradient_check.check_backward(square, x, gy, no_grads=[False, False])
    with pytest.raises(ValueError, match="float"):
        gradient_check.check_backward(square, x, gy, dtype=numpy.int32)
    with pytest.raises(ValueError, match="eps"):
        gradient_check.check_backward(square, x, gy, eps=-1)
    with pytest.raises(ValueError, match="y_grad argument cannot be omitted"):
        gradient_check.check_backward(square, x, None)
    with pytest.raises(ValueError, match="Upstream gradients"):
        gradient_check.check_backward(square, x, (gy, gy))
    with pytest.raises(ValueError, match="shape"):
        gradient_check.check_backward(square, x, _data(4))
    with pytest.raises(TypeError, match="must return a Variable"):
        gradient_check.check_backward(lambda v: v.array, x, gy)
    with pytest.raises(ValueError, match="not a float"):
        gradient_check.check_backward(
            lambda v: v, numpy.arange(3), gy, no_grads=[False]
        )


# -- check_double_backward ---------------------------------------------------


def test_check_double_backward_passes():
    x = _data(3, 2)
    gy = _data(3, 2)
    ggx = _data(3, 2)
    gradient_check.check_double_backward(square, x, gy, ggx)


@pytest.mark.parametrize("mode", ["constant", "bad_grad"])
def test_check_double_backward_detects_wrong_double_backward(mode):
    x = _large(3, 2)
    gy = _large(3, 2)
    ggx = _large(3, 2)
    # The first-order gradient is right in both modes...
    gradient_check.check_backward(lambda v: square(v, mode), x, gy)
    # ...but its own derivative is not.
    with pytest.raises(AssertionError, match="check_double_backward failed"):
        gradient_check.check_double_backward(lambda v: square(v, mode), x, gy, ggx)


def test_check_double_backward_multiple_inputs():
    x = _data(3)
    w = _data(3)
    gys = (_data(3), _data(3))
    ggs = (_data(3), _data(3))
    gradient_check.check_double_backward(
        lambda a, b: _MulAdd().apply((a, b)), (x, w), gys, ggs
    )


def test_check_double_backward_with_params():
    x = _data(3)
    w = chainer.Parameter(_data(3))

    def f(x):
        return x * x * w

    gradient_check.check_double_backward(
        f, x, _data(3), _data(3), params=w, params_grad_grad=_data(3)
    )


def test_check_double_backward_bad_input():
    x = _data(3)
    with pytest.raises(ValueError, match="x_grad_grad"):
        gradient_check.check_double_backward(square, x, _data(3), (_data(3), _data(3)))
    w = chainer.Parameter(_data(3))
    with pytest.raises(ValueError, match="params_grad_grad"):
        gradient_check.check_double_backward(
            lambda v: v * w, x, _data(3), _data(3), params=w
        )


def test_assert_allclose_alias():
    gradient_check.assert_allclose(numpy.ones(2), numpy.ones(2))
    with pytest.raises(AssertionError):
        gradient_check.assert_allclose(numpy.ones(2), numpy.zeros(2))
