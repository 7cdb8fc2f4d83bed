import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.links.loss import negative_sampling
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _negative_sampling(x, t, W, samples):
    # samples[:, 0] is t, the positive example.
    wx = numpy.einsum("bkd,bd->bk", W[samples], x)
    wx[:, 0] *= -1
    loss = numpy.logaddexp(0, wx).sum(axis=1)
    return numpy.where(t == -1, 0, loss)


class _FixedSampler:
    def __init__(self, samples):
        self.samples = samples

    def sample(self, shape):
        assert shape == self.samples.shape
        return self.samples.copy()


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_forward(dtype, reduce):
    link = negative_sampling.NegativeSampling(3, [3, 1, 2, 4, 5], 2, dtype=dtype)
    assert link.W.dtype == dtype
    numpy.testing.assert_array_equal(link.W.array, numpy.zeros((5, 3)))
    link.W.array[...] = numpy.random.uniform(-1, 1, link.W.shape)
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(dtype)
    t = numpy.array([0, 4, -1, 2], numpy.int32)
    y, samples = link(x, t, reduce=reduce, return_samples=True)
    assert samples.shape == (4, 3)
    numpy.testing.assert_array_equal(samples[:, 0], t)
    assert y.dtype == dtype
    expected = _negative_sampling(
        x.astype(numpy.float64), t, link.W.array.astype(numpy.float64), samples
    )
    if reduce == "sum":
        expected = expected.sum()
    tol = 5e-3 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_backward(reduce):
    link = negative_sampling.NegativeSampling(3, [3, 1, 2, 4, 5], 2, dtype="d")
    link.W.array[...] = numpy.random.uniform(-1, 1, link.W.shape)
    t = numpy.array([0, 4, -1, 2], numpy.int32)
    samples = numpy.random.randint(0, 5, (4, 3)).astype(numpy.int32)
    link.sampler = _FixedSampler(samples)
    x = numpy.random.uniform(-1, 1, (4, 3))
    gy = None if reduce == "sum" else numpy.random.uniform(-1, 1, 4)
    gradient_check.check_backward(
        lambda x: link(x, t, reduce), x, gy, params=(link.W,), atol=1e-5, rtol=1e-4
    )


def test_sampler_follows_power_distribution():
    counts = [1, 16, 81]
    link = negative_sampling.NegativeSampling(2, counts, 3, power=0.5)
    samples = link.sampler.sample((30000,))
    freq = numpy.bincount(samples, minlength=3) / samples.size
    testing.assert_allclose(freq, numpy.array([1, 4, 9]) / 14, atol=0.02)
    assert link.sample_size == 3


def test_default_dtype():
    with chainer.using_config("dtype", numpy.float64):
        link = negative_sampling.NegativeSampling(2, [1, 2], 1)
    assert link.W.dtype == numpy.float64


def test_unknown_keyword_is_rejected():
    link = negative_sampling.NegativeSampling(2, [1, 2], 1)
    x = numpy.zeros((1, 2), numpy.float32)
    with pytest.raises(TypeError, match="unexpected"):
        link(x, numpy.zeros(1, numpy.int32), nope=True)


def test_wrong_input_size_is_invalid():
    link = negative_sampling.NegativeSampling(2, [1, 2], 1)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((1, 3), numpy.float32), numpy.zeros(1, numpy.int32))


def test_to_device_moves_sampler():
    link = negative_sampling.NegativeSampling(2, [1, 2], 1)
    link.to_device("@numpy")
    assert link.sampler.device == link.device


def test_serialization_round_trip():
    src = negative_sampling.NegativeSampling(2, [1, 2, 3], 1)
    src.W.array[...] = numpy.random.uniform(-1, 1, src.W.shape)
    dst = negative_sampling.NegativeSampling(2, [1, 2, 3], 1)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)


@pytest.mark.parametrize("label", [5, -2])
def test_out_of_range_label_raises(label):
    link = negative_sampling.NegativeSampling(3, [3, 1, 2, 4, 5], 2)
    x = numpy.zeros((3, 3), numpy.float32)
    t = numpy.array([0, -1, label], numpy.int32)
    with pytest.raises(ValueError, match=rf"negative_sampling: t\[2\] = {label} "):
        link(x, t)
