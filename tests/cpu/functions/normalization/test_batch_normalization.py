"""chainer-cpu's batch normalization kernels against the catalogue's reference.

The kernels of ``chainer_cpu.functions.normalization.batch_normalization``
run for NumPy inputs while the plugin is registered; they give what the
nodes' own ``forward`` gives (outputs and the state that ``backward``
reads), for C-order, batch-innermost and strided inputs in every float
dtype, and the public functions' gradients stay exact through them.
"""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer import plugins
from chainer.functions.normalization import batch_normalization as bn
from chainer_cpu.functions.normalization import batch_normalization as cpu_bn
from chainer_cpu.functions.normalization import moments as cpu_moments

_LAYOUTS = ["c_order", "batch_innermost", "strided"]
_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
# (x shape, gamma shape, axis): per-channel maps of 1, 12 and 300 elements,
# two channel axes, and channel axes that are not adjacent.
_SHAPES = [
    ((5, 3), (3,), None),
    ((4, 3, 3, 4), (3,), None),
    ((3, 2, 15, 20), (2,), None),
    ((3, 2, 3, 2), (2, 3), None),
    ((3, 4, 5), (3, 5), (1,)),
]


def _make(rng, shape, layout, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    if layout == "batch_innermost" and a.ndim >= 3:
        order = (1, *range(2, a.ndim), 0)
        return numpy.ascontiguousarray(a.transpose(order)).transpose(
            numpy.argsort(order)
        )
    if layout == "strided":
        return rng.standard_normal((*shape[:-1], 2 * shape[-1])).astype(dtype)[
            ..., 1::2
        ]
    return a


def _is_batch_innermost(a):
    return a.transpose(1, *range(2, a.ndim), 0).flags.c_contiguous


def _tol(dtype):
    if dtype == numpy.float16:
        return {"rtol": 1e-2, "atol": 1e-2}
    if dtype == numpy.float32:
        return {"rtol": 1e-5, "atol": 1e-5}
    return {"rtol": 1e-12, "atol": 1e-12}


@pytest.fixture
def spy(monkeypatch):
    """Counts calls of ``cpu_bn._inv_std`` and ``cpu_moments.channel_sum``."""
    calls = {"inv_std": 0, "channel_sum": 0}
    inv_std, channel_sum = cpu_bn._inv_std, cpu_moments.channel_sum

    def counting_inv_std(*args):
        calls["inv_std"] += 1
        return inv_std(*args)

    def counting_channel_sum(*args):
        calls["channel_sum"] += 1
        return channel_sum(*args)

    monkeypatch.setattr(cpu_bn, "_inv_std", counting_inv_std)
    monkeypatch.setattr(cpu_moments, "channel_sum", counting_channel_sum)
    return calls


@pytest.mark.parametrize(
    ("node_class", "kernel"),
    [
        (bn.BatchNormalization, cpu_bn.batch_normalization),
        (bn.BatchNormalizationGrad, cpu_bn.batch_normalization_grad),
        (bn.FixedBatchNormalization, cpu_bn.fixed_batch_normalization),
    ],
)
def test_kernels_registered_for_numpy(cpu_plugin, node_class, kernel):
    assert plugins.get_kernel(node_class, "numpy") is kernel


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize(("shape", "gshape", "axis"), _SHAPES)
def test_training_forward_and_gradient_match_the_reference(
    cpu_plugin, spy, shape, gshape, axis, layout, dtype
):
    rng = numpy.random.default_rng(1)
    x = _make(rng, shape, layout, dtype)
    gy = _make(rng, shape, layout, dtype)
    gamma = rng.uniform(0.5, 1.5, gshape).astype(dtype)
    beta = rng.standard_normal(gshape).astype(dtype)
    stats = [rng.standard_normal(gshape).astype(dtype) for _ in range(2)]
    ref_stats = [s.copy() for s in stats]

    node = bn.BatchNormalization(2e-5, *stats, 0.8, axis)
    (y,) = node.apply((x, gamma, beta))
    assert spy["inv_std"] == 1
    ref = bn.BatchNormalization(2e-5, *ref_stats, 0.8, axis)
    (expected,) = ref.forward((x, gamma, beta))
    assert y.dtype == dtype
    assert y.shape == shape
    numpy.testing.assert_allclose(y.array, expected, **_tol(dtype))
    assert node.axis == ref.axis
    assert node.layout is ref.layout
    for got, want in [
        (node.mean, ref.mean),
        (node.inv_std, ref.inv_std),
        *list(zip(stats, ref_stats, strict=True)),
    ]:
        assert got.dtype == want.dtype
        numpy.testing.assert_allclose(got, want, **_tol(dtype))
    if layout == "batch_innermost" and x.ndim >= 3:
        assert _is_batch_innermost(y.array)

    grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std, node.layout)
    sums = spy["channel_sum"]
    outs = grad.apply((x, gamma, gy))
    assert spy["channel_sum"] == sums + 1
    ref_grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std)
    ref_outs = ref_grad.forward((x, gamma, gy))
    for got, want in zip(outs, ref_outs, strict=True):
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        numpy.testing.assert_allclose(got.array, want, **_tol(dtype))
    numpy.testing.assert_allclose(grad.ggamma, ref_grad.ggamma, **_tol(dtype))
    numpy.testing.assert_allclose(grad.gbeta, ref_grad.gbeta, **_tol(dtype))


@pytest.mark.parametrize("chunk_bytes", [1, 64, 1 << 20])
@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize(("shape", "gshape", "axis"), _SHAPES)
def test_fixed_forward_matches_the_reference(
    cpu_plugin, spy, monkeypatch, shape, gshape, axis, layout, dtype, chunk_bytes
):
    # One chunk per batch or channel slice, a few, or the whole array.
    monkeypatch.setattr(cpu_bn, "AFFINE_CHUNK_BYTES", chunk_bytes)
    rng = numpy.random.default_rng(2)
    x = _make(rng, shape, layout, dtype)
    gamma, beta, mean = (rng.standard_normal(gshape).astype(dtype) for _ in range(3))
    var = rng.uniform(0.5, 2, gshape).astype(dtype)
    node = bn.FixedBatchNormalization(1e-3, axis)
    (y,) = node.apply((x, gamma, beta, mean, var))
    assert spy["inv_std"] == 1
    ref = bn.FixedBatchNormalization(1e-3, axis)
    (expected,) = ref.forward((x, gamma, beta, mean, var))
    assert y.dtype == dtype
    assert y.shape == shape
    numpy.testing.assert_allclose(y.array, expected, **_tol(dtype))
    numpy.testing.assert_allclose(node.inv_std, ref.inv_std, **_tol(dtype))
    assert node.full == ref.full
    assert node.axis == ref.axis
    if layout == "batch_innermost" and x.ndim >= 3:
        assert _is_batch_innermost(y.array)


def test_kernels_run_only_while_registered(cpu_plugin, spy):
    rng = numpy.random.default_rng(3)
    x = _make(rng, (4, 3, 5, 5), "batch_innermost", numpy.float32)
    gamma, beta = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    fast = F.batch_normalization(x, gamma, beta).array
    assert spy["inv_std"] == 1
    plugins.unregister("cpu")
    try:
        reference = F.batch_normalization(x, gamma, beta).array
    finally:
        plugins.register(cpu_plugin, name="cpu")
    assert spy["inv_std"] == 1
    numpy.testing.assert_allclose(fast, reference, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("dtype", "tol"),
    [
        (numpy.float32, {"atol": 1e-2, "rtol": 1e-2, "eps": 1e-2}),
        (numpy.float64, {"atol": 1e-6, "rtol": 1e-5}),
    ],
)
@pytest.mark.parametrize("layout", _LAYOUTS)
def test_gradients_through_the_kernels(cpu_plugin, spy, layout, dtype, tol):
    rng = numpy.random.default_rng(4)
    shape = (3, 2, 4, 5)
    x = _make(rng, shape, layout, dtype)
    gamma = rng.uniform(0.5, 1.5, 2).astype(dtype)
    beta = rng.standard_normal(2).astype(dtype)
    gy, ggx = _make(rng, shape, layout, dtype), _make(rng, shape, layout, dtype)
    ggamma, gbeta = rng.standard_normal((2, 2)).astype(dtype)

    gradient_check.check_backward(F.batch_normalization, (x, gamma, beta), gy, **tol)
    assert spy["channel_sum"] > 0
    if dtype == numpy.float64:
        gradient_check.check_double_backward(
            F.batch_normalization, (x, gamma, beta), gy, (ggx, ggamma, gbeta)
        )
    mean = rng.standard_normal(2).astype(dtype)
    var = rng.uniform(0.5, 2, 2).astype(dtype)
    calls = spy["inv_std"]
    gradient_check.check_backward(
        F.fixed_batch_normalization, (x, gamma, beta, mean, var), gy, **tol
    )
    assert spy["inv_std"] > calls


def test_group_normalization_through_the_kernels(cpu_plugin, spy):
    # Its backward applies batch normalization's nodes (so their kernels).
    rng = numpy.random.default_rng(8)
    x = rng.standard_normal((2, 4, 3, 3))
    gamma, beta = rng.uniform(0.5, 1.5, 4), rng.standard_normal(4)
    gy = rng.standard_normal(x.shape)
    gradient_check.check_backward(
        lambda *xs: F.group_normalization(xs[0], 2, *xs[1:]),
        (x, gamma, beta), gy, atol=1e-6, rtol=1e-5,
    )  # fmt: skip
    assert spy["channel_sum"] > 0


def test_link_in_a_training_step(cpu_plugin):
    # L.BatchNormalization after a convolution: the kernels' batch-innermost
    # outputs and running statistics match the reference's.
    rng = numpy.random.default_rng(9)
    x = rng.standard_normal((8, 3, 6, 6)).astype(numpy.float32)
    results = []
    for registered in (True, False):
        if not registered:
            plugins.unregister("cpu")
        try:
            conv = chainer.links.Convolution2D(3, 4, 3, pad=1, initialW=0.1)
            norm = chainer.links.BatchNormalization(4)
            y = norm(conv(x))
            loss = F.sum(y * y)
            loss.backward()
            with chainer.using_config("train", False):
                z = norm(conv(x)).array
            results.append((y.array, norm.avg_mean, norm.avg_var, conv.W.grad, z))
        finally:
            if not registered:
                plugins.register(cpu_plugin, name="cpu")
    for fast, reference in zip(*results, strict=True):
        numpy.testing.assert_allclose(fast, reference, rtol=1e-4, atol=1e-5)


@pytest.fixture
def blocked_spy(monkeypatch):
    """Records whether each call of the blocked paths took them."""
    taken = []
    forward, grad = cpu_bn._forward_blocked, cpu_bn._grad_blocked

    def spy_forward(*args):
        result = forward(*args)
        taken.append(("forward", result is not None))
        return result

    def spy_grad(*args):
        result = grad(*args)
        taken.append(("grad", result is not None))
        return result

    monkeypatch.setattr(cpu_bn, "_forward_blocked", spy_forward)
    monkeypatch.setattr(cpu_bn, "_grad_blocked", spy_grad)
    return taken


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("l2_bytes", [1 << 10, 1 << 21])
@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("layout", ["c_order", "channel_major", "batch_innermost"])
def test_blocked_paths_match_the_reference(
    cpu_team, blocked_spy, monkeypatch, threads, l2_bytes, dtype, layout
):
    # Large enough for the blocked paths; groups of one channel (tiny L2) or
    # of several, on one thread or on a team.
    cpu_team(threads)
    monkeypatch.setattr(cpu_bn._machine, "cache_bytes", lambda level: l2_bytes)
    rng = numpy.random.default_rng(2)
    shape = (8, 6, 40, 40)
    assert numpy.prod(shape) >= cpu_bn.BLOCKED_MIN
    if layout == "channel_major":
        x = numpy.ascontiguousarray(
            rng.standard_normal(shape).astype(dtype).swapaxes(0, 1)
        ).swapaxes(0, 1)
        gy = numpy.ascontiguousarray(
            rng.standard_normal(shape).astype(dtype).swapaxes(0, 1)
        ).swapaxes(0, 1)
    else:
        x, gy = (_make(rng, shape, layout, dtype) for _ in range(2))
    gamma = rng.uniform(0.5, 1.5, 6).astype(dtype)
    beta = rng.standard_normal(6).astype(dtype)
    stats = [rng.standard_normal(6).astype(dtype) for _ in range(2)]
    ref_stats = [s.copy() for s in stats]

    node = bn.BatchNormalization(2e-5, *stats, 0.8)
    (y,) = cpu_bn.batch_normalization(node, (x, gamma, beta))
    ref = bn.BatchNormalization(2e-5, *ref_stats, 0.8)
    (expected,) = ref.forward((x, gamma, beta))
    assert y.dtype == dtype
    assert y.strides == x.strides
    numpy.testing.assert_allclose(y, expected, **_tol(dtype))
    for got, want in [
        (node.mean, ref.mean),
        (node.inv_std, ref.inv_std),
        *list(zip(stats, ref_stats, strict=True)),
    ]:
        assert got.dtype == want.dtype
        numpy.testing.assert_allclose(got, want, **_tol(dtype))

    grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std, node.layout)
    outs = cpu_bn.batch_normalization_grad(grad, (x, gamma, gy))
    ref_grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std)
    ref_outs = ref_grad.forward((x, gamma, gy))
    for got, want in zip(outs, ref_outs, strict=True):
        assert got.dtype == want.dtype
        numpy.testing.assert_allclose(got, want, **_tol(dtype))
    numpy.testing.assert_allclose(grad.ggamma, ref_grad.ggamma, **_tol(dtype))
    numpy.testing.assert_allclose(grad.gbeta, ref_grad.gbeta, **_tol(dtype))
    # A C-order x has each channel in n pieces: it takes the other paths.
    blocked = layout != "c_order"
    assert blocked_spy == [("forward", blocked), ("grad", blocked)]


def test_blocked_grad_needs_one_memory_order(blocked_spy):
    # A C-order gradient of a batch-innermost input takes the other path.
    rng = numpy.random.default_rng(3)
    shape = (8, 6, 40, 40)
    x = _make(rng, shape, "batch_innermost", numpy.float32)
    gy = rng.standard_normal(shape).astype(numpy.float32)
    gamma = numpy.ones(6, numpy.float32)
    node = bn.BatchNormalization()
    cpu_bn.batch_normalization(node, (x, gamma, numpy.zeros(6, numpy.float32)))
    grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std, node.layout)
    outs = cpu_bn.batch_normalization_grad(grad, (x, gamma, gy))
    ref_outs = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std).forward(
        (x, gamma, gy)
    )
    for got, want in zip(outs, ref_outs, strict=True):
        numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert blocked_spy == [("forward", True), ("grad", False)]
