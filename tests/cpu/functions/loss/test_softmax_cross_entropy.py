"""chainer-cpu's SoftmaxCrossEntropy kernel: the catalogue's rows, split and blocked."""

import numpy
import pytest

import chainer
from chainer import plugins
from chainer.functions.loss import softmax_cross_entropy as sce
from chainer_cpu.functions.loss import softmax_cross_entropy as cpu_sce


def test_registered_for_numpy(cpu_plugin):
    assert (
        plugins.get_kernel(sce.SoftmaxCrossEntropy, "numpy")
        is cpu_sce.softmax_cross_entropy
    )


def _inputs(dtype, n=37, k=cpu_sce.PARALLEL_MIN // 32, ignored=()):
    rng = numpy.random.RandomState(3)
    x = (rng.standard_normal((n, k)) * 4).astype(dtype)
    t = rng.randint(0, k, n).astype(numpy.int32)
    t[list(ignored)] = -1
    return x, t


def _tol(dtype):
    # The row sums are BLAS products of blocks of rows, whose summation order
    # may differ from that of the product over all rows.
    if dtype == numpy.float16:
        return {"rtol": 1e-3, "atol": 1e-7}
    return {"rtol": 1e-5 if dtype == numpy.float32 else 1e-12, "atol": 0}


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("l2_bytes", [1 << 10, 1 << 16, 1 << 21])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("ignored", [(), (0, 5, 36)])
def test_matches_the_catalogue_forward(
    cpu_team, monkeypatch, threads, l2_bytes, dtype, ignored
):
    # One row per block (tiny L2) up to whole ranges per block, on one
    # thread or on a team; with and without ignored labels.
    cpu_team(threads)
    monkeypatch.setattr(cpu_sce._machine, "cache_bytes", lambda level: l2_bytes)
    x, t = _inputs(dtype, ignored=ignored)
    assert x.size >= cpu_sce.PARALLEL_MIN
    node = sce.SoftmaxCrossEntropy()
    (loss,) = cpu_sce.softmax_cross_entropy(node, (x, t))
    ref = sce.SoftmaxCrossEntropy()
    (expected,) = ref.forward((x, t))
    assert loss.dtype == expected.dtype == dtype
    numpy.testing.assert_allclose(loss, expected, **_tol(dtype))
    assert node._gx_unit.dtype == dtype
    numpy.testing.assert_allclose(node._gx_unit, ref._gx_unit, **_tol(dtype))
    assert node.coeff == ref.coeff
    assert node._input_indexes_to_retain == ref._input_indexes_to_retain


def test_other_cases_run_the_catalogue_forward(cpu_team):
    cpu_team(2)
    # Small input, soft targets, class weights: the catalogue's own paths.
    x, t = _inputs(numpy.float32, n=4, k=6)
    node = sce.SoftmaxCrossEntropy()
    numpy.testing.assert_array_equal(
        cpu_sce.softmax_cross_entropy(node, (x, t))[0],
        sce.SoftmaxCrossEntropy().forward((x, t))[0],
    )
    x, t = _inputs(numpy.float32)
    soft = numpy.full(x.shape, 1.0 / x.shape[1], numpy.float32)
    node = sce.SoftmaxCrossEntropy()
    (loss,) = cpu_sce.softmax_cross_entropy(node, (x, soft))
    numpy.testing.assert_allclose(
        loss, sce.SoftmaxCrossEntropy().forward((x, soft))[0], rtol=1e-6
    )
    assert node._gx_unit is None
    weights = numpy.ones(x.shape[1], numpy.float32)
    node = sce.SoftmaxCrossEntropy(class_weight=weights)
    (weighted,) = cpu_sce.softmax_cross_entropy(node, (x, t))
    assert node._gx_unit is None
    (plain,) = sce.SoftmaxCrossEntropy().forward((x, t))
    numpy.testing.assert_allclose(weighted, plain, rtol=1e-6)


def test_out_of_range_label_raises(cpu_team):
    cpu_team(2)
    x, t = _inputs(numpy.float32)
    t[3] = x.shape[1]
    with pytest.raises(ValueError, match="out of range"):
        cpu_sce.softmax_cross_entropy(sce.SoftmaxCrossEntropy(), (x, t))


def test_gradient_through_the_plugin(cpu_plugin, cpu_team):
    cpu_team(2)
    x, t = _inputs(numpy.float32, ignored=(2,))
    xv = chainer.Variable(x)
    loss = chainer.functions.softmax_cross_entropy(xv, t)
    (loss * 3).backward()
    y = numpy.exp(x - x.max(axis=1, keepdims=True))
    y /= y.sum(axis=1, keepdims=True)
    y[numpy.arange(len(t)), numpy.maximum(t, 0)] -= 1
    y[t == -1] = 0
    numpy.testing.assert_allclose(xv.grad, y * 3 / (len(t) - 1), rtol=1e-5, atol=1e-9)
