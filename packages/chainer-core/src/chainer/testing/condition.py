"""Repeating flaky tests (``testing.condition``)."""

from __future__ import annotations

import functools
import traceback
import unittest


def _rerun(instance, first):
    # Each attempt after the first gets a fresh fixture, like a new test run.
    if first or not isinstance(instance, unittest.TestCase):
        return
    instance.tearDown()
    instance.setUp()


def repeat_with_success_at_least(times, min_success):
    """Runs a test several times and passes if enough attempts succeed.

    The decorated test method runs up to ``times`` times (``setUp`` and
    ``tearDown`` run around every attempt of a ``unittest.TestCase``). It
    stops early once ``min_success`` attempts passed, or once that has become
    impossible.

    Args:
        times (int): Maximum number of attempts.
        min_success (int): Attempts that must succeed.

    Returns:
        callable: Decorator for test methods.
    """
    if not isinstance(times, int) or times < 1:
        raise ValueError(f"times must be a positive int, got {times!r}")
    if not isinstance(min_success, int) or not 0 <= min_success <= times:
        raise ValueError(
            f"min_success must be an int in [0, times={times}], got {min_success!r}"
        )

    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            instance = args[0] if args else None
            successes = failures = 0
            first_error = None
            for attempt in range(times):
                if successes >= min_success:
                    return
                if failures > times - min_success:
                    break
                _rerun(instance, attempt == 0)
                try:
                    f(*args, **kwargs)
                except unittest.SkipTest:
                    raise
                except Exception:
                    failures += 1
                    if first_error is None:
                        first_error = traceback.format_exc()
                else:
                    successes += 1
            if successes >= min_success:
                return
            msg = f"\nFail: {failures}, Success: {successes}"
            if first_error is not None:
                msg += "\n\nThe first error message:\n" + first_error
            raise AssertionError(msg)

        return wrapper

    return decorator


def repeat(times):
    """Runs a test ``times`` times; every attempt must succeed.

    Args:
        times (int): Number of attempts.

    Returns:
        callable: Decorator for test methods.
    """
    return repeat_with_success_at_least(times, times)


def retry(times):
    """Runs a test up to ``times`` times until one attempt succeeds.

    Args:
        times (int): Maximum number of attempts.

    Returns:
        callable: Decorator for test methods.
    """
    return repeat_with_success_at_least(times, 1)
