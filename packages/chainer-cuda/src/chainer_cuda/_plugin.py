"""chainer-cuda's entry point module (``chainer.plugins`` name ``cuda``).

It stays tiny: the backend is named by a ``"module:attr"`` string, so neither
CuPy nor the device module is imported until a GPU device is asked for.
"""

from __future__ import annotations

from chainer import plugins


@plugins.hookimpl
def register_backends() -> dict[str, str]:
    """Registers the ``'@cupy'`` backend.

    It is registered whether or not CUDA is usable, so that asking for a GPU
    device without one gives chainer-cuda's error naming what is missing.

    Returns:
        dict: ``{'cupy': 'chainer_cuda._device:GpuDevice'}``.
    """
    return {"cupy": "chainer_cuda._device:GpuDevice"}
