"""NumPy fast paths for Chainer (the ``cpu`` plugin of group ``chainer.plugins``).

Importing this package does nothing: its entry point, :mod:`chainer_cpu._plugin`,
registers kernel overrides for ``(FunctionNode class, "numpy")`` by name, and
each kernel module (``chainer_cpu/functions/...``, mirroring the catalogue's
paths) is imported on its kernel's first call. Everything in Chainer works
without this package, only slower.
"""

__version__ = "7.9.0"
