import unittest

import numpy
import pytest

import chainer
from chainer import function_node
from chainer import testing


class _Cube(function_node.FunctionNode):
    """y = x ** 3 whose backward and double backward can be broken."""

    def __init__(self, mode):
        self.mode = mode

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        y = x * x * x
        if self.mode == "forward":
            y = y + 1e-2
        return (y,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        if self.mode == "backward":
            return (2 * x * x * gy,)
        if self.mode == "double_backward":
            # Correct value, but detached from the graph.
            return (chainer.Variable(3 * x.array * x.array * gy.array),)
        return (3 * x * x * gy,)


def cube(x, mode="ok"):
    (y,) = _Cube(mode).apply((x,))
    return y


class _CubeMixin:
    # A mixin, not a TestCase: pytest would collect an undecorated TestCase
    # base whose test methods still expect a backend_config.
    mode = "ok"

    def setUp(self):
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(0.5, 1.5, self.shape).astype(self.dtype)
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        return (cube(x, self.mode),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return ((x * x * x).astype(self.dtype),)


# The public recipe: parameterize + inject_backend_tests on a FunctionTestCase.
@testing.parameterize(
    *testing.product(
        {"shape": [(3, 2), ()], "dtype": [numpy.float16, numpy.float32, numpy.float64]}
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestCube(_CubeMixin, testing.FunctionTestCase):
    pass


class _CubeTest(_CubeMixin, testing.FunctionTestCase):
    __test__ = False


def _make(cls, name, **attrs):
    case = type("Case", (cls,), attrs)(name)
    case.setUp()
    return case


_CPU = testing.BackendConfig({})


@pytest.mark.parametrize("contiguous", [None, "C"])
def test_correct_function_passes_all_tests(contiguous):
    case = _make(
        _CubeTest,
        "test_forward",
        shape=(2, 3),
        dtype=numpy.float32,
        contiguous=contiguous,
    )
    case.run_test_forward(_CPU)
    case.run_test_backward(_CPU)
    case.run_test_double_backward(_CPU)


def test_wrong_forward_fails():
    case = _make(
        _CubeTest, "test_forward", shape=(2, 3), dtype=numpy.float32, mode="forward"
    )
    with pytest.raises(testing.FunctionTestError, match="do not match"):
        case.run_test_forward(_CPU)


def test_wrong_backward_fails():
    case = _make(
        _CubeTest, "test_backward", shape=(2, 3), dtype=numpy.float32, mode="backward"
    )
    case.run_test_forward(_CPU)
    with pytest.raises(testing.FunctionTestError, match="backward is not implemented"):
        case.run_test_backward(_CPU)


def test_wrong_double_backward_fails():
    case = _make(
        _CubeTest,
        "test_double_backward",
        shape=(2, 3),
        dtype=numpy.float64,
        mode="double_backward",
    )
    case.run_test_backward(_CPU)
    with pytest.raises(
        testing.FunctionTestError, match="double backward is not implemented"
    ):
        case.run_test_double_backward(_CPU)


def test_function_test_error_is_assertion_error():
    assert issubclass(testing.FunctionTestError, AssertionError)
    assert issubclass(testing.LinkTestError, AssertionError)


def test_wrong_output_dtype_fails():
    class Case(_CubeTest):
        def forward_expected(self, inputs):
            (x,) = inputs
            return ((x * x * x).astype(numpy.float64),)

    case = _make(Case, "test_forward", shape=(2,), dtype=numpy.float32)
    with pytest.raises(testing.FunctionTestError, match="Shapes and/or dtypes"):
        case.run_test_forward(_CPU)


def test_wrong_number_of_outputs_fails():
    class Case(_CubeTest):
        def forward_expected(self, inputs):
            (x,) = inputs
            return (x * x * x, x)

    case = _make(Case, "test_forward", shape=(2,), dtype=numpy.float32)
    with pytest.raises(testing.FunctionTestError, match="Number of outputs"):
        case.run_test_forward(_CPU)


def test_input_modified_in_forward_fails():
    class Case(_CubeTest):
        def forward(self, inputs, device):
            (x,) = inputs
            y = cube(x)
            x.array[...] = 0
            return (y,)

    case = _make(Case, "test_forward", shape=(2,), dtype=numpy.float32)
    with pytest.raises(testing.FunctionTestError, match="modified during forward"):
        case.run_test_forward(_CPU)


def test_forward_must_return_tuple_of_variables():
    class NotTuple(_CubeTest):
        def forward(self, inputs, device):
            return cube(inputs[0])

    class NotVariable(_CubeTest):
        def forward(self, inputs, device):
            return (inputs[0].array,)

    with pytest.raises(testing.FunctionTestError, match="must return a tuple"):
        _make(NotTuple, "test_forward", shape=(2,), dtype="f").run_test_forward(_CPU)
    with pytest.raises(testing.FunctionTestError, match="tuple of Variables"):
        _make(NotVariable, "test_forward", shape=(2,), dtype="f").run_test_forward(_CPU)


def test_generate_inputs_must_return_tuple():
    class Case(_CubeTest):
        def generate_inputs(self):
            return numpy.ones(2, numpy.float32)

    with pytest.raises(TypeError, match="generate_inputs"):
        _make(Case, "test_forward", shape=(2,), dtype="f").run_test_forward(_CPU)


def test_missing_methods_fail_clearly():
    class Empty(testing.FunctionTestCase):
        pass

    with pytest.raises(testing.FunctionTestError, match="generate_inputs"):
        Empty("test_forward").run_test_forward(_CPU)


def test_invalid_contiguous():
    case = _make(_CubeTest, "test_forward", shape=(2, 3), dtype="f", contiguous="F")
    with pytest.raises(ValueError, match="contiguous"):
        case.run_test_forward(_CPU)


def test_skip_flags_and_before_test():
    for flag, runner in [
        ("skip_forward_test", "run_test_forward"),
        ("skip_backward_test", "run_test_backward"),
        ("skip_double_backward_test", "run_test_double_backward"),
    ]:
        case = _make(_CubeTest, "test_forward", shape=(2,), dtype="f", **{flag: True})
        with pytest.raises(unittest.SkipTest):
            getattr(case, runner)(_CPU)

    seen = []

    class Case(_CubeTest):
        def before_test(self, test_name):
            seen.append(test_name)

    _make(Case, "test_forward", shape=(2,), dtype="f").run_test_forward(_CPU)
    assert seen == ["test_forward"]


def test_dodge_nondifferentiable_redraws_inputs():
    draws = []

    class Abs(testing.FunctionTestCase):
        dodge_nondifferentiable = True
        skip_double_backward_test = True

        def generate_inputs(self):
            # The first draw sits on the kink of abs; later ones do not.
            x = numpy.array([0.0 if not draws else 0.5, -0.7])
            draws.append(x)
            return (x,)

        def forward(self, inputs, device):
            return (abs(inputs[0]),)

        def forward_expected(self, inputs):
            return (numpy.abs(inputs[0]),)

    Abs("test_backward").run_test_backward(_CPU)
    assert len(draws) >= 2


_CPU_STR = _CPU.get_func_str()
_GPU_STR = testing.BackendConfig({"use_cuda": True}).get_func_str()


def test_generated_names_and_markers():
    # Chainer's naming: one class per backend configuration, then one per
    # parameter set: TestCube_<config>_param_<i>_{...}.
    assert not isinstance(TestCube, type)
    generated = {k: v for k, v in globals().items() if k.startswith("TestCube_")}
    assert len(generated) == 12
    cpu = [k for k in generated if k.startswith(f"TestCube_{_CPU_STR}_param_")]
    gpu = [k for k in generated if k.startswith(f"TestCube_{_GPU_STR}_param_")]
    assert len(cpu) == len(gpu) == 6
    for name in cpu:
        method = generated[name].test_forward
        assert callable(method)
        assert not any(m.name == "gpu" for m in getattr(method, "pytestmark", []))
    for name in gpu:
        marks = [
            m.name for m in getattr(generated[name].test_forward, "pytestmark", [])
        ]
        assert "gpu" in marks


def test_base_classes_are_not_collected_but_subclasses_are():
    for base in (
        testing.FunctionTestCase,
        testing.LinkTestCase,
        testing.LinkInitializersTestCase,
        testing.distribution_unittest,
    ):
        assert base.__test__ is False
        assert type("Sub", (base,), {}).__test__ is True
    assert _CubeTest.__test__ is False
