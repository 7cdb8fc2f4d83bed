"""Image preprocessing helpers (``chainer.utils.imgproc``)."""

from __future__ import annotations

import numpy


def oversample(images, crop_dims):
    """Crops each image at its corners and centre, and mirrors the crops.

    This is Caffe's 10-crop test-time augmentation.

    Args:
        images: A sequence of images, each an array of shape ``(C, H, W)``,
            all of the same shape and dtype.
        crop_dims (tuple of int): ``(height, width)`` of the crops.

    Returns:
        numpy.ndarray: Array of shape ``(10 * N, C, height, width)``: for
        each image, the top-left, top-right, bottom-left, bottom-right and
        centre crops, then the same five flipped horizontally.
    """
    channels, src_h, src_w = images[0].shape
    dst_h, dst_w = crop_dims
    cy, cx = src_h / 2.0, src_w / 2.0
    corners = [
        (0, 0),
        (0, src_w - dst_w),
        (src_h - dst_h, 0),
        (src_h - dst_h, src_w - dst_w),
        (int(cy - dst_h / 2.0), int(cx - dst_w / 2.0)),
    ]
    crops = numpy.empty(
        (10 * len(images), channels, dst_h, dst_w), dtype=images[0].dtype
    )
    ix = 0
    for img in images:
        for top, left in corners:
            crops[ix] = img[:, top : top + dst_h, left : left + dst_w]
            ix += 1
        crops[ix : ix + 5] = crops[ix - 5 : ix, :, :, ::-1]
        ix += 5
    return crops
