from chainer.functions.array import concat
from chainer.functions.pooling import max_pooling_2d


def spatial_pyramid_pooling_2d(x, pyramid_height, pooling=None):
    """Spatial pyramid pooling function.

    It outputs a fixed-length vector regardless of the input's spatial size:
    pyramid level ``i`` (zero-based) pools ``x`` with window ``(k_h, k_w)`` and
    padding ``(p_h, p_w)`` where

    .. math::

        k_h = \\lceil b_h / 2^i \\rceil, \\quad p_h = (2^i k_h - b_h) / 2

    (floor division; likewise for the width, ``b_h, b_w`` being the input
    size), which gives ``2^i x 2^i`` outputs per channel for inputs of at
    least that size. All levels are flattened and concatenated along the
    channel axis.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(n, c, h, w)``.
        pyramid_height (int): Number of pyramid levels (at least 1).
        pooling (str): Pooling operation of each level; only ``'max'``
            (max pooling with ``cover_all=True``) is supported.

    Returns:
        ~chainer.Variable: Output of shape
        ``(n, c * sum(4 ** i for i in range(pyramid_height)), 1, 1)``.

    Raises:
        ValueError: If ``pooling`` is not ``'max'`` or ``pyramid_height`` is
            less than 1.

    See `Spatial Pyramid Pooling in Deep Convolutional Networks for Visual
    Recognition <https://arxiv.org/abs/1406.4729>`_.

    Example:
        >>> import numpy as np
        >>> from chainer import functions as F
        >>> x = np.random.rand(2, 3, 7, 9).astype(np.float32)
        >>> F.spatial_pyramid_pooling_2d(x, 3, 'max').shape
        (2, 63, 1, 1)
    """
    if pooling != "max":
        raise ValueError(f"Unsupported pooling operation: {pooling!r} (use 'max')")
    if pyramid_height < 1:
        raise ValueError(f"pyramid_height must be at least 1, got {pyramid_height}")
    height, width = x.shape[2:]
    ys = []
    for level in range(pyramid_height):
        bins = 2**level
        kh = -(-height // bins)
        kw = -(-width // bins)
        pad = ((kh * bins - height) // 2, (kw * bins - width) // 2)
        y = max_pooling_2d.max_pooling_2d(x, (kh, kw), None, pad, True)
        n, c, h, w = y.shape
        ys.append(y.reshape(n, c * h * w, 1, 1))
    return concat.concat(ys, axis=1)
