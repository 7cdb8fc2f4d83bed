"""An example third-party Chainer plugin (entry point ``example``).

This module is what the entry point names, so it stays tiny: every hook
returns ``"module:attr"`` strings and the registry imports the real code only
when it is first asked for.
"""

from __future__ import annotations

from chainer import plugins

__version__ = "0.1.0"


@plugins.hookimpl
def register_functions() -> dict[str, str]:
    """Registers ``example_square``."""
    return {"example_square": "chainer_plugin_example.functions:example_square"}


@plugins.hookimpl
def register_links() -> dict[str, str]:
    """Registers ``ExampleScale``."""
    return {"ExampleScale": "chainer_plugin_example.links:ExampleScale"}


@plugins.hookimpl
def register_extensions() -> dict[str, str]:
    """Registers ``ExampleExtension``."""
    return {"ExampleExtension": "chainer_plugin_example.extensions:ExampleExtension"}


@plugins.hookimpl
def register_datasets() -> dict[str, str]:
    """Registers ``get_example_squares``."""
    return {
        "get_example_squares": "chainer_plugin_example.datasets:get_example_squares"
    }


@plugins.hookimpl
def register_backends() -> dict[str, str]:
    """Registers the ``'@example'`` backend (arrays of type ``ExampleArray``)."""
    return {"example": "chainer_plugin_example.device:ExampleDevice"}


@plugins.hookimpl
def register_kernels() -> dict[tuple, str]:
    """Overrides ``ExampleSquare``'s forward pass on NumPy arrays."""
    return {
        (
            "chainer_plugin_example.functions:ExampleSquare",
            "numpy",
        ): "chainer_plugin_example.functions:square_kernel"
    }
