"""NumPy kernels of N-d average pooling and its gradient.

Kernel overrides for ``(AveragePoolingND, "numpy")`` (and
``AveragePooling2D``) and ``(AveragePoolingNDGrad, "numpy")``, registered by
:mod:`chainer_cpu._plugin`. They compute what the catalogue's reference
implementation (:mod:`chainer.functions.pooling.average_pooling_nd`)
computes, in the memory order of their input (see
:mod:`chainer_cpu.functions.pooling.pooling_nd`): a batch-innermost ``x``
gives a batch-innermost output, a batch-innermost ``gy`` a batch-innermost
input gradient. From the nodes they read only documented names: the
geometry of ``setup_geometry``, ``divisor`` and ``apool``.
"""

import numpy

from chainer_cpu.functions.pooling import pooling_nd


def average_pooling(node, inputs):
    """Forward of ``AveragePoolingND``: the window means.

    Args:
        node (~chainer.FunctionNode): The average pooling node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``, batch-innermost if ``x`` is, else C-contiguous.
    """
    (x,) = inputs
    node.setup_geometry(x.shape[2:])
    x = pooling_nd.pad(x, node.pad, node.pad_hi, 0)
    y = pooling_nd.reduce_windows(x, node.ksize, node.stride, node.out_size, numpy.add)
    y /= node.divisor(numpy, y.dtype)
    return (y,)


def average_pooling_grad(node, inputs):
    """Forward of ``AveragePoolingNDGrad``: spreads ``gy`` evenly over each window.

    Args:
        node (~chainer.FunctionNode): The AveragePoolingNDGrad node (holds
            the pooling node as ``apool``).
        inputs (tuple): ``(gy,)``.

    Returns:
        tuple: ``(gx,)`` of the pooling input's shape.
    """
    (gy,) = inputs
    p = node.apool
    g = gy / p.divisor(numpy, gy.dtype)
    slices, shape, disjoint = pooling_nd.geometry(p, gy.shape[:2])
    buf = pooling_nd.alloc(
        shape, g.dtype, slices, disjoint, pooling_nd.is_batch_innermost(g)
    )

    def spread(c0, c1):
        part = (slice(None), slice(c0, c1))
        pooling_nd.spread_windows(g[part], slices, buf[part], disjoint)

    pooling_nd.by_channels(spread, g.shape[1], buf.nbytes)
    return (pooling_nd.crop(buf, p.pad, p.in_size),)
