"""chainer.functions.normalization.moments: the public per-channel statistics."""

import numpy
import pytest

import chainer.functions as F
from chainer.functions.normalization import moments


def test_public_names_are_documented():
    assert sorted(moments.__all__) == [
        "Layout",
        "canonical_axis",
        "compute_dtype",
        "get_layout",
    ]
    assert moments.__doc__
    for name in moments.__all__:
        assert getattr(moments, name).__doc__, name


@pytest.mark.parametrize(
    ("x_dtype", "param_dtype", "expected"),
    [
        (numpy.float16, numpy.float16, numpy.float32),
        (numpy.float16, numpy.float32, numpy.float32),
        (numpy.float32, numpy.float32, numpy.float32),
        (numpy.float32, numpy.float64, numpy.float64),
        (numpy.float64, numpy.float16, numpy.float64),
    ],
)
def test_compute_dtype_promotes_half_precision(x_dtype, param_dtype, expected):
    dtype = moments.compute_dtype(numpy.dtype(x_dtype), numpy.dtype(param_dtype))
    assert dtype == numpy.dtype(expected)


def test_canonical_axis():
    assert moments.canonical_axis(None, 4, 1) == (0, 2, 3)
    assert moments.canonical_axis(None, 4, 2) == (0, 3)
    assert moments.canonical_axis(-1, 4, 1) == (3,)
    assert moments.canonical_axis((0, -2), 4, 1) == (0, 2)


def test_layout_sums_per_channel():
    x = numpy.arange(2 * 3 * 4, dtype=numpy.float64).reshape(2, 3, 4)
    layout = moments.get_layout(x.shape, (0, 2))
    assert isinstance(layout, moments.Layout)
    assert moments.get_layout(x.shape, (0, 2)) is layout
    assert layout.count == 8
    assert layout.channels == 3
    numpy.testing.assert_allclose(layout.sum(layout.view(x)), x.sum(axis=(0, 2)))
    numpy.testing.assert_allclose(
        layout.dot(layout.view(x), layout.view(x)), (x * x).sum(axis=(0, 2))
    )


def test_statistics_match_batch_normalization():
    # What the helpers compute is what F.batch_normalization normalizes by.
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((5, 3, 2)).astype(numpy.float16)
    gamma = numpy.ones(3, numpy.float16)
    beta = numpy.zeros(3, numpy.float16)
    y = F.batch_normalization(x, gamma, beta, eps=1e-5)
    dtype = moments.compute_dtype(x.dtype, gamma.dtype)
    axis = moments.canonical_axis(None, x.ndim, gamma.ndim)
    xc = x.astype(dtype)
    mean = xc.mean(axis=axis, keepdims=True)
    var = xc.var(axis=axis, keepdims=True)
    expected = (xc - mean) / numpy.sqrt(var + 1e-5)
    assert y.dtype == numpy.float16
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-2, atol=1e-2)
