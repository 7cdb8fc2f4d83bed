"""Reproducible random numbers in tests (``fix_random``, ``generate_seed``)."""

from __future__ import annotations

import functools
import random as _py_random
import types

import numpy

from chainer.testing import _bundle

_SEED = 100


class _RandomState:
    """Saved generator states of the enclosing ``fix_random`` scopes."""

    stack: list = []


def _cupy():
    from chainer.backends import cuda

    return cuda.cupy if cuda.available else None


def _setup_random():
    _RandomState.stack.append((_py_random.getstate(), numpy.random.get_state()))
    _py_random.seed(_SEED)
    numpy.random.seed(_SEED)
    cupy = _cupy()
    if cupy is not None:
        cupy.random.seed(_SEED)


def _teardown_random():
    py_state, np_state = _RandomState.stack.pop()
    _py_random.setstate(py_state)
    numpy.random.set_state(np_state)
    cupy = _cupy()
    if cupy is not None:
        # CuPy's state cannot be saved; reseed from entropy instead.
        cupy.random.seed()


def _wrap_function(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        _setup_random()
        try:
            return f(*args, **kwargs)
        finally:
            _teardown_random()

    return wrapper


def _wrap_class(cls, setup_method, teardown_method):
    orig_setup = getattr(cls, setup_method, None)
    orig_teardown = getattr(cls, teardown_method, None)

    def setup(self, *args, **kwargs):
        _setup_random()
        if orig_setup is not None:
            orig_setup(self, *args, **kwargs)

    def teardown(self, *args, **kwargs):
        try:
            if orig_teardown is not None:
                orig_teardown(self, *args, **kwargs)
        finally:
            _teardown_random()

    members = {setup_method: setup, teardown_method: teardown}
    return _bundle.derive(cls, cls.__name__, members)


def fix_random(*, setup_method="setUp", teardown_method="tearDown"):
    """Decorator that makes random numbers in a test repeatable.

    The Python, NumPy (and, with CUDA, CuPy) generators are seeded with a
    fixed value before the test and the previous state is restored after it.
    Applied to a test class, seeding happens in ``setup_method`` and
    restoring in ``teardown_method`` (use ``'setup_method'`` and
    ``'teardown_method'`` for pytest-style classes); applied to a test
    function, around the call. Do not apply it inside ``condition.retry``
    or ``condition.repeat``.

    Args:
        setup_method (str): Name of the class's setup method.
        teardown_method (str): Name of the class's teardown method.

    Returns:
        callable: The decorator.
    """

    def decorator(target):
        if isinstance(target, types.FunctionType):
            return _wrap_function(target)
        if isinstance(target, (type, _bundle.TestCaseBundle)):
            return _bundle.apply_to_classes(
                target, lambda cls: _wrap_class(cls, setup_method, teardown_method)
            )
        raise TypeError(
            "fix_random decorates test functions and classes, "
            f"not {type(target).__name__}"
        )

    return decorator


def generate_seed():
    """Draws a seed from the global NumPy generator.

    Inside :func:`fix_random` the seed is therefore repeatable.

    Returns:
        int: A seed in ``[0, 2**32 - 1)``.
    """
    return int(numpy.random.randint(0xFFFFFFFF, dtype=numpy.int64))


def _draws_from_numpy(device, name):
    """Makes ``device.xp.random.<name>`` draw from NumPy's seeded generator.

    A function under test draws its noise with the array module of its
    inputs; on CuPy the same seed gives other numbers than NumPy's, so the
    draws are taken from NumPy and sent to the device, and expected values
    computed with NumPy stay comparable. A no-op context on NumPy.

    Args:
        device: The backend device of the test (its ``xp`` and ``send``).
        name (str): The ``random`` function to replace, e.g. ``"gumbel"``.

    Returns:
        A context manager.
    """
    import contextlib
    from unittest import mock

    if device.xp is numpy:
        return contextlib.nullcontext()
    draw = getattr(numpy.random, name)
    return mock.patch.object(
        device.xp.random, name, lambda *args, **kw: device.send(draw(*args, **kw))
    )
