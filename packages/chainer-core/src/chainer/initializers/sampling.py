"""Bilinear (N-linear) filters for up- and downsampling convolutions."""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import initializer
from chainer.initializers import _util


def _linear_filter(ksize, ndim, normalize):
    # Separable tent filter centred on the kernel: the weights of linear
    # interpolation for an upsampling factor of (ksize + 1) // 2.
    factor = (ksize + 1) // 2
    center = factor - 1.0 if ksize % 2 == 1 else factor - 0.5
    tent = 1.0 - numpy.abs(numpy.arange(ksize) - center) / factor
    filt = numpy.ones((ksize,) * ndim)
    for axis in range(ndim):
        shape = [1] * ndim
        shape[axis] = ksize
        filt = filt * tent.reshape(shape)
    if normalize:
        filt /= filt.sum()
    return filt


def _kernel_size(array, cls_name):
    if array.ndim < 3:
        raise ValueError(
            f"{cls_name} needs an array with at least one spatial axis "
            f"(ndim >= 3); got shape {array.shape}"
        )
    sizes = set(array.shape[2:])
    if len(sizes) != 1:
        raise ValueError(f"ksize must be all same; got {array.shape[2:]}")
    return sizes.pop()


def _fill(array, filt, n_channels, broadcast):
    # Either every (out, in) pair gets the filter (single-channel side), or
    # only the diagonal pairs (c, c) do, so channels stay separate.
    filt = backend.get_device_from_array(array).send(filt.astype(array.dtype))
    if broadcast:
        array[...] = filt
    else:
        array[...] = 0
        for c in range(n_channels):
            array[c, c] = filt


class _SamplingFilter(initializer.Initializer):
    def __init__(self, interpolation="linear", dtype=None):
        if interpolation != "linear":
            raise ValueError(
                f"Unsupported interpolation method: {interpolation!r} "
                "(only 'linear' is supported)"
            )
        self.interpolation = interpolation
        super().__init__(dtype)


class UpsamplingDeconvFilter(_SamplingFilter):
    """Initializes array with upsampling filter.

    The array is filled with the weights of linear (bilinear, trilinear...)
    interpolation, the usual initial weight of a deconvolution
    (:class:`~chainer.links.DeconvolutionND`) that upsamples by its stride,
    where the stride is expected to be ``(ksize + 1) // 2``. The array has
    shape ``(in_channels, out_channels, k, ..., k)`` with equal kernel sizes;
    ``in_channels == out_channels`` (each channel is upsampled separately) or
    ``out_channels == 1``.

    Args:
        interpolation (str): Upsampling interpolation method; only
            ``'linear'`` is supported.
        dtype: Data type specifier.
    """

    def __call__(self, array):
        """Fills ``array`` with the upsampling filter.

        Args:
            array (:ref:`ndarray`): Deconvolution weight to fill in place.
        """
        _util.check_dtype(self, array)
        ksize = _kernel_size(array, type(self).__name__)
        in_c, out_c = array.shape[:2]
        if in_c != out_c and out_c != 1:
            raise ValueError(
                "UpsamplingDeconvFilter needs in_channels == out_channels or "
                f"out_channels == 1; got shape {array.shape}"
            )
        filt = _linear_filter(ksize, array.ndim - 2, normalize=False)
        _fill(array, filt, in_c, broadcast=out_c == 1)


class DownsamplingConvFilter(_SamplingFilter):
    """Initializes array with downsampling filter.

    The array is filled with the normalized weights of linear (bilinear,
    trilinear...) interpolation, so that a convolution
    (:class:`~chainer.links.ConvolutionND`) with stride ``(ksize + 1) // 2``
    downsamples smoothly. The array has shape
    ``(out_channels, in_channels, k, ..., k)`` with equal kernel sizes;
    ``out_channels == in_channels`` (each channel is downsampled separately)
    or ``in_channels == 1``.

    Args:
        interpolation (str): Downsampling interpolation method; only
            ``'linear'`` is supported.
        dtype: Data type specifier.
    """

    def __call__(self, array):
        """Fills ``array`` with the downsampling filter.

        Args:
            array (:ref:`ndarray`): Convolution weight to fill in place.
        """
        _util.check_dtype(self, array)
        ksize = _kernel_size(array, type(self).__name__)
        out_c, in_c = array.shape[:2]
        if in_c != out_c and in_c != 1:
            raise ValueError(
                "DownsamplingConvFilter needs out_channels == in_channels or "
                f"in_channels == 1; got shape {array.shape}"
            )
        filt = _linear_filter(ksize, array.ndim - 2, normalize=True)
        _fill(array, filt, out_c, broadcast=in_c == 1)
