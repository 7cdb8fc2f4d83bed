"""Checks shared by FunctionTestCase and the Link test cases."""

from __future__ import annotations

import contextlib
import io

import chainer
from chainer import backend
from chainer.testing import array as array_module

# Chainer retries forever; a bound turns a hopeless input generator into an
# error instead of a hang.
_MAX_DODGE_ATTEMPTS = 100


class CollectSubclasses:
    """Mixin for base test cases: pytest collects subclasses, not the base.

    The base sets ``__test__ = False`` in its own body; every subclass that
    does not set ``__test__`` itself gets ``True`` back.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__test__" not in cls.__dict__:
            cls.__test__ = True


class TestError(AssertionError):
    """Base of FunctionTestError and LinkTestError."""

    # Keep pytest from collecting the exception classes as test classes.
    __test__ = False

    @classmethod
    def check(cls, expr, message):
        """Fails with ``message`` unless ``expr`` is true."""
        if not expr:
            raise cls(message)

    @classmethod
    def fail(cls, message, exc=None):
        """Raises this error, chained to ``exc`` if given."""
        if exc is not None:
            raise cls(f"{message}\n\n{exc}") from exc
        raise cls(message)

    @classmethod
    @contextlib.contextmanager
    def raise_if_fail(cls, message, error_types=AssertionError):
        """Turns ``error_types`` raised in the block into this error."""
        try:
            yield
        except error_types as e:
            cls.fail(message, e)


def format_array_props(arrays):
    """``(shape, dtype)`` summary of arrays for messages."""
    parts = []
    for a in arrays:
        if a is None:
            parts.append("None")
        else:
            parts.append(f"({a.shape}, {a.dtype})")
    return ", ".join(parts)


def check_array_types(arrays, device, func_name):
    """Checks that a user hook returned a tuple of arrays (or None)."""
    if not isinstance(arrays, tuple):
        raise TypeError(f"`{func_name}()` must return a tuple, not {type(arrays)}.")
    if not all(a is None or device.is_array_supported(a) for a in arrays):
        types = tuple(type(a) for a in arrays)
        raise TypeError(
            f"{func_name}() must return a tuple of arrays supported by device "
            f"{device} or None.\nActual: {types}"
        )


def check_variable_types(outputs, device, func_name, error_cls):
    """Checks that ``forward`` returned Variables on ``device``."""
    if not isinstance(outputs, tuple):
        error_cls.fail(f"`{func_name}()` must return a tuple, not {type(outputs)}.")
    if not all(isinstance(a, chainer.Variable) for a in outputs):
        types = ", ".join(str(type(a)) for a in outputs)
        error_cls.fail(
            f"{func_name}() must return a tuple of Variables.\nActual: {types}"
        )
    wrong = [
        str(backend.get_device_from_array(a.array))
        for a in outputs
        if backend.get_device_from_array(a.array) != device
    ]
    if wrong:
        error_cls.fail(
            f"{func_name}() must return Variables on the device {device}.\n"
            f"Actual: {', '.join(wrong)}"
        )


def check_arrays_equal(actual_arrays, expected_arrays, error_cls, **opts):
    """Compares outputs with expected ones: count, shapes, dtypes and values."""
    message = None
    detail = None
    if len(actual_arrays) != len(expected_arrays):
        message = (
            f"Number of outputs ({len(actual_arrays)}, {len(expected_arrays)}) "
            "does not match"
        )
    elif not all(
        y.shape == ye.shape and y.dtype == ye.dtype
        for y, ye in zip(actual_arrays, expected_arrays, strict=True)
    ):
        message = "Shapes and/or dtypes do not match"
    else:
        errors = []
        for i, (actual, expected) in enumerate(
            zip(actual_arrays, expected_arrays, strict=True)
        ):
            try:
                array_module.assert_allclose(actual, expected, **opts)
            except AssertionError as e:
                errors.append((i, e))
        if errors:
            indices = ", ".join(str(i) for i, _ in errors)
            message = (
                "Outputs do not match the expected values.\n"
                f"Indices of outputs that do not match: {indices}"
            )
            f = io.StringIO()
            for i, err in errors:
                f.write(f"Error details of output [{i}]:\n{err}\n")
            detail = f.getvalue()
    if message is not None:
        msg = (
            f"{message}\n"
            f"Expected shapes and dtypes: {format_array_props(expected_arrays)}\n"
            f"Actual shapes and dtypes:   {format_array_props(actual_arrays)}\n"
        )
        if detail is not None:
            msg += "\n\n" + detail
        error_cls.fail(msg)


def as_noncontiguous(arrays):
    """Copies arrays into strided (non-contiguous) views; size <= 1 kept."""

    def convert(a):
        if a is None or a.size <= 1:
            return a
        device = backend.get_device_from_array(a)
        xp = device.xp
        slices = (slice(None, None, 2),) * a.ndim
        with backend.using_device(device):
            buf = xp.empty(tuple(s * 2 for s in a.shape), dtype=a.dtype)
            buf[slices] = a
            return buf[slices]

    if isinstance(arrays, (list, tuple)):
        return type(arrays)(convert(a) for a in arrays)
    return convert(arrays)


def to_contiguity(test, arrays):
    """Applies the ``contiguous`` attribute of a test case to arrays."""
    if test.contiguous is None:
        return as_noncontiguous(arrays)
    if test.contiguous == "C":
        return arrays
    raise ValueError(
        f"Invalid value of `contiguous`: {test.contiguous!r} (None or 'C')"
    )


def retry_nondifferentiable(test, check):
    """Runs ``check``; with dodge_nondifferentiable, redraws at kinks."""
    from chainer import gradient_check

    if not test.dodge_nondifferentiable:
        check()
        return
    for _ in range(_MAX_DODGE_ATTEMPTS):
        try:
            check()
        except gradient_check.NondifferentiableError:
            continue
        return
    raise RuntimeError(
        f"inputs hit a non-differentiable point {_MAX_DODGE_ATTEMPTS} times in "
        "a row; generate_inputs should avoid such points"
    )
