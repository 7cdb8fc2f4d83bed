"""chainer-cpu's batch normalization kernels against the catalogue's reference.

The kernels of ``chainer_cpu.functions.normalization.batch_normalization``
run for NumPy inputs while the plugin is registered; they give what the
nodes' own ``forward`` gives (outputs and the state that ``backward``
reads), for C-order, batch-innermost, channels-last and strided inputs in
every float dtype, and the public functions' gradients stay exact through
them.
"""

import collections
import math

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer import plugins
from chainer.functions.normalization import batch_normalization as bn
from chainer_cpu.functions.normalization import batch_normalization as cpu_bn
from chainer_cpu.functions.normalization import moments as cpu_moments

_LAYOUTS = ["c_order", "batch_innermost", "channels_last", "strided"]
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
    if layout == "channels_last" and a.ndim >= 3:
        order = (0, *range(2, a.ndim), 1)
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


def _is_channels_last(a):
    return a.transpose(0, *range(2, a.ndim), 1).flags.c_contiguous


# oneDNN's sums run in another order than the reference's: float32 results
# agree to a few units in the last place of their sums.
_ONEDNN_TOL = {"rtol": 1e-4, "atol": 1e-4}


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
    if layout == "channels_last" and x.ndim >= 3 and len(gshape) == 1:
        assert _is_channels_last(y.array)

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
    if layout == "channels_last" and x.ndim >= 3 and len(gshape) == 1:
        assert _is_channels_last(y.array)


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


def _path_spy(monkeypatch, forward_name, grad_name):
    # Records ("forward" or "grad", taken) for each call of the two path
    # functions of cpu_bn (a path declines by returning None).
    taken = []
    for kind, name in (("forward", forward_name), ("grad", grad_name)):
        path = getattr(cpu_bn, name)

        def spy(*args, kind=kind, path=path):
            result = path(*args)
            taken.append((kind, result is not None))
            return result

        monkeypatch.setattr(cpu_bn, name, spy)
    return taken


@pytest.fixture
def blocked_spy(monkeypatch):
    """Records whether each call of the blocked paths took them."""
    return _path_spy(monkeypatch, "_forward_blocked", "_grad_blocked")


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

    _check_grad(node, x, gamma, gy, _tol(dtype))
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


@pytest.fixture
def channels_last_spy(monkeypatch):
    """Records whether each call of the channels-last paths took them.

    oneDNN's batch normalization (which takes float32 channels-last inputs
    first where the ``onednn`` extra is in use) is switched off.
    """
    monkeypatch.setattr(cpu_bn, "USE_ONEDNN", False)
    return _path_spy(monkeypatch, "_forward_channels_last", "_grad_channels_last")


def _exact_sums(rng, shape, dtype):
    # A channels-last array of multiples of 1/8 whose channels sum to zero
    # (rows of the (rows, channels) view in +- pairs): every float32 sum the
    # kernels and the reference take is exact, and the mean subtracted too.
    # Over thousands of rows per channel, two float32 summation orders of
    # random data differ by more than the tolerance on sums that nearly
    # cancel (ggamma of (5, 24, 547): 3.3 times it for the reference against
    # float64, 0.2 times for the kernels).
    rows, channels = math.prod(shape) // shape[1], shape[1]
    half = numpy.round(rng.standard_normal((rows // 2, channels)) * 8) / 8
    flat = numpy.concatenate([half, numpy.zeros((rows % 2, channels)), -half[::-1]])
    order = (0, *range(2, len(shape)), 1)
    stored = flat.astype(dtype).reshape([shape[i] for i in order])
    return stored.transpose(numpy.argsort(order))


def _check_training(x, gy, gamma, beta, stats, ref_stats, tol):
    # The training forward and gradient kernels against the nodes' own
    # forward (running statistics ``stats`` and ``ref_stats``, or None);
    # returns (y, gx) of the kernels.
    node = bn.BatchNormalization(2e-5, *stats, 0.8)
    (y,) = cpu_bn.batch_normalization(node, (x, gamma, beta))
    ref = bn.BatchNormalization(2e-5, *ref_stats, 0.8)
    (expected,) = ref.forward((x, gamma, beta))
    assert y.dtype == x.dtype
    numpy.testing.assert_allclose(y, expected, **tol)
    pairs = [(node.mean, ref.mean), (node.inv_std, ref.inv_std)]
    if stats[0] is not None:
        pairs += list(zip(stats, ref_stats, strict=True))
    for got, want in pairs:
        assert got.dtype == want.dtype
        numpy.testing.assert_allclose(got, want, **tol)
    return y, _check_grad(node, x, gamma, gy, tol)


def _check_grad(node, x, gamma, gy, tol):
    # The gradient kernel after the forward ``node`` against the gradient
    # node's own forward; returns the kernel's gx.
    grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std, node.layout)
    outs = cpu_bn.batch_normalization_grad(grad, (x, gamma, gy))
    ref_grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std)
    ref_outs = ref_grad.forward((x, gamma, gy))
    for got, want in zip(outs, ref_outs, strict=True):
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        numpy.testing.assert_allclose(got, want, **tol)
    numpy.testing.assert_allclose(grad.ggamma, ref_grad.ggamma, **tol)
    numpy.testing.assert_allclose(grad.gbeta, ref_grad.gbeta, **tol)
    return outs[0]


# Channels-last shapes large enough for the channels-last paths: 2-d, 1-d
# and 3-d maps, rows (n * prod(spatial)) that no row group divides, 3
# channels (groups of 341 rows), and more channels than ROW_ELEMENTS
# (groups of one row).
_CL_SHAPES = [
    (6, 16, 27, 29),
    (5, 24, 547),
    (3, 20, 11, 13, 9),
    (7, 3, 61, 53),
    (2, 1031, 37),
]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("l2_bytes", [1 << 14, 1 << 21])
@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("shape", _CL_SHAPES)
def test_channels_last_paths_match_the_reference(
    cpu_team, channels_last_spy, monkeypatch, shape, dtype, l2_bytes, threads
):
    # Chunks of one row group (tiny L2) or of many; one thread or a team,
    # whose spans then end in partial chunks.
    cpu_team(threads)
    monkeypatch.setattr(cpu_bn._machine, "cache_bytes", lambda level: l2_bytes)
    rng = numpy.random.default_rng(10)
    assert numpy.prod(shape) >= cpu_bn.BLOCKED_MIN
    if dtype == numpy.float32:
        x, gy = (_exact_sums(rng, shape, dtype) for _ in range(2))
    else:
        x, gy = (_make(rng, shape, "channels_last", dtype) for _ in range(2))
    c = shape[1]
    gamma = rng.uniform(0.5, 1.5, c).astype(dtype)
    beta = rng.standard_normal(c).astype(dtype)
    stats = [rng.standard_normal(c).astype(dtype) for _ in range(2)]
    ref_stats = [s.copy() for s in stats]

    y, gx = _check_training(x, gy, gamma, beta, stats, ref_stats, _tol(dtype))
    assert y.strides == x.strides
    assert gx.strides == x.strides
    assert _is_channels_last(y)
    assert _is_channels_last(gx)
    assert channels_last_spy == [("forward", True), ("grad", True)]

    mean = rng.standard_normal(c).astype(dtype)
    var = rng.uniform(0.5, 2, c).astype(dtype)
    node = bn.FixedBatchNormalization(1e-3)
    (y,) = cpu_bn.fixed_batch_normalization(node, (x, gamma, beta, mean, var))
    ref = bn.FixedBatchNormalization(1e-3)
    (expected,) = ref.forward((x, gamma, beta, mean, var))
    assert y.dtype == dtype
    assert y.strides == x.strides
    numpy.testing.assert_allclose(y, expected, **_tol(dtype))
    numpy.testing.assert_allclose(node.inv_std, ref.inv_std, **_tol(dtype))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_channels_last_gradient_of_another_memory_order(channels_last_spy, dtype):
    # A C-order (or broadcast) gy of a channels-last x: copied into x's
    # order, the result is the reference's and gx is channels-last.
    rng = numpy.random.default_rng(11)
    shape = (6, 16, 27, 29)
    x = _exact_sums(rng, shape, dtype)
    gamma = rng.uniform(0.5, 1.5, 16).astype(dtype)
    node = bn.BatchNormalization()
    cpu_bn.batch_normalization(node, (x, gamma, numpy.zeros(16, dtype)))
    in_c_order = numpy.ascontiguousarray(_exact_sums(rng, shape, dtype))
    quarters = numpy.round(rng.standard_normal((1, 16, 1, 29)) * 4) / 4
    for gy in (in_c_order, numpy.broadcast_to(quarters.astype(dtype), shape)):
        grad = bn.BatchNormalizationGrad(
            node.axis, node.mean, node.inv_std, node.layout
        )
        outs = cpu_bn.batch_normalization_grad(grad, (x, gamma, gy))
        ref_outs = bn.BatchNormalizationGrad(
            node.axis, node.mean, node.inv_std
        ).forward((x, gamma, gy))
        for got, want in zip(outs, ref_outs, strict=True):
            numpy.testing.assert_allclose(got, want, **_tol(dtype))
        assert outs[0].strides == x.strides
    assert channels_last_spy == [("forward", True), ("grad", True), ("grad", True)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    ("dtype", "offset"),
    [(numpy.float32, 3.0), (numpy.float32, 30.0), (numpy.float64, 1e4)],
)
def test_channels_last_statistics_of_far_means(
    cpu_team, channels_last_spy, threads, dtype, offset
):
    # Means far from zero against the spread: sums of squares taken about
    # zero would lose the variance (8 digits of it at 1e4 in float64), and
    # x * scale + (beta - mean * scale) would round at the scale of the
    # mean. With sums exact (_exact_sums), the results differ from the
    # reference's by their last roundings only.
    cpu_team(threads)
    rng = numpy.random.default_rng(12)
    shape = (4, 32, 23, 29)

    def make():
        return _exact_sums(rng, shape, dtype)

    signs = numpy.where(numpy.arange(32) % 2, 1, -1).astype(dtype)
    x = make() + (offset * signs)[:, None, None]
    gy = make()
    gamma = rng.uniform(0.5, 1.5, 32).astype(dtype)
    beta = rng.standard_normal(32).astype(dtype)
    stats = [rng.standard_normal(32).astype(dtype) for _ in range(2)]
    ref_stats = [s.copy() for s in stats]
    _check_training(x, gy, gamma, beta, stats, ref_stats, _tol(dtype))
    assert channels_last_spy == [("forward", True), ("grad", True)]


@pytest.mark.parametrize("threads", [1, 2])
def test_channels_last_float32_statistics_of_far_means_against_float64(
    cpu_team, channels_last_spy, threads
):
    # Random float32 data 1000 standard deviations from zero: sums of squares
    # about zero would leave nothing of the variance, and an output shifted
    # by beta - mean * scale would round at the scale of the mean. Against
    # the same arithmetic in float64, the kernels keep what float32 inputs
    # allow (x - mean is exact to 6e-5 at 1000).
    cpu_team(threads)
    rng = numpy.random.default_rng(16)
    signs = numpy.where(numpy.arange(32) % 2, 1.0, -1.0)
    flat = rng.standard_normal((4, 23, 29, 32)) + 1000.0 * signs
    x = flat.astype(numpy.float32).transpose(0, 3, 1, 2)
    gy = rng.standard_normal((4, 23, 29, 32)).astype(numpy.float32)
    gy = gy.transpose(0, 3, 1, 2)
    gamma = rng.uniform(0.5, 1.5, 32).astype(numpy.float32)
    beta = rng.standard_normal(32).astype(numpy.float32)
    node = bn.BatchNormalization(2e-5)
    (y,) = cpu_bn.batch_normalization(node, (x, gamma, beta))
    grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std, node.layout)
    gx, ggamma, gbeta = cpu_bn.batch_normalization_grad(grad, (x, gamma, gy))
    assert channels_last_spy == [("forward", True), ("grad", True)]
    x64, gy64 = x.astype(numpy.float64), gy.astype(numpy.float64)
    axes = (0, 2, 3)
    mean = x64.mean(axis=axes, keepdims=True)
    inv_std = 1 / numpy.sqrt(x64.var(axis=axes, keepdims=True) + 2e-5)
    x_hat = (x64 - mean) * inv_std
    g = gamma[:, None, None]
    numpy.testing.assert_allclose(y, x_hat * g + beta[:, None, None], atol=2e-4)
    numpy.testing.assert_allclose(node.mean, mean.ravel(), rtol=1e-6)
    numpy.testing.assert_allclose(node.inv_std, inv_std.ravel(), rtol=1e-4)
    want_gbeta = gy64.sum(axis=axes)
    want_ggamma = (gy64 * x_hat).sum(axis=axes)
    numpy.testing.assert_allclose(gbeta, want_gbeta, rtol=1e-4, atol=1e-2)
    numpy.testing.assert_allclose(ggamma, want_ggamma, rtol=1e-4, atol=1e-2)
    m = x.size // 32
    want_gx = (
        g
        * inv_std
        * (gy64 - (x_hat * want_ggamma[:, None, None] + want_gbeta[:, None, None]) / m)
    )
    numpy.testing.assert_allclose(gx, want_gx, atol=2e-4)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_channels_last_with_two_channel_axes(channels_last_spy, dtype):
    # gamma of shape (4, 8) over x stored (n, w, 4, 8): 32 channels per
    # position of the (rows, channels) view.
    rng = numpy.random.default_rng(14)
    shape = (8, 4, 8, 300)

    def make():
        if dtype == numpy.float32:
            a = _exact_sums(rng, (8, 32, 300), dtype)
        else:
            a = _make(rng, (8, 32, 300), "channels_last", dtype)
        return a.reshape(shape)

    x, gy = make(), make()
    assert x.transpose(0, 3, 1, 2).flags.c_contiguous
    gamma = rng.uniform(0.5, 1.5, (4, 8)).astype(dtype)
    beta = rng.standard_normal((4, 8)).astype(dtype)
    y, gx = _check_training(x, gy, gamma, beta, [None] * 2, [None] * 2, _tol(dtype))
    assert y.strides == x.strides
    assert gx.strides == x.strides
    assert channels_last_spy == [("forward", True), ("grad", True)]


def test_small_or_c_order_inputs_keep_their_paths(channels_last_spy, blocked_spy):
    # Below BLOCKED_MIN, or in other memory orders, the channels-last paths
    # decline and the existing ones run as before.
    rng = numpy.random.default_rng(13)
    gamma, beta = numpy.ones(16, numpy.float32), numpy.zeros(16, numpy.float32)
    for shape, layout, blocked in [
        ((4, 16, 9, 9), "channels_last", False),
        ((6, 16, 27, 29), "c_order", False),
        ((6, 16, 27, 29), "batch_innermost", True),
        ((6, 16, 27, 29), "strided", False),
    ]:
        channels_last_spy.clear()
        blocked_spy.clear()
        x, gy = (_make(rng, shape, layout, numpy.float32) for _ in range(2))
        _check_training(
            x, gy, gamma, beta, [None, None], [None, None], _tol(numpy.float32)
        )
        assert blocked_spy == [("forward", blocked), ("grad", blocked)]
        expected = [] if blocked else [("forward", False), ("grad", False)]
        assert channels_last_spy == expected


@pytest.mark.parametrize("shape", [(6, 16, 27, 29), (5, 24, 547), (3, 20, 11, 13, 9)])
@pytest.mark.parametrize("threads", [1, 2])
def test_onednn_batch_normalization_of_channels_last_float32(
    conv_choice, cpu_team, monkeypatch, shape, threads
):
    # Float32 channels-last inputs go to oneDNN's batch normalization
    # (forward and gradient) where the onednn extra is in use: the
    # reference's results, running statistics and memory order.
    conv_choice("onednn")
    cpu_team(threads)
    from chainer_cpu import _onednn

    monkeypatch.setattr(_onednn, "_plans", collections.OrderedDict())
    rng = numpy.random.default_rng(21)
    channels = shape[1]
    x = _make(rng, shape, "channels_last", numpy.float32) * 2 + 3
    gy = _make(rng, shape, "channels_last", numpy.float32)
    gamma = rng.uniform(0.5, 1.5, channels).astype(numpy.float32)
    beta = rng.standard_normal(channels).astype(numpy.float32)
    stats = [numpy.zeros(channels, numpy.float32), numpy.ones(channels, numpy.float32)]
    ref_stats = [a.copy() for a in stats]
    y, gx = _check_training(x, gy, gamma, beta, stats, ref_stats, _ONEDNN_TOL)
    assert y.strides == x.strides
    assert gx.strides == x.strides
    kinds = [key[1] for key in _onednn._plans if key[0] == "batch_normalization"]
    assert kinds == ["forward", "backward"]
    # A C-order gy is taken too (copied into x's order), the result the same.
    node = bn.BatchNormalization()
    cpu_bn.batch_normalization(node, (x, gamma, beta))
    grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std, node.layout)
    outs = cpu_bn.batch_normalization_grad(
        grad, (x, gamma, numpy.ascontiguousarray(gy))
    )
    numpy.testing.assert_allclose(outs[0], gx, rtol=1e-6, atol=1e-6)


def test_onednn_batch_normalization_leaves_other_inputs(conv_choice, monkeypatch):
    # Batch-innermost, C-order, float64 and small inputs, a per-element
    # gamma, or oneDNN not chosen: the NumPy kernels.
    from chainer_cpu import _onednn

    rng = numpy.random.default_rng(22)
    x = _make(rng, (6, 16, 27, 29), "channels_last", numpy.float32)
    gamma = numpy.ones(16, numpy.float32)
    conv_choice("onednn")
    assert _onednn.batch_normalization_applies(x, gamma)
    assert not _onednn.batch_normalization_applies(x.astype(numpy.float64), gamma)
    for layout in ["batch_innermost", "c_order"]:
        other = _make(rng, (6, 16, 27, 29), layout, numpy.float32)
        assert not _onednn.batch_normalization_applies(other, gamma)
    assert not _onednn.batch_normalization_applies(
        x, numpy.ones((16, 27), numpy.float32)
    )
    node = bn.BatchNormalization()
    node.set_layout(x[:2, :, :4], gamma)
    assert not cpu_bn._onednn_applies(node, x[:2, :, :4], gamma)  # below BLOCKED_MIN
    conv_choice("numpy")
    assert not _onednn.batch_normalization_applies(x, gamma)
