"""Test helpers: requirement-based skips, warning assertions, ``patch``."""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import unittest
import unittest.mock
import warnings

from chainer.testing import _bundle


def _requirements_satisfied(requirements):
    try:
        from packaging.requirements import InvalidRequirement
        from packaging.requirements import Requirement
    except ImportError:
        raise RuntimeError(
            "with_requires/without_requires need the `packaging` distribution "
            "(installed with pytest): pip install packaging"
        ) from None
    for text in requirements:
        try:
            req = Requirement(text)
        except InvalidRequirement as e:
            raise ValueError(f"invalid requirement {text!r}: {e}") from None
        try:
            version = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            return False
        if req.specifier and not req.specifier.contains(version, prereleases=True):
            return False
    return True


def _skip(reason):
    def decorator(target):
        if isinstance(target, _bundle.TestCaseBundle):
            return _bundle.apply_to_classes(target, decorator)
        if isinstance(target, type) and not issubclass(target, unittest.TestCase):
            import pytest

            return pytest.mark.skip(reason=reason)(target)
        return unittest.skip(reason)(target)

    return decorator


def _identity(target):
    return target


def with_requires(*requirements):
    """Runs a test only when the given requirements are installed.

    Args:
        requirements (str): Requirement strings such as ``'numpy>=1.23'`` or
            ``'scipy'``.

    Returns:
        callable: Decorator for test functions and classes; it skips them when
        some requirement is not satisfied.
    """
    if _requirements_satisfied(requirements):
        return _identity
    return _skip("requires: " + ",".join(requirements))


def without_requires(*requirements):
    """Runs a test only when the given requirements are *not* all installed.

    Args:
        requirements (str): Requirement strings such as ``'h5py'``.

    Returns:
        callable: Decorator for test functions and classes.
    """
    if not _requirements_satisfied(requirements):
        return _identity
    return _skip("requires absence of: " + ",".join(requirements))


@contextlib.contextmanager
def assert_warns(expected):
    """Asserts that a warning of a category is issued in the ``with`` block.

    Args:
        expected (type): Warning class (a subclass of :class:`Warning`).

    Raises:
        AssertionError: If no such warning was issued.
    """
    if not (isinstance(expected, type) and issubclass(expected, Warning)):
        raise TypeError(f"expected must be a Warning subclass, not {expected!r}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if not any(isinstance(w.message, expected) for w in caught):
        raise AssertionError(f"{expected.__name__} not triggered")


def _import_object(name):
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            break
        return obj
    raise ValueError(f"cannot find object {name!r} to patch")


def patch(target, *args, **kwargs):
    """:func:`unittest.mock.patch` whose mock wraps the original by default.

    The mock records calls and still runs the real object, unless ``wraps``
    is given.

    Args:
        target (str): Full dotted name of the object to patch.
        args: Passed to :func:`unittest.mock.patch`.
        kwargs: Passed to :func:`unittest.mock.patch`; ``wraps`` defaults to
            the object named by ``target``.

    Returns:
        The patcher (usable as decorator or context manager).
    """
    if not isinstance(target, str):
        raise TypeError(f"target must be a dotted name, not {type(target).__name__}")
    if "wraps" not in kwargs:
        kwargs["wraps"] = _import_object(target)
    return unittest.mock.patch(target, *args, **kwargs)
