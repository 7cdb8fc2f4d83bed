"""Backend modules: ``cuda`` (the CuPy facade), ``intel64`` (iDeep) and the
private ``_cpu`` and ``_chainerx`` modules, each imported on first use."""

_SUBMODULES = frozenset({"cuda", "intel64", "_cpu", "_chainerx"})


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"chainer.backends.{name}")
    raise AttributeError(f"module 'chainer.backends' has no attribute {name!r}")
