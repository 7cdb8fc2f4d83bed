"""chainer-core's own plugin: registered like any third-party one.

The registry always registers this module first (as ``core``); the
distribution also declares it as the entry point ``core`` of group
``chainer.plugins``, so the third-party path is exercised by core itself.
"""

from __future__ import annotations

from chainer import plugins


@plugins.hookimpl
def register_backends() -> dict[str, str]:
    """Registers the NumPy backend, ``'@numpy'``."""
    return {"numpy": "chainer.backend:CpuDevice"}
