import numpy
import pytest

import chainer
from chainer import device_resident
from chainer import gradient_check
from chainer import testing
from chainer.links.loss import black_out
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _black_out(x, t, W, samples):
    pos = (W[t] * x).sum(axis=1)
    neg = numpy.einsum("bsd,bd->bs", W[samples], x)
    logits = numpy.concatenate([pos[:, None], neg], axis=1)
    m = logits.max(axis=1, keepdims=True)
    logz = (m + numpy.log(numpy.exp(logits - m).sum(axis=1, keepdims=True)))[:, 0]
    ny = numpy.log(1 - numpy.exp(neg - logz[:, None])).sum(axis=1)
    return -(pos - logz + ny).mean()


def _make_link(dtype, in_size=3, counts=(3, 1, 2, 4, 5), sample_size=4, batch=5):
    with chainer.using_config("dtype", dtype):
        link = black_out.BlackOut(in_size, list(counts), sample_size)
    link.W.array[...] = numpy.random.uniform(-1, 1, link.W.shape)
    link.sample_data = numpy.random.randint(
        0, len(counts), (batch, sample_size)
    ).astype(numpy.int32)
    return link


@pytest.mark.parametrize("dtype", _FLOATS)
def test_forward(dtype):
    link = _make_link(dtype)
    x = numpy.random.uniform(-1, 1, (5, 3)).astype(dtype)
    t = numpy.random.randint(0, 5, 5).astype(numpy.int32)
    y = link(x, t)
    assert y.shape == ()
    assert y.dtype == dtype
    expected = _black_out(
        x.astype(numpy.float64), t, link.W.array.astype(numpy.float64), link.sample_data
    )
    tol = 5e-3 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_backward(dtype):
    link = _make_link(dtype)
    x = numpy.random.uniform(-1, 1, (5, 3)).astype(dtype)
    t = numpy.random.randint(0, 5, 5).astype(numpy.int32)
    gradient_check.check_backward(
        lambda x: link(x, t),
        x,
        None,
        params=(link.W,),
        dtype=numpy.float64,
        atol=1e-4,
        rtol=1e-3,
    )


def test_samples_are_drawn_from_counts():
    link = black_out.BlackOut(2, [0, 1, 0, 3], 7)
    link.W.array[...] = 0
    samples = link.sampler.sample((100, 7))
    assert samples.dtype == numpy.int32
    assert set(numpy.unique(samples).tolist()) <= {1, 3}
    loss = link(numpy.ones((4, 2), numpy.float32), numpy.zeros(4, numpy.int32))
    # All logits are 0: -log(1/8) - 7 log(7/8).
    testing.assert_allclose(loss.array, numpy.log(8) - 7 * numpy.log(7 / 8), rtol=1e-5)


def test_weight_starts_as_nan():
    link = black_out.BlackOut(3, [1, 1], 2)
    assert link.W.shape == (2, 3)
    assert numpy.isnan(link.W.array).all()


def test_sampler_follows_the_link():
    link = black_out.BlackOut(3, [1, 2], 2)
    visited = []

    class _Visitor(device_resident.DeviceResidentsVisitor):
        def visit_variable(self, param):
            visited.append(param)

    link.device_resident_accept(_Visitor())
    assert visited == [link.W]
    link.to_device("@numpy")
    assert link.sampler.device == link.device
    assert link.sampler.sample((2, 2)).shape == (2, 2)


def test_wrong_input_size_is_invalid():
    link = _make_link(numpy.float32)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((5, 4), numpy.float32), numpy.zeros(5, numpy.int32))


def test_serialization_round_trip():
    src = _make_link(numpy.float32)
    dst = black_out.BlackOut(3, [3, 1, 2, 4, 5], 4)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)


@pytest.mark.parametrize("label", [5, -1])
def test_out_of_range_label_raises(label):
    link = _make_link(numpy.float32)
    x = numpy.zeros((5, 3), numpy.float32)
    t = numpy.array([0, 1, label, 3, 4], numpy.int32)
    with pytest.raises(ValueError, match=rf"black_out: t\[2\] = {label} is out"):
        link(x, t)
