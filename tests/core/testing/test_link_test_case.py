import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing


class _Affine(chainer.Link):
    """y = x * W + b (elementwise), with a configurable defect."""

    def __init__(self, initialW, initial_bias, defect=None):
        super().__init__()
        self.defect = defect
        with self.init_scope():
            self.W = chainer.Parameter(initialW, (3,))
            self.b = chainer.Parameter(
                initializers.Zero() if initial_bias is None else initial_bias, (3,)
            )

    def forward(self, x):
        if self.defect == "forward":
            return x * self.W + self.b + 0.1
        if self.defect == "backward":
            # Right value, wrong gradient for W: W is seen as a constant.
            return x * chainer.Variable(self.W.array) + self.b
        return x * self.W + self.b


class _AffineMixin:
    param_names = ("W", "b")
    defect = None

    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_params(self):
        initial_w = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32)
        initial_b = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32)
        return initial_w, initial_b

    def create_link(self, initializers):
        initial_w, initial_b = initializers
        return _Affine(initial_w, initial_b, self.defect)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        return (x * link.W.array + link.b.array,)


@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestAffine(_AffineMixin, testing.LinkTestCase):
    pass


@testing.inject_backend_tests(None, [{}])
class TestAffineInitializers(_AffineMixin, testing.LinkInitializersTestCase):
    def get_initializers(self):
        return (
            (initializers.Constant(2.0), 3.0, numpy.arange(3, dtype=numpy.float32)),
            (testing.InitializerArgument(None, initializers.Zero()), 1.5),
        )


_CPU = testing.BackendConfig({})


class _AffineCase(_AffineMixin, testing.LinkTestCase):
    __test__ = False


class _AffineInitCase(_AffineMixin, testing.LinkInitializersTestCase):
    __test__ = False


def _case(cls, name, **attrs):
    case = type("Case", (cls,), attrs)(name)
    case.setUp()
    return case


def test_injected_names():
    cpu = _CPU.get_func_str()
    gpu = testing.BackendConfig({"use_cuda": True}).get_func_str()
    assert callable(globals()[f"TestAffine_{cpu}"].test_forward)
    assert callable(globals()[f"TestAffine_{gpu}"].test_backward)
    assert callable(globals()[f"TestAffineInitializers_{cpu}"].test_initializers)
    assert "TestAffine" not in globals() or not isinstance(
        globals()["TestAffine"], type
    )


def test_wrong_forward_fails():
    case = _case(_AffineCase, "test_forward", defect="forward")
    with pytest.raises(testing.LinkTestError, match="do not match"):
        case.test_forward(_CPU)


def test_wrong_param_gradient_fails():
    case = _case(_AffineCase, "test_backward", defect="backward")
    case.test_forward(_CPU)
    with pytest.raises(testing.LinkTestError, match="backward is not implemented"):
        case.test_backward(_CPU)


def test_unknown_param_name_fails():
    case = _case(_AffineCase, "test_backward", param_names=("W", "nope"))
    with pytest.raises(testing.LinkTestError, match="nope"):
        case.test_backward(_CPU)


def test_create_link_must_return_link():
    case = _case(_AffineCase, "test_forward", create_link=lambda self, i: object())
    with pytest.raises(TypeError, match="chainer.Link"):
        case.test_forward(_CPU)


def test_generate_params_must_be_sequence():
    case = _case(_AffineCase, "test_forward", generate_params=lambda self: 3.0)
    with pytest.raises(TypeError, match="generate_params"):
        case.test_forward(_CPU)
    case = _case(_AffineCase, "test_forward", generate_params=lambda self: (None, 1))
    with pytest.raises(ValueError, match="cannot be None"):
        case.test_forward(_CPU)


def test_initializers_mismatch_fails():
    class Wrong(_AffineInitCase):
        def create_link(self, inits):
            link = super().create_link(inits)
            link.W.array[...] = 7  # ignores its initializer
            return link

        def get_initializers(self):
            return ((initializers.Constant(2.0),), (1.0,))

    case = _case(Wrong, "test_initializers")
    with pytest.raises(testing.LinkTestError, match="do not match"):
        case.test_initializers(_CPU)


def test_get_initializers_validation():
    case = _case(_AffineInitCase, "test_initializers", get_initializers=lambda s: 1)
    with pytest.raises(TypeError, match="get_initializers"):
        case.test_initializers(_CPU)
    case = _case(
        _AffineInitCase, "test_initializers", get_initializers=lambda s: ((1.0,),)
    )
    with pytest.raises(ValueError, match="param_names"):
        case.test_initializers(_CPU)


def test_initializer_argument_validation():
    with pytest.raises(ValueError, match="cannot be None"):
        testing.InitializerArgument(None, None)
    with pytest.raises(TypeError, match="initializer-like"):
        testing.InitializerArgument(None, "text")
    arg = testing.InitializerArgument(None, 2.0)
    assert arg.argument_value is None
    assert arg.expected_initializer == 2.0
