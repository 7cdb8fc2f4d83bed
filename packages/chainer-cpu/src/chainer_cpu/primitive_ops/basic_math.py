"""NumPy kernel of chainer-core's ``MatMul`` (``chainer.primitive_ops.basic_math``).

Products of two matrices of one dtype go through
:func:`chainer_cpu._gemm.matmul` (oneMKL on the CPU team where the ``mkl``
extra is installed); every other case (batched or 1-d operands, mixed
dtypes) is ``numpy.matmul``, as in the reference.
"""

import numpy

from chainer_cpu import _gemm


def matmul(node, inputs):
    """Forward of ``MatMul``: ``(a, b)`` to ``(a @ b,)``; retains both inputs."""
    a, b = inputs
    node.retain_inputs((0, 1))
    if a.ndim == 2 and b.ndim == 2:
        return (_gemm.matmul(a, b),)
    return (numpy.matmul(a, b),)
