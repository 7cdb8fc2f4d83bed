"""``FunctionHook``: callbacks around every function application."""

from __future__ import annotations

import collections
import threading

_thread_local = threading.local()


def get_function_hooks() -> collections.OrderedDict:
    """Returns the ordered dict of function hooks active in this thread."""
    hooks = getattr(_thread_local, "function_hooks", None)
    if hooks is None:
        hooks = _thread_local.function_hooks = collections.OrderedDict()
    return hooks


class FunctionHook:
    """Base class of function hooks.

    A hook observes every :class:`~chainer.FunctionNode` application: its
    ``forward_preprocess``/``forward_postprocess`` methods run around forward
    and ``backward_preprocess``/``backward_postprocess`` around backward.
    Register one globally for a block with ``with hook:``, or on one function
    with ``function.add_hook(hook)``.

    Attributes:
        name (str): Name under which the hook is registered.
    """

    name = "FunctionHook"

    def __enter__(self):
        hooks = get_function_hooks()
        if self.name in hooks:
            raise KeyError(f"hook {self.name} already exists")
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *_):
        get_function_hooks()[self.name].deleted(None)
        del get_function_hooks()[self.name]

    def added(self, function):
        """Called when the hook is registered (``function`` is None if global)."""

    def deleted(self, function):
        """Called when the hook is unregistered (``function`` is None if global)."""

    def forward_preprocess(self, function, in_data):
        """Called before forward with the function and its input arrays."""

    def forward_postprocess(self, function, in_data):
        """Called after forward with the function and its input arrays."""

    def backward_preprocess(self, function, in_data, out_grad):
        """Called before backward with inputs and output gradient arrays."""

    def backward_postprocess(self, function, in_data, out_grad):
        """Called after backward with inputs and output gradient arrays."""
