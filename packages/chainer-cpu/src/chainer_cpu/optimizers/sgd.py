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
rounds, 2-vCPU Xeon, NumPy 2.4). The passes are bound by memory bandwidth;
the two vCPUs of that machine (hyperthread siblings) gave no more on two
threads, so the kernels run on the calling thread.

Small, non-contiguous and other-dtype parameters take the rule's own
``update_core_cpu``. From the rules they read only ``hyperparam`` (``lr``,
``momentum``) and ``state['v']``.
"""

import numpy

from chainer_cpu import _gemm
from chainer_cpu import _machine

#: Parameters of fewer elements run the rule's own update (a ctypes call or
#: a blocked loop costs more than it saves below this).
MIN_ELEMENTS = 1 << 14

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


def _blocks(size, block):
    return [(start, min(start + block, size)) for start in range(0, size, block)]


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
        axpby(data.size, -lr, grad.ctypes.data, 1.0, data.ctypes.data)
        return
    if not _python_numbers(lr):
        rule.update_core_cpu(param)
        return
    block = block_elements(data.itemsize)
    scratch = numpy.empty(block, data.dtype)
    for start, stop in _blocks(data.size, block):
        t = _multiply(grad[start:stop], lr, out=scratch[: stop - start])
        d = data[start:stop]
        _subtract(d, t, out=d)


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
        axpby(v.size, -lr, grad.ctypes.data, momentum, v.ctypes.data)
        axpby(data.size, 1.0, v.ctypes.data, 1.0, data.ctypes.data)
        return
    if not _python_numbers(lr, momentum):
        rule.update_core_cpu(param)
        return
    block = block_elements(data.itemsize)
    scratch = numpy.empty(block, data.dtype)
    for start, stop in _blocks(data.size, block):
        vb, db = v[start:stop], data[start:stop]
        vb *= momentum
        vb -= _multiply(grad[start:stop], lr, out=scratch[: stop - start])
        db += vb
