import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.normalization import batch_normalization
from chainer.links.normalization import batch_renormalization


def _renorm(x, gamma, beta, rmax, dmax, mean0, var0, eps=2e-5):
    x = x.astype(numpy.float64)
    mean, sigma = x.mean(axis=0), numpy.sqrt(x.var(axis=0) + eps)
    running_sigma = numpy.sqrt(var0 + eps)
    r = numpy.clip(sigma / running_sigma, 1 / rmax, rmax)
    d = numpy.clip((mean - mean0) / running_sigma, -dmax, dmax)
    return gamma * ((x - mean) / sigma * r + d) + beta


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "train": [True, False]}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestBatchRenormalization(testing.LinkTestCase):
    param_names = ("gamma", "beta")

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def before_test(self, test_name):
        config = chainer.using_config("train", self.train)
        config.__enter__()
        self.addCleanup(config.__exit__, None, None, None)

    def generate_params(self):
        gamma = numpy.random.uniform(0.5, 1, 3).astype(self.dtype)
        return gamma, numpy.random.uniform(-1, 1, 3).astype(self.dtype)

    def create_link(self, initializers):
        gamma, beta = initializers
        # Population statistics far from the batch ones saturate r and d,
        # constants of the gradient.
        link = batch_renormalization.BatchRenormalization(
            3,
            rmax=1.5,
            dmax=0.2,
            dtype=self.dtype,
            initial_gamma=gamma,
            initial_beta=beta,
            initial_avg_mean=numpy.array([50.0, -50.0, 50.0]),
            initial_avg_var=100,
        )
        self._stats = (link.avg_mean.copy(), link.avg_var.copy())
        return link

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (6, 3)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        gamma = link.gamma.array.astype(numpy.float64)
        beta = link.beta.array.astype(numpy.float64)
        mean0, var0 = (a.astype(numpy.float64) for a in self._stats)
        if self.train:
            y = _renorm(x, gamma, beta, 1.5, 0.2, mean0, var0)
        else:
            y = gamma * (x - mean0) / numpy.sqrt(var0 + 2e-5) + beta
        return (y.astype(self.dtype),)


def test_statistics_match_batch_normalization():
    x = numpy.random.uniform(-1, 1, (5, 3)).astype(numpy.float32)
    renorm = batch_renormalization.BatchRenormalization(3, rmax=2, dmax=1, decay=0.7)
    bn = batch_normalization.BatchNormalization(3, decay=0.7)
    for i in range(2):
        renorm(x * (i + 1))
        bn(x * (i + 1))
    numpy.testing.assert_allclose(renorm.avg_mean, bn.avg_mean, rtol=1e-6)
    numpy.testing.assert_allclose(renorm.avg_var, bn.avg_var, rtol=1e-6)
    renorm(x, finetune=True)
    bn(x, finetune=True)
    assert renorm.N == 1
    numpy.testing.assert_allclose(renorm.avg_mean, bn.avg_mean, rtol=1e-6)
    renorm.start_finetuning()
    assert renorm.N == 0


def test_rmax_one_and_dmax_zero_is_batch_normalization():
    x = numpy.random.uniform(-1, 1, (5, 3)).astype(numpy.float32)
    renorm = batch_renormalization.BatchRenormalization(3, initial_avg_mean=7)
    bn = batch_normalization.BatchNormalization(3)
    numpy.testing.assert_allclose(renorm(x).array, bn(x).array, rtol=1e-6)


def test_recomputing_leaves_statistics_alone():
    link = batch_renormalization.BatchRenormalization(3)
    with chainer.using_config("in_recomputing", True):
        link(numpy.random.uniform(-1, 1, (5, 3)).astype(numpy.float32))
    numpy.testing.assert_array_equal(link.avg_mean, 0)


@pytest.mark.parametrize("finetune", [False, True])
def test_forget_recomputes_with_the_statistics_of_the_first_call(finetune):
    # F.forget calls the link again in backward; r and d must come from the
    # running statistics the first call saw, not from the updated ones.
    import chainer.functions as F

    x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    gy = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    grads = []
    for use_forget in (False, True):
        link = batch_renormalization.BatchRenormalization(3, rmax=2.0, dmax=1.0)
        xv = chainer.Variable(x)
        if use_forget:
            y = F.forget(lambda v, link=link: link(v, finetune=finetune), xv)
        else:
            y = link(xv, finetune=finetune)
        y.grad = gy
        y.backward()
        grads.append(xv.grad)
        if finetune:
            assert link.N == 1
    numpy.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


def test_size_is_required():
    with pytest.raises(RuntimeError, match="size or axis"):
        batch_renormalization.BatchRenormalization(None)


def test_serialization_round_trip():
    src = batch_renormalization.BatchRenormalization(
        3, rmax=2, initial_gamma=initializers.Normal()
    )
    src(numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32))
    dst = batch_renormalization.BatchRenormalization(3)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.gamma.array, src.gamma.array)
    numpy.testing.assert_array_equal(dst.avg_mean, src.avg_mean)
    numpy.testing.assert_array_equal(dst.avg_var, src.avg_var)


def test_catalogue():
    import chainer.links as L

    assert L.BatchRenormalization is batch_renormalization.BatchRenormalization
