"""Checks shared by the N-d pooling wrappers and the unpooling nodes (private)."""

from chainer.utils import conv
from chainer.utils import type_check


def check_ndim(x, ndim):
    """Raises ValueError unless ``x`` has ``ndim`` spatial axes (1-d/3-d wrappers)."""
    if len(x.shape[2:]) != ndim:
        raise ValueError(
            "The number of dimensions under channel dimension of the input "
            f"'x' should be {ndim}. But the actual ndim was {len(x.shape[2:])}."
        )


def expect_unpooled_input(node, x_type, outs):
    """Type check: pooling each given output length gives ``x``'s length.

    Args:
        node (~chainer.functions.pooling.pooling_nd.PoolingND): The window
            geometry.
        x_type: Type of the input ``(n, c, *spatial)``.
        outs (tuple): Requested output length per spatial axis, or None.
    """
    for i, out in enumerate(outs):
        if out is not None:
            expected = conv.get_conv_outsize(
                out, node.ksize[i], node.stride[i], node.pad[i], node.cover_all
            )
            type_check.expect(x_type.shape[2 + i] == expected)


def unpooled_size(node, in_size, outs, label):
    """Spatial output shape of an unpooling of ``in_size``.

    Args:
        node (~chainer.functions.pooling.pooling_nd.PoolingND): The window
            geometry.
        in_size (tuple of int): Spatial shape of the input.
        outs (tuple): Requested output length per spatial axis; None takes
            the deconvolution size of the input.
        label (str): Function name for the error message.

    Returns:
        tuple of int: The output shape; an axis may be empty (length 0), as
        in Chainer.

    Raises:
        ValueError: If an output length would be negative.
    """
    size = tuple(
        conv.get_deconv_outsize(n, k, s, p, node.cover_all) if out is None else out
        for n, out, k, s, p in zip(
            in_size, outs, node.ksize, node.stride, node.pad, strict=True
        )
    )
    if min(size) < 0:
        raise ValueError(
            f"{label}: negative output size {size} for spatial input size "
            f"{tuple(in_size)}, ksize {node.ksize}, stride {node.stride}, "
            f"pad {node.pad}"
        )
    return size
