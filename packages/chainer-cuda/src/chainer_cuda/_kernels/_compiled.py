"""Builds the ``cupy.ElementwiseKernel`` objects of :mod:`.sources`, once each."""

from __future__ import annotations

import cupy

from chainer_cuda._kernels import sources

_cache: dict[str, cupy.ElementwiseKernel] = {}


def get(source: sources.KernelSource) -> cupy.ElementwiseKernel:
    """Returns the (cached) ElementwiseKernel of a kernel source.

    Args:
        source (KernelSource): One of :data:`sources.KERNELS`.

    Returns:
        cupy.ElementwiseKernel: The kernel; CuPy compiles it per dtype on
        first use.
    """
    kernel = _cache.get(source.name)
    if kernel is None:
        kernel = cupy.ElementwiseKernel(
            source.in_params,
            source.out_params,
            source.operation,
            source.name,
            preamble=source.preamble,
        )
        _cache[source.name] = kernel
    return kernel


_reductions: dict[str, cupy.ReductionKernel] = {}


def get_reduction(source: sources.ReductionSource) -> cupy.ReductionKernel:
    """Returns the (cached) ReductionKernel of a reduction source.

    Args:
        source (ReductionSource): One of :data:`sources.REDUCTIONS`.

    Returns:
        cupy.ReductionKernel: The kernel; CuPy compiles it per dtype and
        reduced shape on first use.
    """
    kernel = _reductions.get(source.name)
    if kernel is None:
        kernel = cupy.ReductionKernel(
            source.in_params,
            source.out_params,
            source.map_expr,
            source.reduce_expr,
            source.post_map_expr,
            source.identity,
            source.name,
            preamble=source.preamble,
        )
        _reductions[source.name] = kernel
    return kernel
