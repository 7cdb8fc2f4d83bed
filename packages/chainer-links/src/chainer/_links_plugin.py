"""chainer-links' plugin module: registers the function and link catalogues by name.

Loaded through the ``chainer.plugins`` entry point like any third-party
plugin, so a plugin that claims a name of the catalogue is reported as a
conflict instead of silently shadowing or being shadowed. The names come from
a static list (``chainer._links_names``): registering them imports nothing of
the catalogue.
"""

from chainer import _links_names
from chainer import plugins


@plugins.hookimpl
def register_functions():
    """Registers every public name of ``chainer.functions`` (resolved lazily)."""
    return {name: f"chainer.functions:{name}" for name in _links_names.FUNCTIONS}


@plugins.hookimpl
def register_links():
    """Registers every public name of ``chainer.links`` (resolved lazily)."""
    return {name: f"chainer.links:{name}" for name in _links_names.LINKS}
