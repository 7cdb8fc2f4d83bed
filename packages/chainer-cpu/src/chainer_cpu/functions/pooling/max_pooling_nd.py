"""NumPy kernels of N-d max pooling and its gradient.

Kernel overrides for ``(MaxPoolingND, "numpy")`` (and ``MaxPooling2D``) and
``(MaxPoolingNDGrad, "numpy")``, registered by :mod:`chainer_cpu._plugin`.
They compute what the catalogue's reference implementation
(:mod:`chainer.functions.pooling.max_pooling_nd`) computes, in the memory
order of the input (see :mod:`chainer_cpu.functions.pooling.pooling_nd`): a
batch-innermost input gives a batch-innermost output and input gradient.
Like the reference, the forward kernel finds the maxima only and leaves the
argmax to the node (``keep_for_argmax``), which finds it on first use
(``compact_indexes``) in the memory order of what it kept. From the nodes
they read only documented names: the geometry of ``setup_geometry``,
``keep_for_argmax``, ``mpool`` and ``compact_indexes``.
"""

import numpy

from chainer_cpu.functions.pooling import pooling_nd


def max_pooling(node, inputs):
    """Forward of ``MaxPoolingND``: the window maxima.

    Args:
        node (~chainer.FunctionNode): The max pooling node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``, batch-innermost if ``x`` is, else C-contiguous.
    """
    (x,) = inputs
    node.setup_geometry(x.shape[2:])
    x = pooling_nd.pad(x, node.pad, node.pad_hi, -numpy.inf, dense=True)
    y = pooling_nd.reduce_windows(
        x, node.ksize, node.stride, node.out_size, numpy.maximum
    )
    node.keep_for_argmax(x, y)
    return (y,)


def max_pooling_grad(node, inputs):
    """Forward of ``MaxPoolingNDGrad``: routes ``gy`` to each window's argmax.

    The input gradient takes the memory order of the argmax, which the
    pooling node found in the memory order of its input.

    Args:
        node (~chainer.FunctionNode): The MaxPoolingNDGrad node (holds the
            pooling node as ``mpool``).
        inputs (tuple): ``(gy,)``.

    Returns:
        tuple: ``(gx,)`` of the pooling input's shape.
    """
    (gy,) = inputs
    p = node.mpool
    idx = p.compact_indexes()
    slices, shape, disjoint = pooling_nd.geometry(p, gy.shape[:2])
    batch_innermost = pooling_nd.is_batch_innermost(idx)
    # The passes below run over gy and idx together: in two memory orders
    # they run 3.6x slower (LeNet's second pooling layer, whose gy comes
    # C-ordered from the linear layer after it) than after this small copy.
    gy = pooling_nd.in_order(gy, batch_innermost)
    buf = pooling_nd.alloc(shape, gy.dtype, slices, disjoint, batch_innermost)

    def scatter(c0, c1):
        part = (slice(None), slice(c0, c1))
        pooling_nd.scatter_windows(gy[part], idx[part], slices, buf[part], disjoint)

    pooling_nd.by_channels(scatter, gy.shape[1], buf.nbytes)
    return (pooling_nd.crop(buf, p.pad, p.in_size),)
