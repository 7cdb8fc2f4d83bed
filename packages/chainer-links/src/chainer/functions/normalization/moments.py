"""Per-channel statistics of the normalization functions, for other packages.

This module is an extension of this project; Chainer 7 has no such module.
Batch normalization and its relatives reduce ``x`` over some axes and keep
one mean and variance per position of the other ("channel") axes. Code that
must compute those statistics exactly as :func:`chainer.functions.batch_normalization`
does (ChainerMN's multi-node batch normalization, a GPU kernel override of the
normalization nodes) uses the helpers here, which are a public contract of
chainer-links:

- :func:`compute_dtype`: the dtype the statistics are computed in (float16
  inputs are promoted to float32).
- :func:`canonical_axis`: the reduced axes as a tuple of non-negative ints
  (``None`` gives the default, every axis but ``1..gamma.ndim``).
- :func:`get_layout`: the (cached) :class:`Layout` of a shape reduced over
  such axes, which views ``x`` as a 3-d ``(A, K, B)`` array of ``K``
  channels when the channel axes are adjacent.
"""

from chainer.functions.normalization import _moments

Layout = _moments.Layout
canonical_axis = _moments.canonical_axis
compute_dtype = _moments.compute_dtype
get_layout = _moments.get_layout

__all__ = ["Layout", "canonical_axis", "compute_dtype", "get_layout"]
