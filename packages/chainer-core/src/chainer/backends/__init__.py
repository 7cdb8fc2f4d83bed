"""Backend modules: ``chainer.backends.cuda`` (facade) and the CPU backend."""


def __getattr__(name):
    # chainer.backends.cuda is reachable as an attribute (as in Chainer 7),
    # imported at first use.
    if name == "cuda":
        import importlib

        return importlib.import_module("chainer.backends.cuda")
    raise AttributeError(f"module 'chainer.backends' has no attribute {name!r}")
