"""NumPy kernels of ``GradientClipping``'s two passes, split among the CPU team.

``chainer.optimizer_hooks.GradientClipping`` reads every gradient once for
the global norm and, when it clips, multiplies every gradient by the rate.
Both passes are bound by how fast a core streams memory. On the 2-core Xeon
of ``benchmarks/results.md`` (one thread per core, 300 MiB L3) two cores
stream about 1.5x what one does (26 MB: 0.78 vs 1.19 ms for the sum of
squares, 0.79 vs 1.16 ms for the scaling), so these kernels cut the
concatenation of all gradients into one contiguous range per thread of the
team (:mod:`chainer_cpu._parallel`) and run each pass as one team run, however
many parameters there are.

chainer-core hands them the float32/float64 NumPy gradients (its hook keys
``SUM_SQUARES_KEY`` and ``SCALE_KEY``); non-contiguous ones run whole on the
calling thread. Results equal NumPy's ``g *= rate``; the sum of squares adds
``numpy.vdot`` of each range in float64.
"""

import numpy

from chainer_cpu import _parallel

#: Fewer elements in all than this run on the calling thread: a team run
#: costs more than splitting saves below it.
PARALLEL_MIN = 1 << 18
#: Range boundaries fall on multiples of this many elements (one cache line
#: of float32).
_ALIGN = 16

_vdot = numpy.vdot
_multiply = numpy.multiply


def plan(sizes, parts):
    """Cuts the concatenation of arrays of ``sizes`` into ``parts`` ranges.

    Args:
        sizes (list of int): Element counts of the arrays, in order.
        parts (int): Number of ranges (the team's width).

    Returns:
        list: One list per range of ``(array index, start, stop)`` pieces;
        together they cover every element once.
    """
    total = sum(sizes)
    cuts = [total * p // parts // _ALIGN * _ALIGN for p in range(parts)] + [total]
    pieces = [[] for _ in range(parts)]
    part = 0
    offset = 0
    for index, size in enumerate(sizes):
        start = 0
        while start < size:
            while cuts[part + 1] <= offset + start:
                part += 1
            stop = min(size, cuts[part + 1] - offset)
            pieces[part].append((index, start, stop))
            start = stop
        offset += size
    return [p for p in pieces if p]


def _split(arrays, work):
    # Runs work(flat, start, stop) over the contiguous arrays' pieces on the
    # team; returns [(array index, result)] and the non-contiguous indexes.
    flats = []
    indexes = []
    rest = []
    for i, a in enumerate(arrays):
        if a.flags.c_contiguous:
            flats.append(a.reshape(-1))
            indexes.append(i)
        else:
            rest.append(i)
    sizes = [f.size for f in flats]
    parts = 1
    if sum(sizes) >= PARALLEL_MIN:
        _parallel.engage()
        parts = _parallel.width()
    pieces = plan(sizes, parts)

    def run(p):
        return [(indexes[k], work(flats[k], s, e)) for k, s, e in pieces[p]]

    results = [pair for part in _parallel.run(run, len(pieces)) for pair in part]
    return results, rest


def _square_sum(flat, start, stop):
    piece = flat[start:stop]
    return float(_vdot(piece, piece))


def sum_squares(arrays):
    """Sum of squares of each array (``GradientClipping``'s norm pass).

    Args:
        arrays (list of numpy.ndarray): float32/float64 arrays.

    Returns:
        list of float: One sum per array.
    """
    sums = [0.0] * len(arrays)
    results, rest = _split(arrays, _square_sum)
    for i, value in results:
        sums[i] += value
    for i in rest:
        flat = arrays[i].ravel()
        sums[i] = float(_vdot(flat, flat))
    return sums


def scale(arrays, rate):
    """Multiplies each array by ``rate`` in place (``GradientClipping``'s rescale).

    Args:
        arrays (list of numpy.ndarray): float32/float64 arrays.
        rate (float): The factor.
    """

    def multiply(flat, start, stop):
        piece = flat[start:stop]
        _multiply(piece, rate, out=piece)

    _, rest = _split(arrays, multiply)
    for i in rest:
        arrays[i] *= rate
