"""chainer.utils.walker_alias: Walker's alias method sampler."""

import numpy
import pytest

import chainer
from chainer import backend
from chainer.utils import walker_alias


def _frequencies(sampler, n=200000, seed=0):
    numpy.random.seed(seed)
    samples = sampler.sample((n,))
    return numpy.bincount(samples, minlength=len(sampler.threshold)) / n


@pytest.mark.parametrize(
    "probs",
    [
        [1.0],
        [0.3, 0.7],
        [1.0, 2.0, 3.0, 4.0],
        [0.0, 5.0, 0.0, 1.0, 0.0],
        [0.05] * 20,
        list(numpy.random.RandomState(3).uniform(0, 1, 37)),
    ],
)
def test_samples_follow_the_distribution(probs):
    sampler = walker_alias.WalkerAlias(probs)
    expected = numpy.asarray(probs, numpy.float64) / numpy.sum(probs)
    freq = _frequencies(sampler)
    numpy.testing.assert_allclose(freq, expected, atol=0.006)
    # Zero-probability entries are never drawn.
    assert (freq[expected == 0] == 0).all()


def test_tables_have_chainers_layout():
    sampler = walker_alias.WalkerAlias([1.0, 3.0])
    assert sampler.threshold.dtype == numpy.float32
    assert sampler.threshold.shape == (2,)
    assert sampler.values.dtype == numpy.int32
    assert sampler.values.shape == (4,)  # (own value, alias) per slot
    assert ((sampler.values >= 0) & (sampler.values < 2)).all()
    assert ((sampler.threshold >= 0) & (sampler.threshold <= 1)).all()
    # Slot i keeps value i with probability threshold[i]; in total every
    # value gets n * p of the slots' mass.
    n = len(sampler.threshold)
    mass = numpy.zeros(n)
    for i in range(n):
        mass[sampler.values[2 * i]] += sampler.threshold[i]
        mass[sampler.values[2 * i + 1]] += 1 - sampler.threshold[i]
    numpy.testing.assert_allclose(mass / n, [0.25, 0.75], rtol=1e-6)


def test_sample_shape_and_dtype():
    sampler = walker_alias.WalkerAlias([0.2, 0.8])
    s = sampler.sample((3, 4, 5))
    assert s.shape == (3, 4, 5)
    assert s.dtype == numpy.int32
    assert isinstance(s, numpy.ndarray)


def test_reproducible_with_numpy_seed():
    sampler = walker_alias.WalkerAlias([0.1, 0.2, 0.7])
    numpy.random.seed(7)
    a = sampler.sample((50,))
    numpy.random.seed(7)
    b = sampler.sample((50,))
    numpy.testing.assert_array_equal(a, b)


def test_device_and_moves():
    sampler = walker_alias.WalkerAlias([0.5, 0.5])
    assert sampler.device == backend.CpuDevice()
    assert sampler.use_gpu is False
    assert sampler.to_device("@numpy") is sampler
    assert sampler.to_cpu() is sampler
    assert isinstance(sampler.threshold, numpy.ndarray)


def test_same_class_in_utils():
    assert chainer.utils.WalkerAlias is walker_alias.WalkerAlias


@pytest.mark.parametrize(
    "probs", [[], [[0.5, 0.5]], [0.5, -0.1], [0.0, 0.0], [numpy.inf, 1.0]]
)
def test_bad_probabilities(probs):
    with pytest.raises(ValueError, match="probs"):
        walker_alias.WalkerAlias(probs)
