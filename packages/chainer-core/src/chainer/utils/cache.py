"""Caching of computed attributes (``chainer.utils.cache``)."""

from __future__ import annotations

import functools

from chainer import configuration


class _CachedProperty:
    # A read-only property computed once per backprop mode and instance.

    def __init__(self, getter):
        functools.update_wrapper(self, getter)
        self._getter = getter
        self._key = "_cached_property_" + getter.__name__

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        cache = obj.__dict__.get(self._key)
        if cache is None:
            cache = obj.__dict__[self._key] = {}
        mode = bool(configuration.config.enable_backprop)
        try:
            return cache[mode]
        except KeyError:
            value = cache[mode] = self._getter(obj)
            return value

    def __set__(self, obj, value):
        raise AttributeError(f"can't set attribute {self.__name__!r}")


def cached_property(getter):
    """Decorator: a read-only property whose value is computed once.

    The value is cached per instance and per backprop mode
    (``chainer.config.enable_backprop``): a Variable computed with backprop
    enabled keeps its graph, one computed under ``no_backprop_mode`` has none,
    and each mode gets its own. Chainer's distributions use it for derived
    parameters.

    Args:
        getter (callable): The method computing the value.

    Returns:
        A descriptor with the getter's name and docstring.

    Example:
        >>> from chainer.utils import cache
        >>> class Box:
        ...     calls = 0
        ...     @cache.cached_property
        ...     def area(self):
        ...         Box.calls += 1
        ...         return 6
        >>> b = Box()
        >>> b.area, b.area, Box.calls
        (6, 6, 1)
    """
    return _CachedProperty(getter)
