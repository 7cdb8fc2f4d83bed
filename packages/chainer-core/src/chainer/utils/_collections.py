"""Small container types used inside Chainer (``chainer.utils._collections``)."""

from __future__ import annotations

import collections.abc


class OrderedSet(collections.abc.MutableSet):
    """A set that remembers insertion order (a dict with the values unused).

    Args:
        iterable: Initial elements.
    """

    def __init__(self, iterable=()):
        self._items = dict.fromkeys(iterable)

    def __contains__(self, item):
        return item in self._items

    def __iter__(self):
        return iter(self._items)

    def __reversed__(self):
        return reversed(self._items)

    def __len__(self):
        return len(self._items)

    def add(self, item):
        """Adds ``item`` at the end (no effect if present)."""
        self._items[item] = None

    def discard(self, item):
        """Removes ``item`` if present."""
        self._items.pop(item, None)

    def __repr__(self):
        return f"{type(self).__name__}({list(self._items)!r})"
