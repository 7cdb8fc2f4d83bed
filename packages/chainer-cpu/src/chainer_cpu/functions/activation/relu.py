"""NumPy kernels of ``ReLU`` and ``ReLUGrad`` (``chainer.functions.activation.relu``).

Two NumPy costs that the reference ``maximum(x, 0)`` and ``gy * (y > 0)`` pay
are avoided:

- On small arrays, a maximum or comparison against a Python or NumPy scalar
  costs more than the elementwise work (value-based casting on NumPy 1.x,
  scalar conversion on 2.x: 0.71 vs 0.38 us for ``y > 0`` on a (10, 10)
  float32 array, NumPy 2.4): a cached 0-d zero of the input's dtype is used
  instead.
- On large arrays, NumPy's maximum of an array and a scalar ran 2-3x slower
  than that of two arrays (0.78 vs 0.34 ms for 8 MB of float32 on a 2-core
  AMD machine, NumPy 1.26 and 2.4): inputs that fill their memory block are
  taken in memory order as rows of ``ROW`` elements against a row of zeros.
  The output keeps the input's memory order (batch-innermost convolution
  outputs stay batch-innermost).

From ``PARALLEL_MIN`` elements, both passes are split among the CPU team's
threads (:mod:`chainer_cpu._parallel`); the gradient's compare-and-multiply
runs in cache-sized blocks. For the ReLU layers of one VGG-style step
(``benchmarks/workloads/convnet_step.py``, batch-innermost inputs, forward
and gradient): 3.6 vs 5.1 ms on 2 threads of a 2-core Xeon, NumPy 2.4.

Channels-last arrays (memory ``(n, *spatial, c)``, oneDNN's ``nhwc``) take the
same memory-order passes. A ``gy`` in another memory order than ``y`` (a
C-order gradient against a channels-last output) made NumPy's product
stride through one of them: its gradient is now computed in ``y``'s order,
block by block, each block of ``gy`` copied once while in cache. Forward
and gradient, float32, in-process and interleaved, medians of 386 rounds,
2 threads of a 2-vCPU Xeon, NumPy 2.4:

=================  ===============  =============  =====================
x                  batch-innermost  channels-last  channels-last, C gy
=================  ===============  =============  =====================
(64, 32, 32, 32)   2.9 ms           2.4 ms         3.7 ms (before: 18.2)
(64, 64, 16, 16)   1.5 ms           1.4 ms         1.9 ms (before: 9.0)
(64, 128, 8, 8)    0.90 ms          0.88 ms        1.0 ms (before: 4.7)
=================  ===============  =============  =====================
"""

import itertools

import numpy

from chainer_cpu import _parallel

#: Elements per row of the row-wise maximum of large dense inputs; inputs of
#: at least ``4 * ROW`` float32/float64 elements take that path.
ROW = 16384

#: From this many elements, a gradient whose ``gy`` and ``y`` lie in different
#: memory orders is computed in that of ``y``: 0.26 vs 0.064 ms at 32,768
#: float32 elements (channels-last ``y``, C-order ``gy``), 0.014 vs 0.021 ms
#: at 4,096 (one thread of a 2-vCPU Xeon, NumPy 2.4).
REORDER_MIN = 1 << 13

#: Bytes of ``y`` per block of the gradient of two memory orders (the copy of
#: ``gy``'s block and its mask stay in a 1-2 MB L2 cache).
BLOCK_BYTES = 256 << 10

#: From this many elements, the passes are split among the CPU team's threads
#: (chainer_cpu._parallel; one thread without a team): 0.55 vs 0.86 ms for
#: an 8 MB float32 maximum on 2 threads of a 2-core Xeon, NumPy 2.4.
PARALLEL_MIN = 1 << 18

_ZEROS: dict = {}
_ZERO_ROWS: dict = {}
_FIRST = (0,)
_maximum = numpy.maximum
_greater = numpy.greater


def zero(dtype):
    """A cached 0-d zero array of ``dtype``."""
    z = _ZEROS.get(dtype)
    if z is None:
        z = _ZEROS[dtype] = numpy.zeros((), dtype)
    return z


def is_dense(x):
    """Whether the elements of ``x`` fill one block of memory in some axis order."""
    if x.flags.c_contiguous or x.flags.f_contiguous:
        return True
    expected = x.itemsize
    for st, dim in sorted(
        (st, dim) for st, dim in zip(x.strides, x.shape, strict=True) if dim != 1
    ):
        if st != expected:
            return False
        expected *= dim
    return True


def _flat(a):
    # The elements of a dense array in memory order, as a 1-d view.
    f = a.ravel(order="K")
    return f if numpy.may_share_memory(f, a) else None


def _parts(size):
    # (start, stop) of the runs of whole ROWs that the team's threads take:
    # one per thread, only for arrays of PARALLEL_MIN elements or more.
    width = _parallel.width() if size >= PARALLEL_MIN else 1
    rows = size // ROW
    if width <= 1 or rows < width:
        return [(0, size)]
    bounds = [rows * i // width * ROW for i in range(width)] + [size]
    return list(itertools.pairwise(bounds))


def _max_part(xf, yf, start, stop):
    # yf[start:stop] = maximum(xf[start:stop], 0): whole ROWs against a row
    # of zeros, then the tail against a 0-d zero.
    row = _ZERO_ROWS.get(xf.dtype)
    if row is None:
        row = _ZERO_ROWS[xf.dtype] = numpy.zeros(ROW, xf.dtype)
    whole = start + (stop - start) // ROW * ROW
    if whole > start:
        _maximum(
            xf[start:whole].reshape(-1, ROW),
            row,
            out=yf[start:whole].reshape(-1, ROW),
        )
    if stop > whole:
        _maximum(xf[whole:stop], zero(xf.dtype), out=yf[whole:stop])


def _relu_rows(x):
    # maximum(x, 0) of a large array in memory order; None if x is not dense.
    if not is_dense(x):
        return None
    y = numpy.empty_like(x)
    xf, yf = _flat(x), _flat(y)
    if xf is None or yf is None:
        return None
    parts = _parts(xf.size)
    _parallel.run(lambda i: _max_part(xf, yf, *parts[i]), len(parts))
    return y


def relu(node, inputs):
    """Forward of ``ReLU``: ``max(x, 0)``; retains the output as ``forward`` does."""
    (x,) = inputs
    y = None
    if x.size >= 4 * ROW and x.dtype.char in "fd":
        y = _relu_rows(x)
    if y is None:
        z = _ZEROS.get(x.dtype)
        y = _maximum(x, zero(x.dtype) if z is None else z)
    node.retain_outputs(_FIRST)
    return (y,)


def _grad_part(gf, yf, of, start, stop):
    # of = gf * (yf > 0) over [start, stop), in blocks of 8 ROWs that stay in
    # cache between the compare and the product (blocks of one ROW cost more
    # in calls than they save).
    block = 8 * ROW
    mask = numpy.empty(min(block, stop - start), numpy.bool_)
    z = zero(yf.dtype)
    for lo in range(start, stop, block):
        hi = min(lo + block, stop)
        m = _greater(yf[lo:hi], z, out=mask[: hi - lo])
        numpy.multiply(gf[lo:hi], m, out=of[lo:hi])


def _relu_grad_parts(gy, y):
    # gy * (y > 0) for large dense arrays in the same memory order, on the
    # CPU team's threads; None otherwise.
    if gy.strides != y.strides or gy.dtype.char not in "fd" or not is_dense(y):
        return None
    out = numpy.empty_like(gy)
    gf, yf, of = _flat(gy), _flat(y), _flat(out)
    if gf is None or yf is None or of is None:
        return None
    parts = _parts(gf.size)
    _parallel.run(lambda i: _grad_part(gf, yf, of, *parts[i]), len(parts))
    return out


def _relu_grad_reordered(gy, y):
    # gy * (y > 0) in the memory order of a dense y when gy lies otherwise:
    # blocks of BLOCK_BYTES along y's outermost axis, each copied from gy
    # and masked while in cache, split among the CPU team's threads.
    out = numpy.empty_like(y)
    axis = max(range(y.ndim), key=lambda a: (y.shape[a] > 1, y.strides[a]))
    size = y.shape[axis]
    step = max(1, BLOCK_BYTES * size // max(1, y.nbytes))
    lead = (slice(None),) * axis
    z = zero(y.dtype)

    def part(start, stop):
        for lo in range(start, stop, step):
            key = (*lead, slice(lo, min(lo + step, stop)))
            o = out[key]
            numpy.copyto(o, gy[key])
            numpy.multiply(o, _greater(y[key], z), out=o)

    _parallel.by_ranges(part, size, gy.size >= PARALLEL_MIN)
    return out


def relu_grad(node, inputs):
    """Forward of ``ReLUGrad``: ``gy * (y > 0)`` with ``y = node.y``.

    Large inputs in two memory orders give an output in that of ``y``.
    """
    (gy,) = inputs
    y = node.y
    if gy.size >= REORDER_MIN and gy.strides != y.strides:
        if gy.dtype == y.dtype and gy.dtype.char in "efd" and is_dense(y):
            return (_relu_grad_reordered(gy, y),)
    elif gy.size >= PARALLEL_MIN and _parallel.width() > 1:
        gx = _relu_grad_parts(gy, y)
        if gx is not None:
            return (gx,)
    z = _ZEROS.get(y.dtype)
    return (gy * _greater(y, zero(y.dtype) if z is None else z),)
