"""Standard test cases for functions (``testing.FunctionTestCase``)."""

from __future__ import annotations

import io
import unittest

import numpy

import chainer
from chainer import backend
from chainer.testing import _checks
from chainer.testing import _link_cases


class FunctionTestError(_checks.TestError):
    """Raised when the function under test is implemented incorrectly."""


LinkTestError = _link_cases.LinkTestError
LinkTestCase = _link_cases.LinkTestCase
LinkInitializersTestCase = _link_cases.LinkInitializersTestCase
InitializerArgument = _link_cases.InitializerArgument


def _uniform_like(arrays):
    return tuple(
        None if a is None else numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
        for a in arrays
    )


class FunctionTestCase(_checks.CollectSubclasses, unittest.TestCase):
    """Base class of forward, backward and double-backward tests of a function.

    Subclasses describe the function and its expected values; the test
    methods ``test_forward``, ``test_backward`` and ``test_double_backward``
    take a ``backend_config`` and are meant to be expanded by
    :func:`~chainer.testing.inject_backend_tests`.

    Required methods:

    * ``generate_inputs(self)``: a tuple of input :class:`numpy.ndarray`.
    * ``forward(self, inputs, device)``: runs the function on ``inputs``, a
      tuple of :class:`~chainer.Variable` on ``device``, and returns a tuple of
      output Variables.
    * ``forward_expected(self, inputs)``: the expected outputs for the NumPy
      ``inputs``, a tuple of :class:`numpy.ndarray` (dtypes must match).

    Optional methods: ``before_test(self, test_name)`` (e.g. raise
    :class:`unittest.SkipTest`), ``generate_grad_outputs(self,
    outputs_template)`` and ``generate_grad_grad_inputs(self,
    inputs_template)`` (defaults: uniform in ``[-1, 1]``).

    Attributes (set them in ``setUp`` to adjust):

    * ``check_forward_options``, ``check_backward_options``,
      ``check_double_backward_options`` (dict): Options for
      :func:`~chainer.testing.assert_allclose`,
      :func:`~chainer.gradient_check.check_backward` and
      :func:`~chainer.gradient_check.check_double_backward`.
    * ``skip_forward_test``, ``skip_backward_test``,
      ``skip_double_backward_test`` (bool).
    * ``dodge_nondifferentiable`` (bool): Draw new inputs when the gradient
      check hits a non-differentiable point.
    * ``numerical_grad_dtype``: Dtype of the numerical gradient (float64).
    * ``contiguous`` (None or ``'C'``): ``None`` feeds non-contiguous arrays.

    Example:
        .. code-block:: python

            @testing.inject_backend_tests(None, [{}, {'use_cuda': True}])
            class TestSquare(testing.FunctionTestCase):
                def generate_inputs(self):
                    x = numpy.random.uniform(-1, 1, (3, 2)).astype('f')
                    return x,

                def forward(self, inputs, device):
                    x, = inputs
                    return x * x,

                def forward_expected(self, inputs):
                    x, = inputs
                    return x * x,
    """

    backend_config = None
    check_forward_options = None

    # A base class, not a runnable test; its subclasses are collected.
    __test__ = False

    check_backward_options = None
    check_double_backward_options = None
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype = numpy.float64
    contiguous = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.check_forward_options = {}
        self.check_backward_options = {}
        self.check_double_backward_options = {}

    # -- user hooks -------------------------------------------------------
    def before_test(self, test_name):
        """Called before each test; may raise :class:`unittest.SkipTest`."""

    def generate_inputs(self):
        """Returns a tuple of input arrays (must be overridden)."""
        raise FunctionTestError(f"{type(self).__name__} must define generate_inputs()")

    def forward(self, inputs, device):
        """Runs the function under test (must be overridden)."""
        raise FunctionTestError(f"{type(self).__name__} must define forward()")

    def forward_expected(self, inputs):
        """Returns the expected outputs (must be overridden)."""
        raise FunctionTestError(f"{type(self).__name__} must define forward_expected()")

    def generate_grad_outputs(self, outputs_template):
        """Returns upstream gradients shaped like ``outputs_template``."""
        return _uniform_like(outputs_template)

    def generate_grad_grad_inputs(self, inputs_template):
        """Returns second-order upstream gradients shaped like the inputs."""
        return _uniform_like(inputs_template)

    def check_forward_outputs(self, outputs, expected_outputs):
        """Compares actual and expected outputs (tuples of arrays)."""
        _checks.check_arrays_equal(
            outputs, expected_outputs, FunctionTestError, **self.check_forward_options
        )

    # -- plumbing ---------------------------------------------------------
    def _generate_inputs(self):
        inputs = self.generate_inputs()
        _checks.check_array_types(inputs, backend.CpuDevice(), "generate_inputs")
        return inputs

    def _forward_expected(self, inputs):
        outputs = self.forward_expected(inputs)
        _checks.check_array_types(outputs, backend.CpuDevice(), "forward_expected")
        return outputs

    def _generate_grad_outputs(self, outputs_template):
        grads = self.generate_grad_outputs(outputs_template)
        _checks.check_array_types(grads, backend.CpuDevice(), "generate_grad_outputs")
        return grads

    def _generate_grad_grad_inputs(self, inputs_template):
        grads = self.generate_grad_grad_inputs(inputs_template)
        _checks.check_array_types(
            grads, backend.CpuDevice(), "generate_grad_grad_inputs"
        )
        return grads

    def _forward(self, inputs, backend_config):
        with backend_config:
            outputs = self.forward(inputs, backend_config.device)
        _checks.check_variable_types(
            outputs, backend_config.device, "forward", FunctionTestError
        )
        return outputs

    def _begin(self, backend_config, test_name, skip):
        if skip:
            raise unittest.SkipTest(f"skip_{test_name[5:]}_test is set")
        self.backend_config = backend_config
        self.test_name = test_name
        self.before_test(test_name)

    def _device_arrays(self, backend_config, arrays):
        return _checks.to_contiguity(self, backend_config.get_array(arrays))

    # -- tests ------------------------------------------------------------
    def run_test_forward(self, backend_config):
        """Checks the outputs against ``forward_expected``."""
        self._begin(backend_config, "test_forward", self.skip_forward_test)
        cpu_inputs = _checks.to_contiguity(self, self._generate_inputs())
        inputs_copied = [None if a is None else a.copy() for a in cpu_inputs]
        cpu_expected = self._forward_expected(cpu_inputs)
        inputs = self._device_arrays(backend_config, cpu_inputs)
        variables = tuple(
            chainer.Variable(a, requires_grad=a.dtype.kind == "f") for a in inputs
        )
        outputs = self._forward(variables, backend_config)
        self._check_inputs_unchanged(inputs_copied, inputs)
        outputs = tuple(backend.CpuDevice().send(v.array) for v in outputs)
        self.check_forward_outputs(outputs, cpu_expected)

    def _check_inputs_unchanged(self, originals, inputs):
        changed = []
        for i, (orig, a) in enumerate(zip(originals, inputs, strict=True)):
            a = backend.CpuDevice().send(a)
            if not numpy.array_equal(orig, a, equal_nan=orig.dtype.kind in "fc"):
                changed.append(i)
        if changed:
            f = io.StringIO()
            f.write(
                "Input arrays have been modified during forward.\n"
                f"Indices of modified inputs: {', '.join(map(str, changed))}\n"
                f"Input array shapes and dtypes: "
                f"{_checks.format_array_props(inputs)}\n"
            )
            for i in changed:
                f.write(f"\nInput[{i}]:\nOriginal:\n{originals[i]}\n")
                f.write(f"After forward:\n{inputs[i]}\n")
            FunctionTestError.fail(f.getvalue())

    def run_test_backward(self, backend_config):
        """Checks gradients with :func:`~chainer.gradient_check.check_backward`."""
        from chainer import gradient_check

        self._begin(backend_config, "test_backward", self.skip_backward_test)

        def f(*args):
            return self._forward(args, backend_config)

        def do_check():
            inputs = self._generate_inputs()
            outputs = self._forward_expected(inputs)
            grad_outputs = self._generate_grad_outputs(outputs)
            inputs = self._device_arrays(backend_config, inputs)
            grad_outputs = self._device_arrays(backend_config, grad_outputs)
            with FunctionTestError.raise_if_fail(
                "backward is not implemented correctly"
            ):
                gradient_check.check_backward(
                    f,
                    inputs,
                    grad_outputs,
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_backward_options,
                )

        _checks.retry_nondifferentiable(self, do_check)

    def run_test_double_backward(self, backend_config):
        """Checks second-order gradients with
        :func:`~chainer.gradient_check.check_double_backward`."""
        from chainer import gradient_check

        self._begin(
            backend_config, "test_double_backward", self.skip_double_backward_test
        )

        def f(*args):
            return self._forward(args, backend_config)

        def do_check():
            inputs = self._generate_inputs()
            outputs = self._forward_expected(inputs)
            grad_outputs = self._generate_grad_outputs(outputs)
            grad_grad_inputs = self._generate_grad_grad_inputs(inputs)
            # Non-float inputs have no gradient, hence no grad-grad either.
            grad_grad_inputs = tuple(
                ggx
                for ggx, x in zip(grad_grad_inputs, inputs, strict=True)
                if x is not None and x.dtype.kind == "f"
            )
            inputs = self._device_arrays(backend_config, inputs)
            grad_outputs = self._device_arrays(backend_config, grad_outputs)
            grad_grad_inputs = self._device_arrays(backend_config, grad_grad_inputs)
            with FunctionTestError.raise_if_fail(
                "double backward is not implemented correctly"
            ):
                gradient_check.check_double_backward(
                    f,
                    inputs,
                    grad_outputs,
                    grad_grad_inputs,
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_double_backward_options,
                )

        _checks.retry_nondifferentiable(self, do_check)

    def test_forward(self, backend_config):
        """Tests forward computation."""
        self.run_test_forward(backend_config)

    def test_backward(self, backend_config):
        """Tests backward computation."""
        self.run_test_backward(backend_config)

    def test_double_backward(self, backend_config):
        """Tests double-backward computation."""
        self.run_test_double_backward(backend_config)
