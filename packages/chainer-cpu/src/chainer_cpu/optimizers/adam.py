"""NumPy kernel of ``AdamRule``'s update (``chainer.optimizers.adam``), cache-blocked.

The reference update makes about a dozen full passes over arrays of the
parameter's size (``m``, ``v``, the gradient, a scratch array, the
parameter). For a parameter larger than the core's L2 cache each pass
streams from L3 or memory. This kernel runs the same sequence of NumPy
operations block by block, on blocks sized so that the five arrays' blocks
stay in L2 (:func:`block_elements`, from the size the machine reports), so
each element crosses the cache boundary about once per array: 5.5 vs
9.8 ms for the 1.8 M parameters of ``benchmarks/workloads/mlp_step.py``
(Xeon with 2 MiB L2 per core, NumPy 2.4, one thread).

Where chainer-cpu's GEMM is oneMKL (the ``mkl`` extra, see
:mod:`chainer_cpu._gemm`), ``cblas_?axpby`` updates ``m``, ``v`` and the
parameter in one pass each (``m = beta1 m + (1 - beta1) g`` and so on):
seven passes per block instead of twelve; the results then differ from the
reference's by rounding (a few units in the last place of the arrays'
scale). The MLP's update: 4.23 -> 3.39 ms alone, 5.24 -> 4.37 ms inside the
train step (medians of 90 interleaved steps); the step won 26 of 30 rounds
of ``benchmarks/ab_step.py mlp``. MKL's ``v?Sqrt`` and ``v?LinearFrac`` were
no faster than NumPy's passes, and ``v?Sqrt`` takes a slow path on zeros
(the second moment of a weight whose gradient is zero): 450 vs 12 us for a
block half zeros.

Plain Adam with ``eta`` and ``weight_decay_rate`` on float32/float64
C-contiguous arrays takes the blocked path; AMSGrad, AdaBound, other dtypes
and small parameters run the rule's own ``update_core_cpu``. From the rule
it reads only documented names: ``hyperparam``, ``state['m']``,
``state['v']``, ``alpha_t`` and ``check_eps``.
"""

import numpy

from chainer_cpu import _gemm
from chainer_cpu import _machine
from chainer_cpu import _parallel

#: Whether the blocked update uses oneMKL's fused passes where MKL is in use
#: (False: NumPy's passes, equal to the reference; for comparisons).
USE_MKL = True

_subtract = numpy.subtract
_multiply = numpy.multiply
_sqrt = numpy.sqrt
_divide = numpy.divide


def block_elements(itemsize):
    """Elements per block: five arrays' blocks fill half of one core's L2."""
    return max(4096, _machine.cache_bytes(2) // (10 * itemsize))


def _blocked(rule, param):
    # The flat arrays of a plain-Adam update that blocking speeds up, or None.
    hp = rule.hyperparam
    if hp.amsgrad or hp.adabound:
        return None
    data, grad = param.array, param.grad
    m, v = rule.state["m"], rule.state["v"]
    if data.dtype.char not in "fd":
        return None
    if data.size < 2 * block_elements(data.itemsize):
        return None
    for a in (data, grad, m, v):
        if a.dtype != data.dtype or not a.flags.c_contiguous or a.shape != data.shape:
            return None
    return data.reshape(-1), grad.reshape(-1), m.reshape(-1), v.reshape(-1)


def _mkl_axpby(dtype, size):
    # oneMKL's axpby for the fused passes, or None.
    return _gemm.axpby_function(dtype, size) if USE_MKL else None


def adam(rule, param):
    """One ``AdamRule`` step on a NumPy parameter, in place.

    Args:
        rule (~chainer.optimizers.adam.AdamRule): The update rule.
        param (~chainer.Variable): Parameter with a gradient.
    """
    arrays = _blocked(rule, param)
    if arrays is None:
        rule.update_core_cpu(param)
        return
    p, g, m, v = arrays
    rule.check_eps(g.dtype)
    hp = rule.hyperparam
    beta1, beta2 = hp.beta1, hp.beta2
    one_minus_beta1 = 1.0 - beta1
    one_minus_beta2 = 1.0 - beta2
    eps = hp.eps
    step = hp.eta * rule.alpha_t
    decay = 1.0 - hp.eta * hp.weight_decay_rate if hp.weight_decay_rate != 0 else None
    size = p.size
    block = block_elements(p.itemsize)
    _parallel.engage()
    axpby = _mkl_axpby(p.dtype, size)
    if axpby is not None:
        itemsize = p.itemsize
        pg, pm, pv, pp = (a.ctypes.data for a in (g, m, v, p))
        keep = 1.0 if decay is None else decay

        def update_mkl(start, stop, t):
            n = stop - start
            at = start * itemsize
            pt = t.ctypes.data
            # m = b1 m + (1 - b1) g and v = b2 v + (1 - b2) g^2, one pass each.
            axpby(n, one_minus_beta1, pg + at, beta1, pm + at)
            _multiply(g[start:stop], g[start:stop], out=t)
            axpby(n, one_minus_beta2, pt, beta2, pv + at)
            _sqrt(v[start:stop], out=t)
            t += eps
            _divide(m[start:stop], t, out=t)
            axpby(n, -step, pt, keep, pp + at)  # p = keep p - step m / (...)

        _parallel.by_blocks(update_mkl, size, block, p.dtype)
        return

    def update(start, stop, t):
        gb, mb, vb, pb = g[start:stop], m[start:stop], v[start:stop], p[start:stop]
        # The reference's operations, in its order (results equal to it).
        _subtract(gb, mb, out=t)
        t *= one_minus_beta1
        mb += t
        _multiply(gb, gb, out=t)
        t -= vb
        t *= one_minus_beta2
        vb += t
        _sqrt(vb, out=t)
        t += eps
        _divide(mb, t, out=t)
        t *= step
        if decay is not None:
            pb *= decay
        pb -= t

    _parallel.by_blocks(update, size, block, p.dtype)
