import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.normalization import group_normalization
from chainer.utils import type_check


def _gn(x, groups, gamma, beta, eps=1e-5):
    rows = x.astype(numpy.float64).reshape(x.shape[0] * groups, -1)
    x_hat = (rows - rows.mean(axis=1, keepdims=True)) / numpy.sqrt(
        rows.var(axis=1, keepdims=True) + eps
    )
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return x_hat.reshape(x.shape) * gamma.reshape(shape) + beta.reshape(shape)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "size": [6, None],
            "shape": [(2, 6, 3), (3, 6)],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestGroupNormalization(testing.LinkTestCase):
    param_names = ("gamma", "beta")

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_params(self):
        gamma = numpy.random.uniform(0.5, 1, 6).astype(self.dtype)
        return gamma, numpy.random.uniform(-1, 1, 6).astype(self.dtype)

    def create_link(self, initializers):
        gamma, beta = initializers
        with chainer.using_config("dtype", self.dtype):
            return group_normalization.GroupNormalization(
                3, self.size, initial_gamma=gamma, initial_beta=beta
            )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        gamma = link.gamma.array.astype(numpy.float64)
        beta = link.beta.array.astype(numpy.float64)
        return (_gn(x, 3, gamma, beta).astype(self.dtype),)


@testing.inject_backend_tests(None, [{}])
class TestGroupNormalizationInitializers(testing.LinkInitializersTestCase):
    param_names = ("gamma", "beta")

    def generate_params(self):
        return 1, 0

    def create_link(self, initializers):
        gamma, beta = initializers
        return group_normalization.GroupNormalization(
            2, initial_gamma=gamma, initial_beta=beta
        )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 4, 3)).astype(numpy.float32),)

    def get_initializers(self):
        return (
            (2, initializers.Constant(-1.0), numpy.arange(4, dtype=numpy.float32)),
            (0.5, initializers.Constant(3.0), numpy.arange(4, dtype=numpy.float32)),
        )


def test_defaults_and_lazy_size():
    link = group_normalization.GroupNormalization(2)
    assert link.groups == 2
    assert link.eps == 1e-5
    assert link.gamma.array is None
    link(numpy.zeros((2, 4, 3), numpy.float32))
    numpy.testing.assert_array_equal(link.gamma.array, numpy.ones(4))
    numpy.testing.assert_array_equal(link.beta.array, numpy.zeros(4))


def test_parameters_are_float32_under_mixed16():
    with chainer.using_config("dtype", chainer.mixed16):
        link = group_normalization.GroupNormalization(2, 4)
    assert link.gamma.dtype == numpy.float32
    y = link(numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float16))
    assert y.dtype == numpy.float16


def test_invalid_input():
    link = group_normalization.GroupNormalization(2, 4)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 6), numpy.float32))
    with pytest.raises(ValueError, match="2 dimensions"):
        group_normalization.GroupNormalization(2)(numpy.zeros(4, numpy.float32))


def test_serialization_round_trip():
    src = group_normalization.GroupNormalization(
        2, 4, initial_gamma=initializers.Normal()
    )
    dst = group_normalization.GroupNormalization(2)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.gamma.array, src.gamma.array)
    numpy.testing.assert_array_equal(dst.beta.array, src.beta.array)


def test_catalogue():
    import chainer.links as L

    assert L.GroupNormalization is group_normalization.GroupNormalization
