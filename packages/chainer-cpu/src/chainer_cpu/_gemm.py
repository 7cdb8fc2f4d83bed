"""The matrix product of chainer-cpu's kernels: oneMKL on the CPU team, or NumPy.

Where the ``mkl`` extra is installed (``pip install chainer-cpu[mkl]``, see
:mod:`chainer_cpu._mkl`), :func:`matmul` runs float32 and float64 products
through oneMKL's sequential ``cblas_?gemm``, split by rows or columns among
the threads of chainer-cpu's team (:func:`chainer_cpu._parallel.run`).
Elsewhere it is ``numpy.matmul``. On the 2-core Xeon (AVX-512) of
``benchmarks/results.md``, single-threaded, MKL ran the skinny products of
these workloads 1.3-2x faster than NumPy's OpenBLAS (SkylakeX kernels):
``(20, 650) @ (650, 2600)`` of the LSTM LM 0.70 vs 1.36 ms on two threads,
``(100, 784) @ (784, 1000)`` of the MLP step 0.95 vs 1.27 ms, the
``(32, 288) @ (288, n)`` convolution products 2.2 vs 3.0 ms; square
products of 1000 ran alike (``benchmarks/README.md``, "oneMKL").

``CHAINER_CPU_GEMM``: ``auto`` (default) uses MKL where it is installed and
usable, ``numpy`` never uses it, ``mkl`` requires it (the first product
raises ``RuntimeError`` saying why it is not usable).
"""

import itertools
import os
import time

import numpy

from chainer_cpu import _mkl
from chainer_cpu import _parallel

_ENV = "CHAINER_CPU_GEMM"
#: Products of fewer multiply-adds than this stay with ``numpy.matmul``:
#: below it the ctypes call costs more than MKL saves.
MKL_MIN = 1 << 15
#: Products of at least this many multiply-adds (about 20 microseconds of
#: one core's work) are split among the team's threads.
SPLIT_MIN = 1 << 20
#: Split points fall on multiples of this many rows or columns (one cache
#: line of float32).
_ALIGN = 16

_state: dict = {"choice": None, "unsplit": 0}
_clock = time.perf_counter


def choice():
    """``"mkl"`` or ``"numpy"``: what :func:`matmul` uses (decided once).

    Raises:
        RuntimeError: If ``CHAINER_CPU_GEMM=mkl`` and MKL is not usable.
        ValueError: If ``CHAINER_CPU_GEMM`` holds another value.
    """
    chosen = _state["choice"]
    if chosen is None:
        chosen = _state["choice"] = _choose()
    return chosen


def _choose():
    wanted = os.environ.get(_ENV, "auto").strip().lower() or "auto"
    if wanted not in ("auto", "mkl", "numpy"):
        raise ValueError(f"{_ENV} must be auto, mkl or numpy, not {wanted!r}")
    if wanted == "numpy":
        return "numpy"
    if _mkl.gemm_function(numpy.float32) is not None:
        return "mkl"
    if wanted == "mkl":
        raise RuntimeError(f"{_ENV}=mkl, but MKL is not usable: {_mkl.problem}")
    return "numpy"


def describe():
    """One line naming the GEMM of chainer-cpu's kernels, for runtime info."""
    try:
        chosen = choice()
    except (RuntimeError, ValueError) as e:
        return f"error: {e}"
    if chosen == "mkl":
        return f"oneMKL {_mkl.version()} (sequential, on the CPU team)"
    why = f"{_ENV}=numpy" if _mkl.problem is None else _mkl.problem
    return f"NumPy's BLAS ({why})"


def _operand(x):
    # (x, transposed, leading dimension): x as a row-major matrix or the
    # transpose of one, copied where its strides are neither.
    rows, cols = x.shape
    size = x.itemsize
    s0, s1 = x.strides
    if x.flags.aligned and rows > 1 and cols > 1:
        if s1 == size and s0 % size == 0 and s0 >= cols * size:
            return x, False, s0 // size
        if s0 == size and s1 % size == 0 and s1 >= rows * size:
            return x, True, s1 // size
    x = numpy.ascontiguousarray(x)
    return x, False, max(1, cols)


def _bounds(size, parts, first=None):
    # ``parts`` ranges covering range(size), split on _ALIGN multiples: the
    # first of about ``first`` (a fraction) of size, the others alike.
    cuts = [0]
    rest = size
    if first is not None and parts > 1:
        cut = round(size * first / _ALIGN) * _ALIGN
        if 0 < cut < size:
            cuts.append(cut)
            rest = size - cut
            parts -= 1
    base = cuts[-1]
    for p in range(1, parts):
        cut = base + rest * p // parts // _ALIGN * _ALIGN
        if cut > cuts[-1]:
            cuts.append(cut)
    cuts.append(size)
    return list(itertools.pairwise(cuts))


#: Weight of each look in the caller's GEMM speed (an exponential average).
RATE_WEIGHT = 0.125
#: Multiply-adds per second of one thread's part of a split product, by
#: product kind (measured on the calling thread's parts; see _kind).
_rates: dict = {}


def _kind(dtype, m, n, k):
    # Products whose smallest dimension has the same bit length run at
    # about the same speed: a (1000, 1000) @ (1000, 10) product streams its
    # left operand at a third of the speed per multiply-add of the square
    # ones (26 vs 70 G/s on one thread of the 2-vCPU guest).
    return dtype, min(m, n, k).bit_length()


#: One in this many products that the helpers' lag keeps whole is split
#: anyway (see :func:`matmul`).
PROBE_EVERY = 32
#: Whether the calling thread's part of a split product is sized by the
#: helpers' measured lag (False: equal parts; for comparisons).
WEIGHTED_SPLIT = True


def _split_first(work, kind):
    # The calling thread's share of a split product of ``work`` multiply-adds
    # (None: equal parts until a part of this kind has been timed).
    rate = _rates.get(kind)
    if not rate or not WEIGHTED_SPLIT:
        return None
    return _parallel.caller_share(work / rate)


def _caller_first(work, kind):
    # (whether to split, the caller's share or None) for a product of
    # ``work`` multiply-adds: not split where the helpers would start after
    # the caller is done.
    first = _split_first(work, kind)
    if first is not None and first >= 1.0:
        return False, None
    return True, first


def _timed(kind, work, gemm, *args):
    # gemm(*args), its speed (work multiply-adds) noted in _rates.
    start = _clock()
    gemm(*args)
    seconds = _clock() - start
    if seconds > 0:
        rate = _rates.get(kind, 0.0)
        seen = work / seconds
        _rates[kind] = seen if not rate else rate + RATE_WEIGHT * (seen - rate)


def _destination(out, dtype, m, n):
    # (c, in_place, ldc): the row-major (m, n) array MKL writes the product
    # into (out itself where MKL can write there, else a new array) and its
    # leading dimension.
    size = dtype.itemsize
    in_place = (
        out is not None
        and out.dtype == dtype
        and out.strides[1] == size
        and out.strides[0] % size == 0
        and out.strides[0] >= n * size
        and out.flags.aligned
        and out.flags.writeable
    )
    c = out if in_place else numpy.empty((m, n), dtype)
    ldc = max(1, c.strides[0] // size) if m > 1 else max(1, n)
    return c, in_place, ldc


def _team_width(work):
    # Threads that share a product of ``work`` multiply-adds (1: not split).
    if work >= SPLIT_MIN and not _parallel.busy():
        _parallel.engage()
        return _parallel.width()
    return 1


def axpby_function(dtype, size):
    """MKL's ``axpby`` for ``size`` elements of ``dtype``, or None.

    :func:`chainer_cpu._mkl.axpby_function` where chainer-cpu's GEMM is MKL;
    None where MKL is not installed, with ``CHAINER_CPU_GEMM=numpy``, or for
    more elements than its 32-bit interface takes.
    """
    if size > _mkl.INT_MAX or choice() != "mkl":
        return None
    return _mkl.axpby_function(dtype)


def _deliver(c, out, accumulate=False):
    # The new product c as the caller asked: itself, or written into (added
    # to, with accumulate) out.
    if out is None:
        return c
    if accumulate:
        out += c
    else:
        out[...] = c
    return out


def matmul(a, b, out=None, bias=None):
    """``a @ b`` (plus ``bias``) of 2-d ``a`` and ``b``, through MKL where it applies.

    Args:
        a (numpy.ndarray): ``(m, k)`` matrix, any strides.
        b (numpy.ndarray): ``(k, n)`` matrix with the dtype of ``a``.
        out (numpy.ndarray or None): ``(m, n)`` array of that dtype to write
            the result into.
        bias (numpy.ndarray or None): ``(n,)`` vector of that dtype added to
            every row of the product. With MKL each thread writes it into its
            part of the result just before its product, which MKL adds to
            (one pass over the result less than adding it afterwards, and
            split among the threads).

    Returns:
        numpy.ndarray: The result (``out`` where given).
    """
    m, k = a.shape
    n = b.shape[1]
    work = m * n * k
    gemm = None
    if work >= MKL_MIN and a.dtype == b.dtype and choice() == "mkl":
        gemm = _mkl.gemm_function(a.dtype)
    if bias is not None and (gemm is None or bias.dtype != a.dtype):
        return _plus(matmul(a, b, out=out), bias)
    if gemm is None or max(m, n, k) > _mkl.INT_MAX:
        return numpy.matmul(a, b) if out is None else numpy.matmul(a, b, out=out)
    size = a.itemsize
    c, in_place, ldc = _destination(out, a.dtype, m, n)
    a, transa, lda = _operand(a)
    b, transb, ldb = _operand(b)
    if max(lda, ldb, ldc) > _mkl.INT_MAX:
        result = numpy.matmul(a, b) if out is None else numpy.matmul(a, b, out=out)
        return result if bias is None else _plus(result, bias)
    pa, pb, pc = a.ctypes.data, b.ctypes.data, c.ctypes.data
    beta = 0.0 if bias is None else 1.0
    parts = _team_width(work)
    first = kind = None
    if parts > 1:
        kind = _kind(a.dtype, m, n, k)
        split, first = _caller_first(work, kind)
        if not split:
            # One such product in PROBE_EVERY is split (evenly) all the same,
            # so that the team measures its lag again once a passing load
            # is gone.
            _state["unsplit"] += 1
            if _state["unsplit"] % PROBE_EVERY:
                parts = 1
    if parts <= 1:
        if bias is not None:
            c[...] = bias
        gemm(transa, transb, m, n, k, pa, lda, pb, ldb, pc, ldc, beta)
    elif m >= n:
        # Rows of C and of op(A); the calling thread's part (the first) is
        # timed and sized to finish with the helpers' (see _split_first).
        step_a = size if transa else lda * size
        ranges = _bounds(m, parts, first)

        def rows(i):
            r0, r1 = ranges[i]
            if bias is not None:
                c[r0:r1] = bias
            args = (
                transa, transb, r1 - r0, n, k, pa + r0 * step_a, lda, pb, ldb,
                pc + r0 * ldc * size, ldc, beta,
            )  # fmt: skip
            if i:
                gemm(*args)
            else:
                _timed(kind, (r1 - r0) * n * k, gemm, *args)

        _parallel.run(rows, len(ranges))
    else:
        # Columns of C and of op(B), likewise.
        step_b = ldb * size if transb else size
        ranges = _bounds(n, parts, first)

        def columns(i):
            c0, c1 = ranges[i]
            if bias is not None:
                c[:, c0:c1] = bias[c0:c1]
            args = (
                transa, transb, m, c1 - c0, k, pa, lda, pb + c0 * step_b, ldb,
                pc + c0 * size, ldc, beta,
            )  # fmt: skip
            if i:
                gemm(*args)
            else:
                _timed(kind, m * (c1 - c0) * k, gemm, *args)

        _parallel.run(columns, len(ranges))
    return c if in_place else _deliver(c, out)


#: Whether :func:`matmuls` runs products side by side (False: each in turn,
#: split; for comparisons).
SIDE_BY_SIDE = True
#: ... when the largest product has at most this many times the smallest's
#: multiply-adds (otherwise one thread would wait for the other).
SIDE_BY_SIDE_BALANCE = 2.0


def matmuls(pairs):
    """``chainer.utils.gemm.matmuls``'s plugin side: independent products at once.

    Where :func:`matmul` uses MKL and the products are as many as the team's
    threads, each of at least :data:`SPLIT_MIN` multiply-adds and within
    :data:`SIDE_BY_SIDE_BALANCE` of one another, each runs whole on its own
    thread (one team run); otherwise each goes through :func:`matmul` in
    turn, split among the threads. For the two gradient products of a
    ``(100, 1000) @ (1000, 1000)`` layer: 1.93 vs 2.24 ms (minimum of 40
    interleaved rounds, 2-core Xeon, oneMKL 2026.2): one product's operands
    stay in one core's cache and MKL packs each operand once, not once per
    half. Products of billions of multiply-adds gained nothing either way.

    Args:
        pairs (list of tuple): ``(a, b)`` pairs of 2-d NumPy arrays.

    Returns:
        list of numpy.ndarray: ``[a @ b for a, b in pairs]``.
    """
    if SIDE_BY_SIDE and len(pairs) > 1 and choice() == "mkl" and not _parallel.busy():
        works = [a.shape[0] * a.shape[1] * b.shape[1] for a, b in pairs]
        low = min(works)
        if low >= SPLIT_MIN and max(works) <= SIDE_BY_SIDE_BALANCE * low:
            _parallel.engage()
            if _parallel.width() == len(pairs):
                # Inside the run matmul sees the team busy and does not split.
                return _parallel.run(lambda i: matmul(*pairs[i]), len(pairs))
    return [matmul(a, b) for a, b in pairs]


def _plus(result, bias):
    # The product plus the bias row, in place.
    result += bias
    return result


#: Right operands of at least this many elements are packed by
#: :func:`right_operand` (packing a smaller one saves less than it costs).
PACK_MIN = 1 << 16
#: ... and only for at least this many expected products: packing costs about
#: two products' time and saves about a third of each.
PACK_MIN_USES = 8


def right_operand(b, uses=None):
    """``chainer.utils.gemm.right_operand``'s plugin side: ``b`` packed for MKL.

    Where :func:`matmul` uses MKL, a float32/float64 ``b`` of at least
    :data:`PACK_MIN` elements is copied once into oneMKL's packed format
    (``cblas_?gemm_pack``, one buffer per column range of the team's split)
    and every product then runs ``cblas_?gemm_compute``, which skips the
    packing that each ``cblas_?gemm`` call does. For the forward recurrent
    products of the n-step LSTM LM, ``(20, 650) @ (650, 2600)``: 0.65 vs
    0.96 ms on a two-thread team in isolation; inside the workload's step
    the 70 products took 51.7 vs 56.4 ms, packing (about 1.9 ms a weight)
    included (2-vCPU Xeon, oneMKL 2026.2). Products with a ``(2600, 650)``
    right operand gained nothing. MKL's buffers take about three times
    ``b``'s memory.

    Each column range is packed at its first product by the thread that
    computes it (:data:`PACK_IN_PARTS`), and the calling thread's range is
    sized by the helpers' measured lag as :func:`matmul` sizes its parts
    (from the second packed operand of a kind on, once the caller's speed
    is known). The same 70 products, in-process alternation on a 2-vCPU
    Xeon (family 6 model 167): 45.3 -> 42.6 ms a forward for the packing
    in parts, 45.9 -> 44.4 ms for the lag-sized ranges (a caller share of
    0.57 for a 79 us lag). Each range is packed for products of the first
    product's rows (MKL lays the buffer out by that count; any count may
    use it): 43.5 -> 38.4 ms against buffers packed for one row.

    Args:
        b (numpy.ndarray): The ``(k, n)`` right operand.
        uses (int or None): Products expected; fewer than
            :data:`PACK_MIN_USES` are left to :func:`matmul`.

    Returns:
        callable or None: ``product(a, out=None, accumulate=False)``, or None
        (the caller then multiplies with :func:`matmul`).
    """
    k, n = b.shape
    if uses is not None and uses < PACK_MIN_USES:
        return None
    if b.size < PACK_MIN or max(k, n) > _mkl.INT_MAX or choice() != "mkl":
        return None
    functions = _mkl.packed_functions(b.dtype)
    if functions is None:
        return None
    return _PackedProduct(b, *functions)


#: Whether each thread packs its own column range of a packed right operand
#: (False: the calling thread packs every range first; for comparisons).
PACK_IN_PARTS = True


class _PackedProduct:
    # a @ b for a fixed b, on packed copies of b's column ranges. Each range
    # is packed on its first product by the thread that computes it (the
    # packing is split like the products, and each packed range stays in
    # the cache of the core that uses it); the calling thread's range is
    # sized by the helpers' measured lag (see _split_first), chosen at the
    # first product of a team width.

    def __init__(self, b, pack, compute):
        self._b = b
        self._operand = _operand(b)
        self._pack = pack
        self._compute = compute
        # Team width -> (column ranges, their packed buffers, None until
        # packed).
        self._layouts = {}

    def _layout(self, width, work, kind):
        layout = self._layouts.get(width)
        if layout is None:
            split, first = _caller_first(work, kind) if width > 1 else (False, None)
            ranges = _bounds(self._b.shape[1], width if split else 1, first)
            layout = self._layouts[width] = (ranges, [None] * len(ranges))
        return layout

    def _packed(self, packs, i, c0, c1, m):
        # The buffer of range i, packed for products of m rows (the first
        # product's) if not yet, and whether it was packed before.
        packed = packs[i]
        if packed is None:
            b, transb, ldb = self._operand
            step_b = ldb * b.itemsize if transb else b.itemsize
            k = self._b.shape[0]
            start = b.ctypes.data + c0 * step_b
            packed = packs[i] = self._pack(transb, m, c1 - c0, k, start, ldb)
            return packed, False
        return packed, True

    def __call__(self, a, out=None, accumulate=False):
        m, k = a.shape
        n = self._b.shape[1]
        if a.dtype != self._b.dtype or m > _mkl.INT_MAX:
            return _deliver(matmul(a, self._b), out, accumulate)
        size = a.itemsize
        c, in_place, ldc = _destination(out, a.dtype, m, n)
        beta = 1.0 if accumulate and in_place else 0.0
        a, transa, lda = _operand(a)
        pa, pc = a.ctypes.data, c.ctypes.data
        work = m * n * k
        kind = ("packed", *_kind(a.dtype, m, n, k))
        ranges, packs = self._layout(_team_width(work), work, kind)
        compute = self._compute
        if not PACK_IN_PARTS:
            for i, (c0, c1) in enumerate(ranges):
                self._packed(packs, i, c0, c1, m)

        def columns(i):
            c0, c1 = ranges[i]
            packed, packed_before = self._packed(packs, i, c0, c1, m)
            args = (transa, m, c1 - c0, k, pa, lda, packed, pc + c0 * size, ldc, beta)
            # The caller's product is timed unless it packed its range first.
            if i or not packed_before:
                compute(*args)
            else:
                _timed(kind, m * (c1 - c0) * k, compute, *args)

        if len(ranges) == 1:
            columns(0)
        else:
            _parallel.run(columns, len(ranges))
        return c if in_place else _deliver(c, out, accumulate)
