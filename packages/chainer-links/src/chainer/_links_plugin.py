"""chainer-links' plugin module: registers the function catalogue by name.

Loaded through the ``chainer.plugins`` entry point like any third-party
plugin, so a plugin that claims a name of the catalogue is reported as a
conflict instead of silently shadowing or being shadowed.
"""

from chainer import plugins


@plugins.hookimpl
def register_functions():
    """Registers every public name of ``chainer.functions`` (resolved lazily)."""
    from chainer import functions

    return {name: f"chainer.functions:{name}" for name in functions.__all__}
