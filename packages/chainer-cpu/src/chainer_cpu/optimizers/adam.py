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

Plain Adam with ``eta`` and ``weight_decay_rate`` on float32/float64
C-contiguous arrays takes the blocked path; AMSGrad, AdaBound, other dtypes
and small parameters run the rule's own ``update_core_cpu``. From the rule
it reads only documented names: ``hyperparam``, ``state['m']``,
``state['v']``, ``alpha_t`` and ``check_eps``.
"""

import numpy

from chainer_cpu import _machine
from chainer_cpu import _parallel

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
    one_minus_beta1 = 1.0 - hp.beta1
    one_minus_beta2 = 1.0 - hp.beta2
    eps = hp.eps
    step = hp.eta * rule.alpha_t
    decay = 1.0 - hp.eta * hp.weight_decay_rate if hp.weight_decay_rate != 0 else None
    size = p.size
    block = block_elements(p.itemsize)
    starts = range(0, size, block)
    _parallel.engage()
    # Thread t of the team runs blocks t, t + w, ... (see _parallel.run), so
    # each thread has its own row of scratch.
    scratch = numpy.empty((max(1, _parallel.width()), block), p.dtype)

    def update(k):
        start = starts[k]
        stop = min(start + block, size)
        gb, mb, vb, pb = g[start:stop], m[start:stop], v[start:stop], p[start:stop]
        t = scratch[k % len(scratch), : stop - start]
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

    _parallel.run(update, len(starts))
