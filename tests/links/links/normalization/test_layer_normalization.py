import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.normalization import layer_normalization
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "size": [5, None]}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestLayerNormalization(testing.LinkTestCase):
    param_names = ("gamma", "beta")

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def before_test(self, test_name):
        # A lazily initialized parameter takes the default dtype of its first
        # forward pass, as in Chainer.
        config = chainer.using_config("dtype", self.dtype)
        config.__enter__()
        self.addCleanup(config.__exit__, None, None, None)

    def generate_params(self):
        gamma = numpy.random.uniform(0.5, 1, 5).astype(self.dtype)
        return gamma, numpy.random.uniform(-1, 1, 5).astype(self.dtype)

    def create_link(self, initializers):
        gamma, beta = initializers
        return layer_normalization.LayerNormalization(
            self.size, initial_gamma=gamma, initial_beta=beta
        )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (3, 5)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        x = inputs[0].astype(numpy.float64)
        x_hat = (x - x.mean(axis=1, keepdims=True)) / numpy.sqrt(
            x.var(axis=1, keepdims=True) + 1e-6
        )
        y = x_hat * link.gamma.array + link.beta.array
        return (y.astype(self.dtype),)


@testing.inject_backend_tests(None, [{}])
class TestLayerNormalizationInitializers(testing.LinkInitializersTestCase):
    param_names = ("gamma", "beta")

    def generate_params(self):
        return 1, 0

    def create_link(self, initializers):
        gamma, beta = initializers
        return layer_normalization.LayerNormalization(
            initial_gamma=gamma, initial_beta=beta
        )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32),)

    def get_initializers(self):
        return (
            (2, initializers.Constant(-1.0), numpy.arange(3, dtype=numpy.float32)),
            (0.5, initializers.Constant(3.0), numpy.arange(3, dtype=numpy.float32)),
        )


def test_defaults():
    link = layer_normalization.LayerNormalization()
    assert link.eps == 1e-6
    assert link.gamma.array is None
    link(numpy.zeros((2, 3), numpy.float32))
    numpy.testing.assert_array_equal(link.gamma.array, numpy.ones(3))
    numpy.testing.assert_array_equal(link.beta.array, numpy.zeros(3))


def test_invalid_input():
    lazy = layer_normalization.LayerNormalization()
    with pytest.raises(type_check.InvalidType, match="x.ndim == 2"):
        lazy(numpy.zeros((2, 3, 4), numpy.float32))
    assert lazy.gamma.array is None
    link = layer_normalization.LayerNormalization(3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 4), numpy.float32))
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 3), numpy.float64))


def test_serialization_round_trip():
    src = layer_normalization.LayerNormalization(3, initial_gamma=initializers.Normal())
    dst = layer_normalization.LayerNormalization()
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.gamma.array, src.gamma.array)
    numpy.testing.assert_array_equal(dst.beta.array, src.beta.array)


def test_catalogue():
    import chainer.links as L

    assert L.LayerNormalization is layer_normalization.LayerNormalization
