"""NumPy kernels of the ``SGDRule`` and ``MomentumSGDRule`` updates: one pass each.

The reference updates (``chainer.optimizers.sgd``, ``momentum_sgd``) make a
temporary of the parameter's size for ``lr * grad`` and pass over the arrays
two or three times. These kernels update large float32/float64 parameters in
place in one pass per array:

- with oneMKL (the ``mkl`` extra, where chainer-cpu's GEMM uses it, see
  :mod:`chainer_cpu._gemm`): ``cblas_?axpby``, ``data = -lr * grad + data``,
  and for momentum ``v = -lr * grad + momentum * v`` then ``data = v + data``.
  The multiply-adds may be fused, so a result can differ from the rule's by
  one unit in the last place;
- otherwise the rule's own NumPy operations, in its order (results equal to
  it), block by block through an L2-sized scratch block instead of a
  parameter-sized temporary.

For the 19.8 M float32 parameters of the LSTM LM workloads
(``benchmarks/workloads/lstm_lm_step.py``) an SGD update took 14.2 ms with
MKL, 20.5 blocked and 29.5 with the reference (medians of 15 interleaved
rounds, 2-vCPU Xeon, NumPy 2.4, one thread). The passes are bound by how
fast a core streams memory; on the 2-core Xeon of ``benchmarks/results.md``
(one thread per core) two cores stream about 1.5x what one does, so
parameters of at least :data:`PARALLEL_MIN` elements are cut into one range
per thread of the team (:mod:`chainer_cpu._parallel`): the same update
11.1 -> 7.4 ms (PyTorch's ``SGD.step``: 11.4 ms on one thread, 5.9 on two).

Small, non-contiguous and other-dtype parameters take the rule's own
``update_core_cpu``. From the rules they read only ``hyperparam`` (``lr``,
``momentum``) and ``state['v']``.
"""

import numpy

from chainer_cpu import _gemm
from chainer_cpu import _machine
from chainer_cpu import _parallel

#: Parameters of fewer elements run the rule's own update (a ctypes call or
#: a blocked loop costs more than it saves below this).
MIN_ELEMENTS = 1 << 14
#: Parameters of at least this many elements are updated by the team's
#: threads, one range (or every other block) each.
PARALLEL_MIN = 1 << 18

_multiply = numpy.multiply
_subtract = numpy.subtract


def block_elements(itemsize):
    """Elements per scratch block of the NumPy path: an eighth of one core's L2."""
    return max(4096, _machine.cache_bytes(2) // (8 * itemsize))


def _flat(*arrays):
    # Flat views of same-shape, same-dtype, C-contiguous float32/float64
    # arrays of at least MIN_ELEMENTS, or None.
    first = arrays[0]
    if first.dtype.char not in "fd" or first.size < MIN_ELEMENTS:
        return None
    for a in arrays:
        if a.dtype != first.dtype or a.shape != first.shape or not a.flags.c_contiguous:
            return None
    return [a.reshape(-1) for a in arrays]


def _python_numbers(*values):
    # Whether the hyperparameters are Python numbers: a NumPy float64 scalar
    # would make the rule's ``lr * grad`` a float64 array (NumPy 2), which
    # the float32 scratch block would round differently.
    return all(type(value) in (float, int) for value in values)


def _by_ranges(fn, size):
    # fn(start, stop) over one contiguous range per team thread (one range on
    # the calling thread below PARALLEL_MIN elements).
    parallel = size >= PARALLEL_MIN
    if parallel:
        _parallel.engage()
    _parallel.by_ranges(fn, size, parallel)


def _by_blocks(fn, data):
    # fn(start, stop, scratch) over L2-sized blocks of data, on the team
    # from PARALLEL_MIN elements.
    parallel = data.size >= PARALLEL_MIN
    if parallel:
        _parallel.engage()
    block = block_elements(data.itemsize)
    _parallel.by_blocks(fn, data.size, block, data.dtype, parallel)


def sgd(rule, param):
    """One ``SGDRule`` step on a NumPy parameter, in place.

    Args:
        rule (~chainer.optimizers.SGDRule): The update rule.
        param (~chainer.Variable): Parameter with a gradient.
    """
    flat = _flat(param.array, param.grad)
    if flat is None:
        rule.update_core_cpu(param)
        return
    data, grad = flat
    lr = rule.hyperparam.lr
    axpby = _gemm.axpby_function(data.dtype, data.size)
    if axpby is not None:
        item = data.itemsize
        pg, pd = grad.ctypes.data, data.ctypes.data

        def update_mkl(start, stop):
            axpby(stop - start, -lr, pg + start * item, 1.0, pd + start * item)

        _by_ranges(update_mkl, data.size)
        return
    if not _python_numbers(lr):
        rule.update_core_cpu(param)
        return

    def update(start, stop, t):
        t = _multiply(grad[start:stop], lr, out=t)
        d = data[start:stop]
        _subtract(d, t, out=d)

    _by_blocks(update, data)


def momentum_sgd(rule, param):
    """One ``MomentumSGDRule`` step on a NumPy parameter, in place.

    Args:
        rule (~chainer.optimizers.MomentumSGDRule): The update rule.
        param (~chainer.Variable): Parameter with a gradient.
    """
    flat = _flat(param.array, param.grad, rule.state["v"])
    if flat is None:
        rule.update_core_cpu(param)
        return
    data, grad, v = flat
    hp = rule.hyperparam
    lr, momentum = hp.lr, hp.momentum
    axpby = _gemm.axpby_function(data.dtype, data.size)
    if axpby is not None:
        item = data.itemsize
        pg, pv, pd = grad.ctypes.data, v.ctypes.data, data.ctypes.data

        def update_mkl(start, stop):
            n, at = stop - start, start * item
            axpby(n, -lr, pg + at, momentum, pv + at)
            axpby(n, 1.0, pv + at, 1.0, pd + at)

        _by_ranges(update_mkl, data.size)
        return
    if not _python_numbers(lr, momentum):
        rule.update_core_cpu(param)
        return

    def update(start, stop, t):
        vb, db = v[start:stop], data[start:stop]
        vb *= momentum
        vb -= _multiply(grad[start:stop], lr, out=t)
        db += vb

    _by_blocks(update, data)
