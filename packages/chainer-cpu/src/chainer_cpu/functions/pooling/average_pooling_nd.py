"""NumPy kernels of N-d average pooling and its gradient.

Kernel overrides for ``(AveragePoolingND, "numpy")`` (and
``AveragePooling2D``) and ``(AveragePoolingNDGrad, "numpy")``, registered by
:mod:`chainer_cpu._plugin`. They compute what the catalogue's reference
implementation (:mod:`chainer.functions.pooling.average_pooling_nd`)
computes, in the memory order of their input (see
:mod:`chainer_cpu.functions.pooling.pooling_nd`): a batch-innermost
(channels-last) ``x`` gives a batch-innermost (channels-last) output, and
``gy`` likewise an input gradient in its own order. From the nodes they
read only documented names: the geometry of ``setup_geometry``,
``divisor`` and ``apool``.
"""

import numpy

from chainer_cpu.functions.pooling import pooling_nd


def average_pooling(node, inputs):
    """Forward of ``AveragePoolingND``: the window means.

    Args:
        node (~chainer.FunctionNode): The average pooling node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``, batch-innermost or channels-last if ``x`` is, else
        C-contiguous.
    """
    (x,) = inputs
    node.setup_geometry(x.shape[2:])
    x = pooling_nd.pad(x, node.pad, node.pad_hi, 0)
    y = pooling_nd.pool_windows(x, node.ksize, node.stride, node.out_size, numpy.add)
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
    order = pooling_nd.order_of(g)
    buf = pooling_nd.alloc(shape, g.dtype, slices, disjoint, order)

    def spread(part):
        pooling_nd.spread_windows(g[part], slices, buf[part], disjoint)

    pooling_nd.split(spread, g.shape[:2], order, buf.nbytes)
    return (pooling_nd.crop(buf, p.pad, p.in_size),)
