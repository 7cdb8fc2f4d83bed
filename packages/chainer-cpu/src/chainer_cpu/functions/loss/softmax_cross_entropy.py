"""NumPy kernel of ``SoftmaxCrossEntropy``: the fused rows, in parallel and in cache.

The catalogue's fused NumPy path (``SoftmaxCrossEntropy.forward_fused_numpy``)
computes the loss and the finished gradient row by row: a maximum, ``x -
max`` into the gradient's buffer, an exponential in place, a row sum and a
scaling pass. This kernel hands it a row runner that splits the rows among
the CPU team's threads (:mod:`chainer_cpu._parallel`) and each thread's
rows into blocks that stay in the core's L2 cache between those passes, so
each element crosses the cache boundary about twice (``x`` read, the
gradient written) instead of once per pass. The operations are the
catalogue's, row for row; only the row sums (a BLAS product with a vector
of ones) may round differently for a block than for the whole matrix.

For the (700, 10000) float32 scores of
``benchmarks/workloads/nstep_lstm_lm_step.py``: 6.0 ms on two threads, 10.7
blocked on one, 12.3 for the catalogue's forward (medians of 40 interleaved
calls, 2-vCPU Xeon with 2 MiB L2, NumPy 2.4). Smaller inputs (below
:data:`PARALLEL_MIN` elements) and the other cases of ``forward`` run the
catalogue's ``forward`` unchanged.
"""

from chainer_cpu import _machine
from chainer_cpu import _parallel

#: Inputs of fewer elements run the catalogue's forward on the calling thread
#: (a team run costs tens of microseconds).
PARALLEL_MIN = 1 << 18


def block_rows(k, itemsize):
    """Rows per block: the block of ``x`` and of the gradient fill half of L2."""
    return max(1, _machine.cache_bytes(2) // (4 * k * itemsize))


def softmax_cross_entropy(node, inputs):
    """Forward of ``SoftmaxCrossEntropy`` on NumPy arrays.

    Args:
        node (~chainer.functions.loss.softmax_cross_entropy.SoftmaxCrossEntropy):
            The node.
        inputs (tuple): ``(x, t)``.

    Returns:
        tuple: The node's outputs, as its ``forward`` returns them.
    """
    x, t = inputs
    if x.size < PARALLEL_MIN or not node.takes_fused_numpy_path(x, t):
        return node.forward(inputs)
    _parallel.engage()
    block = block_rows(x.shape[1], x.itemsize)

    def run_rows(rows, n):
        def part(start, stop):
            for lo in range(start, stop, block):
                rows(lo, min(lo + block, stop))

        _parallel.by_ranges(part, n)

    return node.forward_fused_numpy(x, t, run_rows)
