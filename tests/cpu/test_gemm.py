"""chainer-cpu's GEMM: oneMKL split over the CPU team, or numpy.matmul."""

import importlib.metadata
import itertools
import threading

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import plugins
from chainer.functions.connection import linear as catalogue_linear
from chainer.primitive_ops import basic_math
from chainer_cpu import _gemm
from chainer_cpu import _mkl
from chainer_cpu import _parallel
from chainer_cpu.functions.connection import linear as cpu_linear
from chainer_cpu.primitive_ops import basic_math as cpu_basic_math

CHOICES = ["numpy", "mkl"]


def _operand(rng, shape, layout, dtype):
    # A (rows, cols) matrix stored C-order ("c"), as the transpose of a
    # C-order matrix ("t"), or with a column stride of 2 ("strided").
    rows, cols = shape
    if layout == "c":
        return rng.standard_normal(shape).astype(dtype)
    if layout == "t":
        return rng.standard_normal((cols, rows)).astype(dtype).T
    return rng.standard_normal((rows, 2 * cols)).astype(dtype)[:, ::2]


def _tolerance(dtype, k):
    return {"rtol": 1e-4, "atol": 1e-4 * k} if dtype == numpy.float32 else {}


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("a_layout", ["c", "t", "strided"])
@pytest.mark.parametrize("b_layout", ["c", "t", "strided"])
@pytest.mark.parametrize(
    "shape",
    [(3, 4, 5), (40, 300, 100), (300, 200, 40), (50, 100, 333)],
    ids=["tiny", "rows", "tall", "columns"],
)
def test_matmul_equals_numpy(
    choice, threads, dtype, a_layout, b_layout, shape, gemm_choice, cpu_team
):
    gemm_choice(choice)
    cpu_team(threads)
    m, k, n = shape
    rng = numpy.random.RandomState(0)
    a = _operand(rng, (m, k), a_layout, dtype)
    b = _operand(rng, (k, n), b_layout, dtype)
    y = _gemm.matmul(a, b)
    assert y.shape == (m, n)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y, a @ b, **_tolerance(dtype, k))


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize("out_kind", ["c", "column_slice", "fortran"])
def test_matmul_writes_out(choice, out_kind, gemm_choice, cpu_team):
    gemm_choice(choice)
    cpu_team(2)
    rng = numpy.random.RandomState(1)
    a = rng.standard_normal((64, 300)).astype(numpy.float32)
    b = rng.standard_normal((300, 200)).astype(numpy.float32)
    if out_kind == "c":
        buffer = numpy.full((64, 200), numpy.nan, numpy.float32)
        out = buffer
    elif out_kind == "column_slice":
        buffer = numpy.full((64, 260), numpy.nan, numpy.float32)
        out = buffer[:, 30:230]
    else:
        buffer = numpy.full((64, 200), numpy.nan, numpy.float32, order="F")
        out = buffer
    y = _gemm.matmul(a, b, out=out)
    assert y is out
    numpy.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-2)
    if out_kind == "column_slice":
        # Columns outside the slice are untouched.
        assert numpy.isnan(buffer[:, :30]).all()
        assert numpy.isnan(buffer[:, 230:]).all()


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("out_kind", [None, "column_slice", "fortran"])
@pytest.mark.parametrize(
    "shape",
    [(3, 4, 5), (300, 200, 40), (50, 100, 333)],
    ids=["tiny", "tall", "columns"],
)
def test_matmul_adds_a_bias(choice, threads, out_kind, shape, gemm_choice, cpu_team):
    gemm_choice(choice)
    cpu_team(threads)
    m, k, n = shape
    rng = numpy.random.RandomState(2)
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    b = rng.standard_normal((n, k)).astype(numpy.float32).T
    bias = rng.standard_normal(n).astype(numpy.float32) * 10
    buffer = out = None
    if out_kind == "column_slice":
        buffer = numpy.full((m, n + 60), numpy.nan, numpy.float32)
        out = buffer[:, 30 : 30 + n]
    elif out_kind == "fortran":
        out = numpy.full((m, n), numpy.nan, numpy.float32, order="F")
    y = _gemm.matmul(a, b, out=out, bias=bias)
    if out is not None:
        assert y is out
    numpy.testing.assert_allclose(y, a @ b + bias, rtol=1e-4, atol=1e-3)
    if buffer is not None:
        assert numpy.isnan(buffer[:, :30]).all()
        assert numpy.isnan(buffer[:, 30 + n :]).all()
    # A bias of another dtype is added after the product.
    y = _gemm.matmul(a, b, bias=bias.astype(numpy.float64))
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(y, a @ b + bias, rtol=1e-4, atol=1e-3)


def test_mixed_dtypes_take_numpy(gemm_choice):
    gemm_choice("numpy")
    a = numpy.ones((40, 50), numpy.float32)
    b = numpy.ones((50, 60), numpy.float64)
    y = _gemm.matmul(a, b)
    assert y.dtype == numpy.float64
    numpy.testing.assert_array_equal(y, numpy.full((40, 60), 50.0))


def test_bounds_cover_the_range_on_aligned_cuts():
    assert _gemm._bounds(100, 2) == [(0, 48), (48, 100)]
    assert _gemm._bounds(40, 3) == [(0, 16), (16, 40)]
    assert _gemm._bounds(10, 4) == [(0, 10)]
    for size, parts in [(1000, 3), (333, 2), (17, 5)]:
        ranges = _gemm._bounds(size, parts)
        assert ranges[0][0] == 0
        assert ranges[-1][1] == size
        for (_, stop), (start, _) in itertools.pairwise(ranges):
            assert stop == start
            assert start % 16 == 0


def test_bounds_give_the_first_part_its_share():
    assert _gemm._bounds(1000, 2, 0.6) == [(0, 608), (608, 1000)]
    assert _gemm._bounds(1000, 3, 0.5) == [(0, 496), (496, 736), (736, 1000)]
    assert _gemm._bounds(100, 2, 0.99) == [(0, 96), (96, 100)]
    # A share that rounds to no rows at all: equal parts.
    assert _gemm._bounds(100, 2, 0.01) == [(0, 48), (48, 100)]
    for size, parts, first in [(1000, 3, 0.7), (333, 2, 0.55), (700, 4, 0.4)]:
        ranges = _gemm._bounds(size, parts, first)
        assert len(ranges) == parts
        assert ranges[0] == (0, round(size * first / 16) * 16)
        assert ranges[-1][1] == size
        for (_, stop), (start, _) in itertools.pairwise(ranges):
            assert stop == start
            assert start % 16 == 0


@pytest.mark.parametrize("shape", [(1000, 100, 300), (100, 300, 1000)])
def test_split_products_give_the_caller_more_for_a_lagging_helper(
    shape, gemm_choice, cpu_team, monkeypatch
):
    gemm_choice("mkl")
    team = cpu_team(2)
    m, k, n = shape
    rng = numpy.random.RandomState(5)
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    b = rng.standard_normal((k, n)).astype(numpy.float32)
    calls = []
    real = _gemm._bounds

    def spy(size, parts, first=None):
        calls.append(first)
        return real(size, parts, first)

    monkeypatch.setattr(_gemm, "_bounds", spy)
    monkeypatch.setattr(_gemm, "_rates", {})
    _gemm.matmul(a, b)  # times the caller's part
    assert calls == [None]
    (rate,) = _gemm._rates.values()
    kind = (numpy.dtype(numpy.float32), min(m, n, k).bit_length())
    assert list(_gemm._rates) == [kind]
    assert rate > 0
    team.lag = 0.2 * (m * n * k / rate)  # a fifth of the product's time
    y = _gemm.matmul(a, b)
    numpy.testing.assert_allclose(y, a @ b, rtol=1e-4, atol=1e-3)
    ahead = 0.2 * (1 + _parallel.LAG_MARGIN)
    assert calls[1] == pytest.approx(ahead + (1 - ahead) / 2)
    # A product shorter than the lag is not split, but one in PROBE_EVERY
    # is, evenly, and measures the lag again.
    monkeypatch.setitem(_gemm._state, "unsplit", 0)
    monkeypatch.setattr(_parallel, "LAG_WEIGHT", 0.0)
    team.lag = 10 * (m * n * k / rate)
    for _ in range(_gemm.PROBE_EVERY - 1):
        y = _gemm.matmul(a, b)
        numpy.testing.assert_allclose(y, a @ b, rtol=1e-4, atol=1e-3)
    assert len(calls) == 2
    _gemm.matmul(a, b)
    assert calls[2:] == [None]
    del calls[2:]
    monkeypatch.setattr(_gemm, "WEIGHTED_SPLIT", False)
    _gemm.matmul(a, b)
    assert calls[2] is None


def test_products_split_among_the_team_but_not_inside_an_item(
    gemm_choice, cpu_team, monkeypatch
):
    gemm_choice("mkl")
    cpu_team(2)
    calls = []
    real_run = _parallel.run

    def spy(fn, count):
        calls.append((count, _parallel.busy()))
        return real_run(fn, count)

    monkeypatch.setattr(_parallel, "run", spy)
    a = numpy.ones((200, 200), numpy.float32)
    b = numpy.ones((200, 200), numpy.float32)
    y = _gemm.matmul(a, b)
    assert calls == [(2, False)]
    numpy.testing.assert_array_equal(y, numpy.full((200, 200), 200.0))
    calls.clear()
    results = real_run(lambda i: _gemm.matmul(a, b), 2)
    assert calls == []  # items of a run are not split again
    for r in results:
        numpy.testing.assert_array_equal(r, numpy.full((200, 200), 200.0))


def test_choice_from_the_environment(monkeypatch):
    monkeypatch.setitem(_gemm._state, "choice", None)
    monkeypatch.setenv("CHAINER_CPU_GEMM", "numpy")
    assert _gemm.choice() == "numpy"
    assert "CHAINER_CPU_GEMM=numpy" in _gemm.describe()
    monkeypatch.setitem(_gemm._state, "choice", None)
    monkeypatch.setenv("CHAINER_CPU_GEMM", "atlas")
    with pytest.raises(ValueError, match="auto, mkl or numpy, not 'atlas'"):
        _gemm.choice()


def test_required_mkl_that_is_missing_raises(monkeypatch):
    monkeypatch.setitem(_gemm._state, "choice", None)
    monkeypatch.setenv("CHAINER_CPU_GEMM", "mkl")
    monkeypatch.setattr(_mkl, "gemm_function", lambda dtype: None)
    monkeypatch.setattr(_mkl, "problem", "the mkl package is not installed")
    with pytest.raises(RuntimeError, match="CHAINER_CPU_GEMM=mkl.*not installed"):
        _gemm.choice()
    monkeypatch.setitem(_gemm._state, "choice", None)
    monkeypatch.setenv("CHAINER_CPU_GEMM", "auto")
    assert _gemm.choice() == "numpy"
    assert "not installed" in _gemm.describe()


def test_mkl_without_the_wheel_names_the_extra(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    monkeypatch.setattr(_mkl, "_cache", {})
    monkeypatch.setattr(_mkl, "problem", None)
    assert _mkl.gemm_function(numpy.float32) is None
    assert "pip install 'chainer-cpu[mkl]'" in _mkl.problem


def test_mkl_gemm_transposes_and_accumulates(gemm_choice):
    gemm_choice("mkl")
    gemm = _mkl.gemm_function(numpy.float64)
    rng = numpy.random.RandomState(2)
    a = rng.standard_normal((6, 4))  # op(A) = A.T, (4, 6)
    b = rng.standard_normal((6, 5))
    c = rng.standard_normal((4, 5))
    expected = a.T @ b + 2 * c
    c2 = 2 * c
    pointers = (a.ctypes.data, b.ctypes.data, c2.ctypes.data)
    gemm(True, False, 4, 5, 6, pointers[0], 4, pointers[1], 5, pointers[2], 5, 1.0)
    numpy.testing.assert_allclose(c2, expected)
    assert _mkl.version()[0].isdigit()
    assert "oneMKL" in _gemm.describe()
    assert _mkl.gemm_function(numpy.float16) is None


def test_kernels_registered(cpu_plugin):
    kernel = plugins.get_kernel(catalogue_linear.LinearFunction, "numpy")
    assert kernel is cpu_linear.linear
    kernel = plugins.get_kernel(basic_math.MatMul, "numpy")
    assert kernel is cpu_basic_math.matmul


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize(
    ("x_dtype", "w_dtype"),
    [
        (numpy.float32, numpy.float32),
        (numpy.float64, numpy.float64),
        (numpy.float16, numpy.float16),
        (numpy.float32, numpy.float64),
    ],
)
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_kernel_matches_the_reference(
    choice, x_dtype, w_dtype, with_bias, gemm_choice, cpu_plugin, cpu_team
):
    gemm_choice(choice)
    cpu_team(2)
    rng = numpy.random.RandomState(3)
    x = rng.uniform(-1, 1, (70, 120)).astype(x_dtype)
    W = rng.uniform(-1, 1, (90, 120)).astype(w_dtype)
    b = rng.uniform(-1, 1, 90).astype(x_dtype) if with_bias else None
    xv, Wv = chainer.Variable(x), chainer.Variable(W)
    y = F.linear(xv, Wv, b)
    # The reference: half precision multiplied in float32 at least.
    acc = numpy.promote_types(numpy.promote_types(x_dtype, w_dtype), numpy.float32)
    expected = (x.astype(acc) @ W.astype(acc).T).astype(x_dtype)
    if with_bias:
        expected += b
    assert y.dtype == x_dtype
    tol = {"rtol": 1e-5, "atol": 1e-4}
    if x_dtype == numpy.float16:
        tol = {"rtol": 1e-2, "atol": 1e-2}
    numpy.testing.assert_allclose(y.array, expected, **tol)
    # The backward pass runs MatMul's kernel.
    gy = rng.uniform(-1, 1, y.shape).astype(x_dtype)
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(
        xv.grad, (gy.astype(acc) @ W.astype(acc)).astype(x_dtype), **tol
    )
    numpy.testing.assert_allclose(
        Wv.grad, (gy.astype(acc).T @ x.astype(acc)).astype(w_dtype), **tol
    )


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [
        ((60, 70), (70, 80)),
        ((3, 20, 30), (30, 40)),
        ((50,), (50, 60)),
        ((40, 50), (50,)),
    ],
)
def test_matmul_kernel_matches_numpy(choice, a_shape, b_shape, gemm_choice, cpu_plugin):
    gemm_choice(choice)
    rng = numpy.random.RandomState(4)
    a = rng.standard_normal(a_shape).astype(numpy.float32)
    b = rng.standard_normal(b_shape).astype(numpy.float32)
    y = basic_math.matmul(a, b)
    numpy.testing.assert_allclose(y.array, numpy.matmul(a, b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("b_layout", ["c", "t", "strided"])
def test_right_operand_products_equal_numpy(
    choice, threads, dtype, b_layout, gemm_choice, cpu_team
):
    # One prepared b, products of several m: plain, into out (usable or
    # not for MKL), accumulated into out.
    gemm_choice(choice)
    cpu_team(threads)
    rng = numpy.random.RandomState(0)
    k, n = 300, 250
    b = _operand(rng, (k, n), b_layout, dtype)
    product = _gemm.right_operand(b)
    assert (product is not None) == (choice == "mkl")
    if product is None:
        return
    tol = _tolerance(dtype, k)
    for m in (1, 7, 20, 64):
        a = _operand(rng, (m, k), "c" if m % 2 else "t", dtype)
        numpy.testing.assert_allclose(product(a), a @ b, **tol)
        for out in (
            numpy.ones((m, n), dtype),
            numpy.asfortranarray(numpy.ones((m, n), dtype)),
            numpy.ones((m, 2 * n), dtype)[:, :n],
        ):
            start = out.copy()
            assert product(a, out=out, accumulate=True) is out
            numpy.testing.assert_allclose(out, start + a @ b, **tol)
            assert product(a, out=out) is out
            numpy.testing.assert_allclose(out, a @ b, **tol)
    # b changes dtype: products in another dtype go through matmul.
    a = rng.standard_normal((5, k)).astype(numpy.float16)
    numpy.testing.assert_allclose(product(a), a @ b, **_tolerance(numpy.float32, k))


def _packing_spy(product, monkeypatch, hints=None):
    # Records (thread id, column count) of every range that ``product``
    # packs, and in ``hints`` the row counts it packs them for.
    packed = []
    real = product._pack

    def pack(transb, m, n, k, b, ldb):
        packed.append((threading.get_ident(), n))
        if hints is not None:
            hints.append(m)
        return real(transb, m, n, k, b, ldb)

    monkeypatch.setattr(product, "_pack", pack)
    return packed


@pytest.mark.parametrize("in_parts", [True, False])
def test_packed_ranges_are_packed_once_by_the_threads_that_use_them(
    in_parts, gemm_choice, cpu_team, monkeypatch
):
    gemm_choice("mkl")
    cpu_team(2)
    monkeypatch.setattr(_gemm, "PACK_IN_PARTS", in_parts)
    rng = numpy.random.RandomState(2)
    b = rng.standard_normal((300, 400)).astype(numpy.float32)
    product = _gemm.right_operand(b)
    hints = []
    packed = _packing_spy(product, monkeypatch, hints)
    for m in (40, 20, 10, 40):
        a = rng.standard_normal((m, 300)).astype(numpy.float32)
        numpy.testing.assert_allclose(product(a), a @ b, rtol=1e-4, atol=1e-3)
    assert sorted(n for _, n in packed) == [192, 208]  # each range once
    assert hints == [40, 40]  # packed for the first product's rows
    threads = {thread for thread, _ in packed}
    caller = threading.get_ident()
    if in_parts:
        assert len(threads) == 2
        assert caller in threads
    else:
        assert threads == {caller}
    # Inside the items of a team run the product is not split: whole ranges.
    packed.clear()
    a = rng.standard_normal((30, 300)).astype(numpy.float32)
    results = _parallel.run(lambda i: product(a), 2)
    for y in results:
        numpy.testing.assert_allclose(y, a @ b, rtol=1e-4, atol=1e-3)
    assert {n for _, n in packed} == {400}


def test_packed_products_give_the_caller_the_range_the_lag_asks_for(
    gemm_choice, cpu_team, monkeypatch
):
    gemm_choice("mkl")
    team = cpu_team(2)
    monkeypatch.setattr(_gemm, "_rates", {})
    rng = numpy.random.RandomState(6)
    k, n, m = 200, 640, 30
    b = rng.standard_normal((k, n)).astype(numpy.float32)
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    first = _gemm.right_operand(b)
    first(a)  # packs: the caller's part is not timed
    assert _gemm._rates == {}
    first(a)  # times the caller's part
    kind = ("packed", numpy.dtype(numpy.float32), min(m, n, k).bit_length())
    assert list(_gemm._rates) == [kind]
    assert first._layouts[2][0] == [(0, 320), (320, 640)]  # no rate yet: even
    rate = _gemm._rates[kind]
    team.lag = 0.25 * (m * n * k / rate)
    share = 0.25 * (1 + _parallel.LAG_MARGIN)
    share += (1 - share) / 2
    second = _gemm.right_operand(b)
    numpy.testing.assert_allclose(second(a), a @ b, rtol=1e-4, atol=1e-3)
    ranges = second._layouts[2][0]
    assert ranges == _gemm._bounds(n, 2, share)
    assert ranges[0][1] > 320
    # A product shorter than the lag is not split.
    team.lag = 10 * (m * n * k / rate)
    third = _gemm.right_operand(b)
    numpy.testing.assert_allclose(third(a), a @ b, rtol=1e-4, atol=1e-3)
    assert third._layouts[2][0] == [(0, n)]


def test_small_unpackable_or_rarely_used_operands_are_left_to_matmul(gemm_choice):
    gemm_choice("mkl")
    assert _gemm.right_operand(numpy.ones((10, 20), numpy.float32)) is None
    assert _gemm.right_operand(numpy.ones((300, 300), numpy.float16)) is None
    big = numpy.ones((300, 300), numpy.float32)
    assert _gemm.right_operand(big, uses=_gemm.PACK_MIN_USES - 1) is None
    assert _gemm.right_operand(big, uses=_gemm.PACK_MIN_USES) is not None
    assert _gemm.right_operand(big) is not None


def test_core_right_operand_without_and_with_the_plugin(gemm_choice, cpu_plugin):
    from chainer.utils import gemm as core_gemm

    rng = numpy.random.RandomState(1)
    b = rng.standard_normal((300, 400)).astype(numpy.float32)
    a = rng.standard_normal((20, 300)).astype(numpy.float32)
    for choice in CHOICES:
        gemm_choice(choice)
        product = core_gemm.right_operand(b)
        assert isinstance(product, core_gemm._Product) == (choice == "numpy")
        out = numpy.ones((20, 400), numpy.float32)
        product(a, out=out, accumulate=True)
        numpy.testing.assert_allclose(out, 1 + a @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("choice", CHOICES)
@pytest.mark.parametrize(
    ("link", "gates"),
    [("NStepLSTM", 4), ("NStepGRU", 3), ("NStepRNNTanh", 1), ("NStepRNNReLU", 1)],
)
def test_n_step_rnns_through_the_plugin_match_the_reference(
    choice, link, gates, gemm_choice, cpu_plugin, cpu_team, monkeypatch
):
    # The forward recurrences run on packed weights with MKL; sequences of
    # unequal length give products of several m from one packed weight.
    gemm_choice(choice)
    cpu_team(2)
    packed_calls = []
    original = _gemm._PackedProduct.__call__

    def call(self, a, out=None, accumulate=False):
        packed_calls.append(a.shape[0])
        return original(self, a, out=out, accumulate=accumulate)

    monkeypatch.setattr(_gemm._PackedProduct, "__call__", call)
    rng = numpy.random.RandomState(4)
    n_layers, in_size = 2, 90
    units = 160 if gates > 1 else 260  # packed from PACK_MIN elements
    assert gates * units * units >= _gemm.PACK_MIN
    lengths = [9, 7, 7, 3]
    model = getattr(chainer.links, link)(n_layers, in_size, units, 0.0)
    xs = [rng.standard_normal((t, in_size)).astype(numpy.float32) for t in lengths]
    hx = rng.standard_normal((n_layers, len(lengths), units)).astype(numpy.float32)

    def run():
        model.cleargrads()
        xvs = [chainer.Variable(x) for x in xs]
        if gates == 4:
            hy, cy, ys = model(chainer.Variable(hx.copy()), None, xvs)
            loss = F.sum(cy)
        else:
            hy, ys = model(chainer.Variable(hx.copy()), xvs)
            loss = 0
        loss += F.sum(hy * hy) + sum(F.sum(y * y) for y in ys)
        loss.backward()
        grads = [p.grad.copy() for p in model.params()]
        return (
            [hy.array, *(y.array for y in ys)],
            grads,
            [v.grad for v in xvs],
        )

    got = run()
    # The forward of both layers: one product per step each.
    assert len(packed_calls) == (2 * max(lengths) if choice == "mkl" else 0)
    if packed_calls:
        assert set(packed_calls) == {4, 3, 1}
    plugins.unregister("cpu")
    try:
        expected = run()
    finally:
        plugins.register(cpu_plugin, name="cpu")
    for g, e in zip(itertools.chain(*got), itertools.chain(*expected), strict=True):
        numpy.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)


def _pairs(shapes, seed=0):
    rng = numpy.random.RandomState(seed)
    return [
        (
            rng.standard_normal((m, k)).astype(numpy.float32),
            rng.standard_normal((k, n)).astype(numpy.float32),
        )
        for m, k, n in shapes
    ]


@pytest.mark.parametrize("choice", ["numpy", "mkl"])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_matmuls_equal_numpy(choice, threads, gemm_choice, cpu_team):
    gemm_choice(choice)
    cpu_team(threads)
    pairs = _pairs([(128, 128, 96), (96, 128, 128)])
    pairs.append((pairs[0][0].T, pairs[0][0]))  # transposed operand
    for k in (1, 2, 3):
        got = _gemm.matmuls(pairs[:k])
        assert len(got) == k
        for (a, b), y in zip(pairs, got, strict=False):
            numpy.testing.assert_allclose(y, a @ b, rtol=1e-4, atol=1e-4)


def test_matmuls_run_side_by_side_when_balanced(
    gemm_choice, cpu_team, team_runs, monkeypatch
):
    # As many products as threads, each large enough and within the balance:
    # one team run, each product whole on its thread (not split again).
    gemm_choice("mkl")
    cpu_team(2)
    # (Split products of fewer multiply-adds than the helper's lag are not
    # split: these are small.)
    monkeypatch.setattr(_gemm, "WEIGHTED_SPLIT", False)
    balanced = _pairs([(128, 128, 96), (96, 128, 128)])
    _gemm.matmuls(balanced)
    assert team_runs == [2]
    team_runs.clear()
    # Unbalanced, or one product per thread missing: each split in turn.
    _gemm.matmuls(_pairs([(128, 128, 96), (256, 128, 128)]))
    assert team_runs == [2, 2]
    team_runs.clear()
    _gemm.matmuls(balanced + balanced[:1])
    assert team_runs == [2, 2, 2]
    team_runs.clear()
    # Switched off: each in turn.
    monkeypatch.setattr(_gemm, "SIDE_BY_SIDE", False)
    _gemm.matmuls(balanced)
    assert team_runs == [2, 2]


def test_core_matmuls_reaches_the_plugin(gemm_choice, cpu_plugin, cpu_team, team_runs):
    from chainer.utils import gemm

    gemm_choice("mkl")
    cpu_team(2)
    pairs = _pairs([(128, 128, 96), (96, 128, 128)])
    got = gemm.matmuls(pairs)
    assert team_runs == [2]
    for (a, b), y in zip(pairs, got, strict=True):
        numpy.testing.assert_allclose(y, a @ b, rtol=1e-4, atol=1e-4)
