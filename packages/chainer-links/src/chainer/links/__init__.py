"""Collection of parameterized layers (``chainer.links``, usually ``L``).

Names not defined here are looked up in the plugin registry, so links that
third-party distributions register through the ``chainer.plugins`` entry
point appear as ``L.<name>``.
"""

# --- generated re-exports (scripts/gen_catalogue_init.py) ---

__all__ = []
# --- end of generated re-exports ---


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from chainer import plugins

    try:
        return plugins.get_link(name)
    except KeyError:
        raise AttributeError(
            f"module 'chainer.links' has no attribute {name!r}"
        ) from None


def __dir__():
    from chainer import plugins

    return sorted(set(globals()) | set(plugins.names("links")))
