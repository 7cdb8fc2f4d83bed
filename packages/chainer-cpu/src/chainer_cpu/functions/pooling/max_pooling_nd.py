"""NumPy kernels of N-d max pooling and its gradient.

Kernel overrides for ``(MaxPoolingND, "numpy")`` (and ``MaxPooling2D``) and
``(MaxPoolingNDGrad, "numpy")``, registered by :mod:`chainer_cpu._plugin`.
They compute what the catalogue's reference implementation
(:mod:`chainer.functions.pooling.max_pooling_nd`) computes, in the memory
order of the input (see :mod:`chainer_cpu.functions.pooling.pooling_nd`): a
batch-innermost (channels-last) input gives a batch-innermost
(channels-last) output, argmax and input gradient, whatever the order of the
output gradient. Like the reference, the forward kernel finds the maxima
only and leaves the argmax to the node (``keep_for_argmax``), which finds it
on first use (``compact_indexes``) in the memory order of what it kept. From
the nodes they read only documented names: the geometry of
``setup_geometry``, ``keep_for_argmax``, ``mpool`` and ``compact_indexes``.

Channels-last inputs (oneDNN's ``nhwc`` convolution outputs) used to be
copied into C order, and so gave C-order input gradients. Forward and
backward of the VGG-style layers, 2x2 windows of stride 2, float32, kernels
called in-process and interleaved, medians of 280-390 rounds (2-vCPU Xeon,
NumPy 2.4; 2 threads / 1 thread):

=================  ===============  =============  ==================
x                  batch-innermost  channels-last  channels-last,
                                                   before
=================  ===============  =============  ==================
(64, 32, 32, 32)   7.2 / 9.0 ms     6.7 / 9.2 ms   14.1 / 13.0 ms
(64, 64, 16, 16)   4.4 / 4.9 ms     3.2 / 3.9 ms   8.2 / 7.1 ms
(64, 128, 8, 8)    2.2 / 2.1 ms     1.7 / 1.8 ms   4.7 / 3.6 ms
=================  ===============  =============  ==================

A C-order output gradient (the linear layer after the last pooling layer)
adds a copy into the argmax's order: 1.74 vs 1.69 ms for (64, 128, 8, 8). In
other runs on the shared machine the first layer took 8.2 (channels-last) vs
7.2 ms: the node's argmax reads taps in runs of 32 channels there, against
runs of 64 images in batch-innermost memory (2.3 vs 1.8 ms), which the
forward split by image only partly wins back (1.2 vs 1.9 ms).
"""

import numpy

from chainer_cpu.functions.pooling import pooling_nd


def max_pooling(node, inputs):
    """Forward of ``MaxPoolingND``: the window maxima.

    Args:
        node (~chainer.FunctionNode): The max pooling node.
        inputs (tuple): ``(x,)``.

    Returns:
        tuple: ``(y,)``, batch-innermost or channels-last if ``x`` is, else
        C-contiguous.
    """
    (x,) = inputs
    node.setup_geometry(x.shape[2:])
    x = pooling_nd.pad(x, node.pad, node.pad_hi, -numpy.inf, dense=True)
    y = pooling_nd.pool_windows(
        x, node.ksize, node.stride, node.out_size, numpy.maximum
    )
    node.keep_for_argmax(x, y)
    return (y,)


def max_pooling_grad(node, inputs):
    """Forward of ``MaxPoolingNDGrad``: routes ``gy`` to each window's argmax.

    The input gradient takes the memory order of the argmax, which the
    pooling node found in the memory order of its input; ``gy`` is copied
    into that order first if it lies otherwise.

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
    order = pooling_nd.order_of(idx)
    # The passes below run over gy and idx together: in two memory orders
    # they run 3.6x slower (LeNet's second pooling layer, whose gy comes
    # C-ordered from the linear layer after it) than after this small copy.
    gy = pooling_nd.in_order(gy, order)
    buf = pooling_nd.alloc(shape, gy.dtype, slices, disjoint, order)

    def scatter(part):
        pooling_nd.scatter_windows(gy[part], idx[part], slices, buf[part], disjoint)

    pooling_nd.split(scatter, gy.shape[:2], order, buf.nbytes)
    return (pooling_nd.crop(buf, p.pad, p.in_size),)
