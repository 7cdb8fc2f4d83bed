"""Standard test cases for links (``LinkTestCase``, ``LinkInitializersTestCase``)."""

from __future__ import annotations

import numbers
import unittest

import numpy

import chainer
from chainer import backend
from chainer.testing import _checks


class LinkTestError(_checks.TestError):
    """Raised when the link under test is implemented incorrectly."""


class InitializerArgument:
    """Pair of a link constructor argument and the initializer it stands for.

    Return it from ``LinkInitializersTestCase.get_initializers`` when the
    argument is not itself an initializer-like (e.g. ``None`` meaning a
    default initializer).

    Args:
        argument_value: Value passed to the link constructor.
        expected_initializer: Initializer-like the link should use for it.
    """

    def __init__(self, argument_value, expected_initializer):
        if expected_initializer is None:
            raise ValueError("Expected initialized cannot be None.")
        _check_initializer_like(expected_initializer)
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer


def _check_initializer_like(init):
    if isinstance(init, InitializerArgument):
        return
    if init is None:
        raise ValueError("A generated initializer cannot be None.")
    if isinstance(init, (numbers.Number, numpy.generic)):
        return
    if backend.is_array_supported(init) or callable(init):
        return
    raise TypeError(
        "an initializer-like must be an initializer, a scalar or an array; "
        f"got {type(init).__name__}"
    )


def _argument_value(init):
    return init.argument_value if isinstance(init, InitializerArgument) else init


def _expected_array(init, shape, dtype):
    from chainer import initializers

    if isinstance(init, InitializerArgument):
        init = init.expected_initializer
    if isinstance(init, (numbers.Number, numpy.generic)) or backend.is_array_supported(
        init
    ):
        init = initializers.Constant(backend.CpuDevice().send(init))
    return initializers.generate_array(init, shape, numpy, dtype=dtype)


def _get_link_params(link, param_names):
    params = []
    for name in param_names:
        param = getattr(link, name, None)
        if param is None:
            LinkTestError.fail(f"Link does not have a parameter named '{name}'.")
        params.append(param)
    return params


class _LinkTestBase:
    backend_config = None
    contiguous = None
    param_names = ()

    def before_test(self, test_name):
        """Called before each test; may raise :class:`unittest.SkipTest`."""

    def generate_params(self):
        """Returns one initializer-like per link initializer (must override)."""
        raise LinkTestError(f"{type(self).__name__} must define generate_params()")

    def generate_inputs(self):
        """Returns a tuple of input arrays (must be overridden)."""
        raise LinkTestError(f"{type(self).__name__} must define generate_inputs()")

    def create_link(self, initializers):
        """Returns the link built with ``initializers`` (must be overridden)."""
        raise LinkTestError(f"{type(self).__name__} must define create_link()")

    def forward(self, link, inputs, device):
        """Calls the link on ``inputs``; returns a tuple of Variables."""
        outputs = link(*inputs)
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        return outputs

    def _generate_params(self):
        inits = self.generate_params()
        if not isinstance(inits, (tuple, list)):
            raise TypeError("`generate_params` must return a tuple or a list.")
        for init in inits:
            _check_initializer_like(init)
        return inits

    def _generate_inputs(self):
        inputs = self.generate_inputs()
        _checks.check_array_types(inputs, backend.CpuDevice(), "generate_inputs")
        return inputs

    def _create_link(self, initializers, backend_config):
        link = self.create_link(initializers)
        if not isinstance(link, chainer.Link):
            raise TypeError("`create_link` must return a chainer.Link object.")
        link.to_device(backend_config.device)
        return link

    def _forward(self, link, inputs, backend_config):
        with backend_config:
            outputs = self.forward(link, inputs, backend_config.device)
        _checks.check_variable_types(
            outputs, backend_config.device, "forward", LinkTestError
        )
        return outputs

    def _create_initialized_link(self, inits, backend_config):
        link = self._create_link(inits, backend_config)
        inputs = backend_config.get_array(self._generate_inputs())
        inputs = _checks.to_contiguity(self, inputs)
        # A forward pass initializes lazily-shaped parameters.
        outputs = self._forward(
            link, tuple(chainer.Variable(x) for x in inputs), backend_config
        )
        link.cleargrads()
        return link, inputs, [v.array for v in outputs]


class LinkTestCase(_LinkTestBase, _checks.CollectSubclasses, unittest.TestCase):
    """Base class of forward and backward tests of a link.

    Test methods take a ``backend_config``; use
    :func:`~chainer.testing.inject_backend_tests`.

    Required methods: ``generate_params(self)`` (a tuple of initializer-likes,
    passed to ``create_link``), ``create_link(self, initializers)``,
    ``generate_inputs(self)`` (a tuple of NumPy arrays) and
    ``forward_expected(self, link, inputs)`` (expected outputs from the CPU
    link and NumPy inputs). ``forward(self, link, inputs, device)`` defaults
    to calling the link.

    Optional: ``before_test(self, test_name)``,
    ``generate_grad_outputs(self, outputs_template)``.

    Attributes: ``param_names`` (names of the parameters whose gradients are
    checked), ``check_forward_options``, ``check_backward_options``,
    ``skip_forward_test``, ``skip_backward_test``,
    ``dodge_nondifferentiable``, ``numerical_grad_dtype``, ``contiguous``.
    """

    skip_forward_test = False
    skip_backward_test = False

    # A base class, not a runnable test; its subclasses are collected.
    __test__ = False

    dodge_nondifferentiable = False
    numerical_grad_dtype = numpy.float64

    def __init__(self, *args, **kwargs):
        self.check_forward_options = {}
        self.check_backward_options = {}
        super().__init__(*args, **kwargs)

    def forward_expected(self, link, inputs):
        """Returns the expected outputs (must be overridden)."""
        raise LinkTestError(f"{type(self).__name__} must define forward_expected()")

    def generate_grad_outputs(self, outputs_template):
        """Returns upstream gradients shaped like ``outputs_template``."""
        return tuple(
            None if a is None else numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
            for a in outputs_template
        )

    def check_forward_outputs(self, outputs, expected_outputs):
        """Compares actual and expected outputs (tuples of arrays)."""
        _checks.check_arrays_equal(
            outputs, expected_outputs, LinkTestError, **self.check_forward_options
        )

    def test_forward(self, backend_config):
        """Tests forward computation."""
        if self.skip_forward_test:
            raise unittest.SkipTest("skip_forward_test is set")
        self.backend_config = backend_config
        self.before_test("test_forward")
        link = self._create_link(self._generate_params(), backend_config)
        inputs_np = self._generate_inputs()
        inputs = _checks.to_contiguity(self, backend_config.get_array(inputs_np))
        outputs = self._forward(
            link, tuple(chainer.Variable(x) for x in inputs), backend_config
        )
        cpu = backend.CpuDevice()
        outputs = tuple(cpu.send(v.array) for v in outputs)
        link.to_device(cpu)
        expected = self.forward_expected(link, inputs_np)
        _checks.check_array_types(expected, cpu, "forward_expected")
        self.check_forward_outputs(outputs, expected)

    def test_backward(self, backend_config):
        """Tests gradients of the inputs and of ``param_names``."""
        from chainer import gradient_check

        if self.skip_backward_test:
            raise unittest.SkipTest("skip_backward_test is set")
        self.backend_config = backend_config
        self.before_test("test_backward")

        def do_check():
            inits = self._generate_params()
            link, inputs, outputs = self._create_initialized_link(inits, backend_config)
            params = _get_link_params(link, self.param_names)
            for p in params:
                p.array = _checks.to_contiguity(self, p.array)
            cpu_outputs = [backend.CpuDevice().send(y) for y in outputs]
            grad_outputs = self.generate_grad_outputs(tuple(cpu_outputs))
            _checks.check_array_types(
                grad_outputs, backend.CpuDevice(), "generate_grad_outputs"
            )
            grad_outputs = _checks.to_contiguity(
                self, backend_config.get_array(grad_outputs)
            )

            def f(*xs):
                return self._forward(link, xs, backend_config)

            with LinkTestError.raise_if_fail("backward is not implemented correctly"):
                gradient_check.check_backward(
                    f,
                    inputs,
                    grad_outputs,
                    params=tuple(params),
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_backward_options,
                )

        _checks.retry_nondifferentiable(self, do_check)


class LinkInitializersTestCase(
    _LinkTestBase, _checks.CollectSubclasses, unittest.TestCase
):
    """Base class of tests that a link initializes its parameters correctly.

    The test method ``test_initializers`` takes a ``backend_config``; use
    :func:`~chainer.testing.inject_backend_tests`.

    Required methods: ``generate_params(self)``, ``create_link(self,
    initializers)``, ``generate_inputs(self)`` (as in :class:`LinkTestCase`)
    and ``get_initializers(self)``: one sequence per link initializer listing
    the initializer-likes (or :class:`InitializerArgument` pairs) to test;
    they must be deterministic. Each one is tested alone, the other
    initializers coming from ``generate_params``.

    Attributes: ``param_names`` (one name per initializer),
    ``check_initializers_options`` (options for
    :func:`~chainer.testing.assert_allclose`), ``contiguous``.
    """

    check_initializers_options = None

    # A base class, not a runnable test; its subclasses are collected.
    __test__ = False

    def __init__(self, *args, **kwargs):
        self.check_initializers_options = {}
        super().__init__(*args, **kwargs)

    def get_initializers(self):
        """Returns the initializer-likes to test (must be overridden)."""
        raise LinkTestError(f"{type(self).__name__} must define get_initializers()")

    def _get_initializers(self):
        params_inits = self.get_initializers()
        if not isinstance(params_inits, (tuple, list)):
            raise TypeError("`get_initializers` must return a tuple or a list.")
        for param_inits in params_inits:
            if not isinstance(param_inits, (tuple, list)):
                raise TypeError(
                    "`get_initializers` must return a tuple or a list of "
                    "tuples or lists."
                )
            for init in param_inits:
                _check_initializer_like(init)
        return params_inits

    def test_initializers(self, backend_config):
        """Tests that each initializer-like initializes its parameter."""
        self.backend_config = backend_config
        self.before_test("test_initializers")
        params_inits = self._get_initializers()
        if len(params_inits) != len(self.param_names):
            raise ValueError(
                f"get_initializers returned {len(params_inits)} groups but "
                f"param_names has {len(self.param_names)} names"
            )
        for i_param, param_inits in enumerate(params_inits):
            inits = list(self._generate_params())
            for init in param_inits:
                inits[i_param] = init
                self._test_single_initializer(i_param, inits, backend_config)

    def _test_single_initializer(self, i_param, inits, backend_config):
        args = [_argument_value(init) for init in inits]
        link, _, _ = self._create_initialized_link(args, backend_config)
        (param,) = _get_link_params(link, (self.param_names[i_param],))
        actual = backend.CpuDevice().send(param.array)
        expected = _expected_array(inits[i_param], actual.shape, actual.dtype)
        _checks.check_arrays_equal(
            (actual,), (expected,), LinkTestError, **self.check_initializers_options
        )
