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
