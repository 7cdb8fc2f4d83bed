"""NumPy kernel of the forward of ``chainer.functions.connection.linear``.

It computes what the reference computes, ``x @ W.T + b`` (half precision
multiplied in float32), with the product taken by :func:`chainer_cpu._gemm.matmul`:
oneMKL split among the CPU team's threads where the ``mkl`` extra is
installed (the bias written into each thread's part of ``y`` before its
product, which MKL adds to), ``numpy.matmul`` otherwise. The backward pass
reaches the same GEMM through chainer-core's ``chainer.utils.gemm.matmuls``
hook (both gradients side by side, :func:`chainer_cpu._gemm.matmuls`), or,
inside a double-backprop graph, through the kernel of chainer-core's
``MatMul`` (:mod:`chainer_cpu.primitive_ops.basic_math`).
"""

import numpy

from chainer_cpu import _gemm

#: Whether the bias goes into the product (False: added afterwards, as the
#: reference does; for comparisons).
FUSE_BIAS = True


def linear(node, inputs):
    """Forward of ``LinearFunction``: ``(x, W[, b])`` to ``(y,)``.

    Retains ``x`` and ``W`` as the node's forward does.
    """
    x, W = inputs[:2]
    node.retain_inputs((0, 1))
    if x.dtype == W.dtype and x.dtype.itemsize > 2:
        if len(inputs) == 3 and FUSE_BIAS:
            return (_gemm.matmul(x, W.T, bias=inputs[2]),)
        y = _gemm.matmul(x, W.T)
    else:
        dtype = numpy.promote_types(
            numpy.promote_types(x.dtype, W.dtype), numpy.float32
        )
        y = _gemm.matmul(x.astype(dtype, copy=False), W.T.astype(dtype, copy=False))
        y = y.astype(x.dtype, copy=False)
    if len(inputs) == 3:
        y += inputs[2]
    return (y,)
