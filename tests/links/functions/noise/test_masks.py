"""Dropout masks: values, drop rate, and repeatability under numpy.random.seed."""

import numpy
import pytest

from chainer.functions.noise import _masks

# Below and above the size at which a seeded PCG64 draws the uniforms.
SHAPES = [(3, 5), (64, 128)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("ratio", [0.0, 0.25, 0.5, 0.9])
def test_values_dtype_and_shape(shape, dtype, ratio):
    mask = _masks.keep_mask(numpy, shape, ratio, dtype)
    assert mask.shape == shape
    assert mask.dtype == dtype
    scale = dtype(1.0 / (1.0 - ratio))
    assert numpy.isin(mask, [0, scale]).all()
    if ratio == 0.0:
        assert (mask == 1).all()


@pytest.mark.parametrize("ratio", [0.1, 0.5, 0.8])
def test_drop_rate(ratio):
    # 200k Bernoulli draws: the dropped fraction is within 5 standard
    # deviations of the ratio (about 0.005 at 0.5).
    mask = _masks.keep_mask(numpy, (400, 500), ratio, numpy.float32)
    dropped = float((mask == 0).mean())
    sd = (ratio * (1 - ratio) / mask.size) ** 0.5
    assert abs(dropped - ratio) < 5 * sd


@pytest.mark.parametrize("shape", SHAPES)
def test_seed_repeats_and_calls_differ(shape):
    def draw_two():
        numpy.random.seed(7)
        return [_masks.keep_mask(numpy, shape, 0.5, numpy.float32) for _ in range(2)]

    first = draw_two()
    second = draw_two()
    for a, b in zip(first, second, strict=True):
        numpy.testing.assert_array_equal(a, b)
    assert not numpy.array_equal(first[0], first[1])


def test_large_masks_take_the_generator(monkeypatch):
    seen = []
    real = _masks._uniforms

    def spy(shape):
        seen.append(shape)
        return real(shape)

    monkeypatch.setattr(_masks, "_uniforms", spy)
    _masks.keep_mask(numpy, (8, 512), 0.5, numpy.float32)
    _masks.keep_mask(numpy, (8, 511), 0.5, numpy.float32)
    assert seen == [(8, 512)]
