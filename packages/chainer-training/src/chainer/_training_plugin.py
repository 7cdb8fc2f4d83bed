"""chainer-training's plugin module: registers the built-in trainer extensions.

Loaded through the ``chainer.plugins`` entry point like any third-party
plugin, so a plugin that claims the name of a built-in extension is reported
as a conflict instead of silently shadowing it.
"""

from chainer import plugins


@plugins.hookimpl
def register_extensions():
    """Registers every built-in extension of ``chainer.training.extensions``."""
    from chainer.training import extensions

    return {name: f"chainer.training.extensions:{name}" for name in extensions.__all__}
