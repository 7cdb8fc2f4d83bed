"""Final methods: methods a subclass must not (or should not) override.

``chainer.utils.enable_final`` returns a base class whose metaclass checks, when
a subclass is defined, that it does not override a method decorated with
:func:`final`. Chainer's ``DeviceResident`` uses it: overriding ``to_device``
is an error, overriding ``to_cpu`` or ``to_gpu`` a deprecation.
"""

from __future__ import annotations

import abc
import warnings

_FINAL_ATTR = "__chainer_final_action__"
# Names of every method declared final anywhere: a new class is checked only
# for these (most classes define none of them).
_final_names: set[str] = set()


def _final_action(attr):
    for obj in (attr, getattr(attr, "fget", None), getattr(attr, "__func__", None)):
        action = getattr(obj, _FINAL_ATTR, None)
        if action is not None:
            return action
    return None


class _EnableFinal(type):
    # Checks the attributes a new class defines against final ones of its bases.

    def __init__(cls, name, bases, namespace, **kwargs):
        super().__init__(name, bases, namespace, **kwargs)
        for key in _final_names.intersection(namespace):
            for base in cls.__mro__[1:]:
                attr = base.__dict__.get(key)
                if attr is None:
                    continue
                action = _final_action(attr)
                if action is None:
                    continue
                message = (
                    f"Overriding method {key!r} of {base.__name__} in "
                    f"{cls.__name__} is "
                )
                if issubclass(action, Warning):
                    warnings.warn(message + "deprecated.", action, stacklevel=2)
                    break
                raise action(message + "not allowed: the method is final.")


class _EnableFinalABC(_EnableFinal, abc.ABCMeta):
    pass


def enable_final(base=(), meta_base=()):
    """Returns a base class in which :func:`final` methods are enforced.

    Args:
        base (type or tuple of types): Base classes of the returned class.
        meta_base (type or tuple of types): Metaclasses that subclasses may
            also have (e.g. ``abc.ABCMeta``); they become bases of the
            returned class's metaclass, which avoids metaclass conflicts.

    Returns:
        type: A class to inherit from.

    Example:
        >>> from chainer import utils
        >>> class Base(utils.enable_final()):
        ...     @utils.final
        ...     def f(self):
        ...         pass
        >>> class Derived(Base):
        ...     def f(self):
        ...         pass
        Traceback (most recent call last):
        ...
        TypeError: Overriding method 'f' of Base in Derived is not allowed: \
the method is final.
    """
    if not isinstance(base, (list, tuple)):
        base = (base,)
    if not isinstance(meta_base, (list, tuple)):
        meta_base = (meta_base,)
    if tuple(meta_base) == (abc.ABCMeta,):
        metaclass = _EnableFinalABC
    else:
        metaclass = type("base_metaclass", (_EnableFinal, *meta_base), {})
    return metaclass("_EnableFinalBase", tuple(base), {"__slots__": ()})


def final(*args, **kwargs):
    """Decorator declaring a method final.

    Overriding it in a subclass raises :class:`TypeError` when the subclass is
    defined (or, with ``action=`` a :class:`Warning` subclass, warns). The
    declaring class must derive from :func:`enable_final`'s result.

    Args:
        action (type): ``TypeError`` (default) or a :class:`Warning` subclass.

    Usable as ``@final`` or ``@final(action=DeprecationWarning)``.
    """
    action = kwargs.pop("action", TypeError)
    if kwargs:
        raise TypeError(f"final() got unexpected keyword arguments: {sorted(kwargs)}")
    if not (
        isinstance(action, type)
        and (issubclass(action, Warning) or issubclass(action, TypeError))
    ):
        raise ValueError("action must be TypeError or a subclass of Warning")

    def wrap(f):
        target = getattr(f, "fget", None) or getattr(f, "__func__", None) or f
        setattr(target, _FINAL_ATTR, action)
        _final_names.add(target.__name__)
        return f

    if args:
        if len(args) != 1 or (
            not callable(args[0])
            and not isinstance(args[0], (property, staticmethod, classmethod))
        ):
            raise TypeError("final takes the decorated method or only keywords")
        return wrap(args[0])
    return wrap
