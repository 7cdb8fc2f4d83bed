"""chainer-links' plugin module: registers the function and link catalogues by name.

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


@plugins.hookimpl
def register_links():
    """Registers every public name of ``chainer.links`` (resolved lazily)."""
    from chainer import links

    return {name: f"chainer.links:{name}" for name in links.__all__}
