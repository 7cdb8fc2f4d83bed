"""Helpers for functions that take options as ``**kwargs`` (``chainer.utils.argument``).

Chainer's functions accept some options only by keyword and reject removed
ones with a message saying what replaced them; these helpers do both.
"""

from __future__ import annotations

import sys


def check_unexpected_kwargs(kwargs, **unexpected):
    """Raises ``ValueError`` if ``kwargs`` holds one of the ``unexpected`` keys.

    Args:
        kwargs (dict): Keyword arguments a function received.
        **unexpected: Removed option names mapped to the message to raise.

    Raises:
        ValueError: With the message of the first removed option found.
    """
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def _parse(kwargs, name_and_values, unexpected, depth):
    values = [kwargs.pop(name, default) for name, default in name_and_values]
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        caller = sys._getframe(depth).f_code.co_name
        names = ", ".join(repr(name) for name in sorted(kwargs))
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {names}")
    return tuple(values)


def parse_kwargs(kwargs, *name_and_values, **unexpected):
    """Pops the given options from ``kwargs`` and rejects the rest.

    Args:
        kwargs (dict): Keyword arguments of the calling function; the parsed
            entries are removed from it.
        *name_and_values: ``(name, default)`` pairs of the accepted options.
        **unexpected: Removed option names mapped to the ``ValueError``
            message explaining what replaced them.

    Returns:
        tuple: The values of the accepted options, in the order given.

    Raises:
        ValueError: For a removed option listed in ``unexpected``.
        TypeError: For any other option left, naming the calling function.

    Example:
        >>> from chainer.utils import argument
        >>> def f(**kwargs):
        ...     return argument.parse_kwargs(kwargs, ('dilate', 1), ('groups', 1))
        >>> f(groups=2)
        (1, 2)
    """
    return _parse(kwargs, name_and_values, unexpected, 2)


def assert_kwargs_empty(kwargs):
    """Raises ``TypeError`` naming the caller if ``kwargs`` is not empty.

    Args:
        kwargs (dict): Keyword arguments left after parsing.
    """
    return _parse(kwargs, (), {}, 2)
