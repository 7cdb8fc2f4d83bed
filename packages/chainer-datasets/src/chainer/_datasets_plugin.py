"""chainer-datasets' plugin module: registers the built-in datasets by name.

Loaded through the ``chainer.plugins`` entry point like any third-party
plugin, so a plugin that claims the name of a built-in dataset or getter is
reported as a conflict instead of silently shadowing it.
"""

from chainer import plugins


@plugins.hookimpl
def register_datasets():
    """Registers every public name of ``chainer.datasets`` (resolved lazily)."""
    from chainer import datasets

    return {name: f"chainer.datasets:{name}" for name in datasets.__all__}
