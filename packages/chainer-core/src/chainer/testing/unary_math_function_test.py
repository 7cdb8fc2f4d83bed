"""Ready-made tests of unary math functions (``unary_math_function_unittest``)."""

from __future__ import annotations

import unittest
import warnings

import numpy

import chainer
from chainer.testing import array as array_module
from chainer.testing import attr
from chainer.testing import parameterized


def _func_name(func):
    from chainer import function

    if isinstance(func, function.Function):
        return type(func).__name__.lower()
    return func.__name__


def _func_class(func):
    from chainer import function

    if isinstance(func, function.Function):
        return type(func)
    try:
        from chainer import functions
    except ImportError:
        return None
    return getattr(functions, func.__name__.capitalize(), None)


def _make_data_default(shape, dtype):
    x = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    gy = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    ggx = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    return x, gy, ggx


def _nonlinear(func):
    # A linear function has zero second derivative; squaring its output makes
    # double backprop observable.
    def aux(x):
        y = func(x)
        return y * y

    return aux


def _to_gpu(array):
    from chainer.backends import cuda

    if not cuda.available:
        raise unittest.SkipTest("CUDA (CuPy with chainer-cuda) is not available")
    return cuda.to_gpu(array)


def _options(dtype, default, float16, user):
    opts = dict(float16 if dtype == numpy.float16 else default)
    if user is not None:
        opts.update(user)
    return opts


def unary_math_function_unittest(
    func,
    func_expected=None,
    label_expected=None,
    make_data=None,
    is_linear=None,
    forward_options=None,
    backward_options=None,
    double_backward_options=None,
):
    """Decorator for testing unary mathematical Chainer functions.

    It adds forward, backward, double backward (for new-style functions) and
    label tests, on CPU and GPU, to a ``unittest.TestCase`` and parameterizes
    it over ``shape`` ((3, 2) and ()) and ``dtype`` (float16, 32 and 64). The
    function must be elementwise, take one input and return one output of the
    input's dtype.

    Args:
        func: The function to test: a callable such as ``F.sin`` or an
            old-style :class:`~chainer.Function` instance.
        func_expected: NumPy reference called as ``f(x, dtype=x.dtype)``;
            defaults to the NumPy function of the same name.
        label_expected (str): Expected label of the function; defaults to its
            lower-cased name. Checked when the function's class can be found.
        make_data: ``make_data(shape, dtype)`` returning ``(x, gy, ggx)`` (or
            ``(x, gy)`` for old-style functions); defaults to uniform values
            in ``[-1, 1]``.
        is_linear: Deprecated; if true, double backward is tested on the
            squared function.
        forward_options (dict): Extra options of the forward comparison.
        backward_options (dict): Extra options of
            :func:`~chainer.gradient_check.check_backward`.
        double_backward_options (dict): Extra options of
            :func:`~chainer.gradient_check.check_double_backward`.

    Returns:
        callable: The class decorator.
    """
    from chainer import function
    from chainer import gradient_check

    if not callable(func):
        raise TypeError(f"func must be callable, not {type(func).__name__}")
    is_new_style = not isinstance(func, function.Function)
    func_name = _func_name(func)
    func_class = _func_class(func)
    if func_expected is None:
        func_expected = getattr(numpy, func_name, None)
        if func_expected is None:
            raise ValueError(
                "NumPy has no functions corresponding to Chainer function "
                f"'{func_name}'."
            )
    if label_expected is None:
        label_expected = func_name
    elif func_class is None:
        raise ValueError(
            "Expected label is given even though Chainer function does not "
            "have its label."
        )
    if make_data is None:
        if is_new_style:
            make_data = _make_data_default
        else:

            def make_data(shape, dtype):
                return _make_data_default(shape, dtype)[:2]

    if is_linear is not None:
        warnings.warn("is_linear option is deprecated", DeprecationWarning)

    def setUp(self):
        data = make_data(self.shape, self.dtype)
        if is_new_style:
            self.x, self.gy, self.ggx = data
        else:
            self.x, self.gy = data
        self.forward_options = _options(
            self.dtype,
            {"atol": 1e-4, "rtol": 1e-4},
            {"atol": 1e-3, "rtol": 1e-3},
            forward_options,
        )
        self.backward_options = _options(
            self.dtype,
            {"atol": 1e-4, "rtol": 1e-4},
            {"eps": 2**-4, "atol": 2**-4, "rtol": 2**-4, "dtype": numpy.float64},
            backward_options,
        )
        self.double_backward_options = _options(
            self.dtype,
            {"atol": 1e-3, "rtol": 1e-2},
            {"atol": 1e-3, "rtol": 1e-2, "dtype": numpy.float64},
            double_backward_options,
        )

    def check_forward(self, x_data):
        y = func(chainer.Variable(x_data))
        self.assertEqual(y.array.dtype, x_data.dtype)
        x_cpu = chainer.backend.CpuDevice().send(x_data)
        y_expected = func_expected(x_cpu, dtype=x_cpu.dtype)
        array_module.assert_allclose(y_expected, y.array, **self.forward_options)

    def check_backward(self, x_data, y_grad):
        gradient_check.check_backward(func, x_data, y_grad, **self.backward_options)

    def check_double_backward(self, x_data, y_grad, x_grad_grad):
        f = _nonlinear(func) if is_linear else func
        gradient_check.check_double_backward(
            f, x_data, y_grad, x_grad_grad, **self.double_backward_options
        )

    def test_forward_cpu(self):
        self.check_forward(self.x)

    @attr.gpu
    def test_forward_gpu(self):
        self.check_forward(_to_gpu(self.x))

    def test_backward_cpu(self):
        self.check_backward(self.x, self.gy)

    @attr.gpu
    def test_backward_gpu(self):
        self.check_backward(_to_gpu(self.x), _to_gpu(self.gy))

    def test_double_backward_cpu(self):
        self.check_double_backward(self.x, self.gy, self.ggx)

    @attr.gpu
    def test_double_backward_gpu(self):
        self.check_double_backward(_to_gpu(self.x), _to_gpu(self.gy), _to_gpu(self.ggx))

    def test_label(self):
        self.assertEqual(func_class().label, label_expected)

    members = {
        "setUp": setUp,
        "check_forward": check_forward,
        "test_forward_cpu": test_forward_cpu,
        "test_forward_gpu": test_forward_gpu,
        "check_backward": check_backward,
        "test_backward_cpu": test_backward_cpu,
        "test_backward_gpu": test_backward_gpu,
    }
    if is_new_style:
        members["check_double_backward"] = check_double_backward
        members["test_double_backward_cpu"] = test_double_backward_cpu
        members["test_double_backward_gpu"] = test_double_backward_gpu
    if func_class is not None:
        members["test_label"] = test_label

    def decorator(klass):
        if not (isinstance(klass, type) and issubclass(klass, unittest.TestCase)):
            raise TypeError(
                "unary_math_function_unittest decorates unittest.TestCase classes"
            )
        for name, member in members.items():
            setattr(klass, name, member)
        return parameterized.parameterize(
            *parameterized.product(
                {
                    "shape": [(3, 2), ()],
                    "dtype": [numpy.float16, numpy.float32, numpy.float64],
                }
            )
        )(klass)

    return decorator
