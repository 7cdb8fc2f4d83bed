"""``LinkHook``: callbacks around the forward computation of links."""

from __future__ import annotations

import collections
import threading
from typing import Any


class _HookState(threading.local):
    # __init__ runs once per thread, so reading ``link_hooks`` never misses;
    # Link.__call__ reads it on every call.
    def __init__(self) -> None:
        self.link_hooks: collections.OrderedDict = collections.OrderedDict()


_state = _HookState()


def _get_link_hooks() -> collections.OrderedDict:
    """Returns the ordered dict of global link hooks active in this thread."""
    return _state.link_hooks


class _ForwardPreprocessCallbackArgs:
    """Callback data for :meth:`LinkHook.forward_preprocess`."""

    __slots__ = ("args", "forward_name", "kwargs", "link")

    def __init__(self, link, forward_name, args, kwargs):
        self.link = link
        self.forward_name = forward_name
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} link={type(self.link).__name__} "
            f"forward_name={self.forward_name!r}>"
        )


class _ForwardPostprocessCallbackArgs(_ForwardPreprocessCallbackArgs):
    """Callback data for :meth:`LinkHook.forward_postprocess`."""

    __slots__ = ("out",)

    def __init__(self, link, forward_name, args, kwargs, out):
        super().__init__(link, forward_name, args, kwargs)
        self.out = out


class LinkHook:
    """Base class of hooks for links.

    A link hook observes the forward computation of links. Its
    :meth:`forward_preprocess` runs before and :meth:`forward_postprocess`
    after the ``forward`` method of a link called as ``link(...)``.

    A hook is registered on one link with :meth:`~chainer.Link.add_hook`, or
    globally, for every link called in the current thread, by using it as a
    context manager::

        with chainer.link_hooks.TimerHook() as hook:
            model(x)
        hook.print_report()

    Attributes:
        name (str): Name of this hook, the default key it is registered under.
    """

    name = "LinkHook"

    def __enter__(self) -> LinkHook:
        hooks = _get_link_hooks()
        if self.name in hooks:
            raise KeyError(f"link hook {self.name!r} already exists")
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        hooks = _get_link_hooks()
        hook = hooks.pop(self.name, None)
        if hook is not None:
            hook.deleted(None)

    def added(self, link) -> None:
        """Callback function invoked when the link hook is registered.

        Args:
            link (~chainer.Link): Link object to which the hook is registered,
                or ``None`` if the hook is registered globally.
        """

    def deleted(self, link) -> None:
        """Callback function invoked when the link hook is unregistered.

        Args:
            link (~chainer.Link): Link object from which the hook is
                unregistered, or ``None`` if the hook was global.
        """

    def forward_preprocess(self, args) -> None:
        """Callback function invoked before a forward call of a link.

        Args:
            args: Callback data with the attributes ``link`` (the link),
                ``forward_name`` (name of the forward method, ``'forward'``),
                ``args`` (tuple of positional arguments) and ``kwargs`` (dict
                of keyword arguments).
        """

    def forward_postprocess(self, args) -> None:
        """Callback function invoked after a forward call of a link.

        Args:
            args: Callback data with the attributes ``link``,
                ``forward_name``, ``args``, ``kwargs`` and ``out`` (the value
                returned by the forward method).
        """
