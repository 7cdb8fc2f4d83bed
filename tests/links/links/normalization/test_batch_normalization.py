import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.normalization import batch_normalization
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _normalize(x, axes, gamma, beta, mean=None, var=None, eps=2e-5):
    x = x.astype(numpy.float64)
    if mean is None:
        mean = x.mean(axis=axes, keepdims=True)
        var = x.var(axis=axes, keepdims=True)
    shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
    gamma, beta = gamma.reshape(shape), beta.reshape(shape)
    mean, var = numpy.reshape(mean, shape), numpy.reshape(var, shape)
    return gamma * (x - mean) / numpy.sqrt(var + eps) + beta


@testing.parameterize(
    *testing.product(
        {
            # (x shape, size, axis); axis (0, 1) when given.
            "shapes": [((5, 3), 3, None), ((3, 4, 2, 2), 4, None), ((3, 2, 4), 4, 1)],
            "dtype": _FLOATS,
            "train": [True, False],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBatchNormalization(testing.LinkTestCase):
    param_names = ("gamma", "beta")

    def setUp(self):
        self.x_shape, self.size, self.axis = self.shapes
        if self.axis is None:
            self.axes = (0, *range(2, len(self.x_shape)))
        else:
            self.axes = (0, 1)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def before_test(self, test_name):
        self._train = chainer.using_config("train", self.train)
        self._train.__enter__()
        self.addCleanup(self._train.__exit__, None, None, None)

    def generate_params(self):
        gamma = numpy.random.uniform(0.5, 1, self.size)
        beta = numpy.random.uniform(-1, 1, self.size)
        return gamma.astype(self.dtype), beta.astype(self.dtype)

    def create_link(self, initializers):
        gamma, beta = initializers
        axis = None if self.axis is None else (0, 1)
        link = batch_normalization.BatchNormalization(
            self.size,
            dtype=self.dtype,
            initial_gamma=gamma,
            initial_beta=beta,
            axis=axis,
            initial_avg_mean=numpy.random.uniform(-1, 1, self.size),
            initial_avg_var=numpy.random.uniform(0.5, 1, self.size),
        )
        self._stats = (link.avg_mean.copy(), link.avg_var.copy())
        return link

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        gamma = link.gamma.array.astype(numpy.float64)
        beta = link.beta.array.astype(numpy.float64)
        if self.train:
            y = _normalize(x, self.axes, gamma, beta)
        else:
            mean, var = self._stats
            y = _normalize(x, self.axes, gamma, beta, mean, var)
        return (y.astype(self.dtype),)


@testing.inject_backend_tests(None, [{}])
class TestBatchNormalizationInitializers(testing.LinkInitializersTestCase):
    param_names = ("gamma", "beta")

    def generate_params(self):
        return 1, 0

    def create_link(self, initializers):
        gamma, beta = initializers
        return batch_normalization.BatchNormalization(
            3, initial_gamma=gamma, initial_beta=beta
        )

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32),)

    def get_initializers(self):
        return (
            (2, initializers.Constant(-1.0), numpy.arange(3, dtype=numpy.float32)),
            (0.5, initializers.Constant(3.0), numpy.arange(3, dtype=numpy.float32)),
        )


def test_running_statistics_in_training():
    link = batch_normalization.BatchNormalization(3, decay=0.8)
    x = numpy.random.uniform(-1, 1, (4, 3, 2)).astype(numpy.float32)
    link(x)
    x64 = x.astype(numpy.float64)
    numpy.testing.assert_allclose(link.avg_mean, 0.2 * x64.mean(axis=(0, 2)), 1e-5)
    expected = 0.8 + 0.2 * x64.var(axis=(0, 2)) * 8 / 7
    numpy.testing.assert_allclose(link.avg_var, expected, 1e-5)
    assert link.N == 0


def test_test_mode_uses_population_statistics():
    link = batch_normalization.BatchNormalization(
        3, initial_avg_mean=1, initial_avg_var=4
    )
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    with chainer.using_config("train", False):
        y = link(x)
    numpy.testing.assert_allclose(y.array, (x - 1) / numpy.sqrt(4 + 2e-5), rtol=1e-6)
    numpy.testing.assert_array_equal(link.avg_mean, 1)


def test_finetuning_gives_the_cumulative_average():
    link = batch_normalization.BatchNormalization(3)
    xs = [numpy.random.uniform(-1, 1, (5, 3)) for _ in range(3)]
    link(xs[0].astype(numpy.float32))
    for x in xs:
        link(x.astype(numpy.float32), finetune=True)
    assert link.N == 3
    means = [x.astype(numpy.float32).astype(numpy.float64).mean(axis=0) for x in xs]
    numpy.testing.assert_allclose(link.avg_mean, numpy.mean(means, axis=0), 1e-5)
    variances = [x.astype(numpy.float32).var(axis=0) * 5 / 4 for x in xs]
    numpy.testing.assert_allclose(link.avg_var, numpy.mean(variances, axis=0), 1e-5)
    link.start_finetuning()
    assert link.N == 0
    link(xs[1].astype(numpy.float32), finetune=True)
    numpy.testing.assert_allclose(link.avg_mean, means[1], 1e-5)


def test_recomputing_leaves_statistics_alone():
    link = batch_normalization.BatchNormalization(3)
    x = numpy.random.uniform(-1, 1, (5, 3)).astype(numpy.float32)
    with chainer.using_config("in_recomputing", True):
        link(x)
        link(x, finetune=True)
    numpy.testing.assert_array_equal(link.avg_mean, 0)
    numpy.testing.assert_array_equal(link.avg_var, 1)
    assert link.N == 0


def test_lazy_initialization_with_axis():
    link = batch_normalization.BatchNormalization(axis=(0, 2))
    assert link.avg_mean is None
    assert link.gamma.array is None
    x = numpy.random.uniform(-1, 1, (4, 3, 2)).astype(numpy.float32)
    y = link(x)
    assert link.avg_mean.shape == (3,)
    assert link.gamma.shape == (3,)
    numpy.testing.assert_allclose(y.array.mean(axis=(0, 2)), 0, atol=1e-6)
    link = batch_normalization.BatchNormalization(axis=0)
    link(x)
    assert link.gamma.shape == (3, 2)


def test_size_or_axis_is_required():
    with pytest.raises(RuntimeError, match="size or axis"):
        batch_normalization.BatchNormalization()


def test_without_gamma_and_beta():
    link = batch_normalization.BatchNormalization(3, use_gamma=False, use_beta=False)
    assert link.gamma is None
    assert link.beta is None
    assert list(link.params()) == []
    x = numpy.random.uniform(-1, 1, (5, 3)).astype(numpy.float32)
    y = link(x)
    expected = (x - x.mean(axis=0)) / numpy.sqrt(x.var(axis=0) + 2e-5)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


def test_dtypes():
    link = batch_normalization.BatchNormalization(3, dtype=numpy.float64)
    assert link.gamma.dtype == numpy.float64
    assert link.avg_mean.dtype == numpy.float64
    y = link(numpy.ones((2, 3), numpy.float32))
    assert y.dtype == numpy.float32
    with chainer.using_config("dtype", chainer.mixed16):
        link = batch_normalization.BatchNormalization(3)
    assert link.gamma.dtype == numpy.float32
    assert link.avg_var.dtype == numpy.float32
    y = link(numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float16))
    assert y.dtype == numpy.float16
    # An array initializer takes the link's dtype.
    link = batch_normalization.BatchNormalization(3, initial_gamma=numpy.arange(3.0))
    assert link.gamma.dtype == numpy.float32


def test_user_initializer_is_not_modified():
    init = initializers.Constant(2.0, dtype=numpy.float64)
    link = batch_normalization.BatchNormalization(3, initial_gamma=init)
    assert link.gamma.dtype == numpy.float32
    assert init.dtype == numpy.float64


def test_invalid_input_and_arguments():
    link = batch_normalization.BatchNormalization(3)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 4), numpy.float32))
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(ValueError, match="using_config"):
        link(x, test=True)
    with pytest.raises(TypeError, match="foo"):
        link(x, foo=1)


def test_serialization_round_trip():
    src = batch_normalization.BatchNormalization(3, initial_gamma=initializers.Normal())
    src(numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32), finetune=True)
    dst = batch_normalization.BatchNormalization(3)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.gamma.array, src.gamma.array)
    numpy.testing.assert_array_equal(dst.beta.array, src.beta.array)
    numpy.testing.assert_array_equal(dst.avg_mean, src.avg_mean)
    numpy.testing.assert_array_equal(dst.avg_var, src.avg_var)
    assert dst.N == 1


def test_serialization_round_trip_of_a_lazy_link():
    src = batch_normalization.BatchNormalization(axis=(0, 2))
    src(numpy.random.uniform(-1, 1, (4, 3, 2)).astype(numpy.float32))
    dst = batch_normalization.BatchNormalization(axis=(0, 2))
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.avg_mean, src.avg_mean)
    numpy.testing.assert_array_equal(dst.gamma.array, src.gamma.array)
    x = numpy.random.uniform(-1, 1, (4, 3, 2)).astype(numpy.float32)
    with chainer.using_config("train", False):
        numpy.testing.assert_array_equal(dst(x).array, src(x).array)


def test_catalogue():
    import chainer.links as L

    assert L.BatchNormalization is batch_normalization.BatchNormalization


def test_tuple_size():
    link = batch_normalization.BatchNormalization((3, 2))
    assert link.gamma.shape == (3, 2)
    x = numpy.random.uniform(-1, 1, (4, 3, 2, 5)).astype(numpy.float32)
    y = link(x)
    numpy.testing.assert_allclose(y.array.mean(axis=(0, 3)), 0, atol=1e-6)
    assert link.avg_var.shape == (3, 2)
