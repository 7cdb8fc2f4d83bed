"""Array assertions that accept arrays of any backend (``chainer.testing``)."""

from __future__ import annotations

import io

import numpy


def _to_numpy(x):
    if isinstance(x, numpy.ndarray):
        return x
    if hasattr(x, "array") and hasattr(x, "creator"):
        raise TypeError(
            "assert_allclose expects arrays or scalars, not a Variable; "
            "pass `var.array`"
        )
    from chainer import backend

    if isinstance(x, (numpy.generic, int, float, complex, bool, list, tuple)):
        return numpy.asarray(x)
    return numpy.asarray(backend.CpuDevice().send(x))


def _describe_worst(f, x, y, atol, rtol):
    xx = numpy.atleast_1d(x)
    yy = numpy.atleast_1d(y)
    err = numpy.abs(xx.astype(numpy.float64) - yy.astype(numpy.float64))
    tol_rtol = rtol * numpy.abs(yy.astype(numpy.float64))
    tol = atol + tol_rtol
    excess = numpy.where(numpy.isnan(err), numpy.inf, err - tol)
    i = tuple(int(j) for j in numpy.unravel_index(numpy.argmax(excess), err.shape))
    rel = "inf" if yy[i] == 0 else err[i] / numpy.abs(float(yy[i]))
    f.write(f"  i: {i}\n")
    f.write(f"  x[i]: {xx[i]}\n")
    f.write(f"  y[i]: {yy[i]}\n")
    f.write(f"  relative error[i]: {rel}\n")
    f.write(f"  absolute error[i]: {err[i]}\n")
    f.write(f"  relative tolerance * |y[i]|: {tol_rtol[i]}\n")
    f.write(f"  absolute tolerance: {atol}\n")
    f.write(f"  total tolerance: {tol[i]}\n")


def assert_allclose(x, y, atol=1e-5, rtol=1e-4, verbose=True):
    """Asserts that ``x`` and ``y`` are equal within tolerances.

    Like :func:`numpy.testing.assert_allclose`, but it accepts NumPy and GPU
    arrays (mixed in one call) and has Chainer's default tolerances. The test
    is ``|x - y| <= atol + rtol * |y|`` elementwise.

    Args:
        x: Actual array or scalar.
        y: Expected array or scalar.
        atol (float): Absolute tolerance.
        rtol (float): Relative tolerance.
        verbose (bool): Whether conflicting values are printed in the message.

    Raises:
        AssertionError: If the arrays differ in shape or beyond tolerance; the
        message names the worst element.
    """
    x = _to_numpy(x)
    y = _to_numpy(y)
    try:
        numpy.testing.assert_allclose(x, y, atol=atol, rtol=rtol, verbose=verbose)
    except AssertionError as e:
        f = io.StringIO()
        f.write(str(e) + "\n\n")
        f.write("assert_allclose failed: \n")
        f.write(f"  shape: {x.shape} {y.shape}\n")
        f.write(f"  dtype: {x.dtype} {y.dtype}\n")
        if x.shape == y.shape and x.size and x.dtype.kind in "biuf":
            _describe_worst(f, x, y, atol, rtol)
        if verbose:
            with numpy.printoptions(threshold=10000):
                f.write("x: " + numpy.array2string(x, prefix="x: ") + "\n")
                f.write("y: " + numpy.array2string(y, prefix="y: ") + "\n")
        raise AssertionError(f.getvalue()) from None
