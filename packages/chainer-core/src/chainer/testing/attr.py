"""pytest markers for tests (``from chainer.testing import attr``).

``gpu`` and ``multi_gpu`` tests are also skipped where CUDA (CuPy through
``chainer-cuda``) is unavailable or has too few devices, so they skip
correctly even without the project's ``conftest.py``. Without pytest the
decorators return the test unchanged.
"""

from __future__ import annotations


def _pytest():
    # Imported on first use: pytest is a test-time dependency only, and
    # importing it costs more than the rest of chainer.testing.
    try:
        import pytest
    except ImportError:
        return None
    return pytest


def _cuda_device_count():
    from chainer.backends import cuda

    if not cuda.available:
        return 0
    try:
        return int(cuda.cupy.cuda.runtime.getDeviceCount())
    except Exception:
        # A broken driver must read as "no GPU", not abort collection.
        return 0


def _identity(f):
    return f


def slow(f):
    """Marks a test as slow (``-m "not slow"`` deselects it).

    Args:
        f: Test function or class.

    Returns:
        The marked test.
    """
    pytest = _pytest()
    if pytest is None:
        return f
    return pytest.mark.slow(f)


def multi_gpu(gpu_num):
    """Marks a test as needing ``gpu_num`` CUDA devices.

    Args:
        gpu_num (int): Number of GPUs required.

    Returns:
        callable: Decorator that adds the ``gpu`` marker and skips the test
        when fewer devices are available.
    """
    if not isinstance(gpu_num, int) or gpu_num < 1:
        raise ValueError(f"multi_gpu: gpu_num must be a positive int, got {gpu_num!r}")
    pytest = _pytest()
    if pytest is None:
        return _identity

    def decorator(f):
        f = pytest.mark.skipif(
            _cuda_device_count() < gpu_num,
            reason=f"requires {gpu_num} CUDA device(s)",
        )(f)
        return pytest.mark.gpu(f)

    return decorator


def gpu(f):
    """Marks a test as needing a CUDA device (the ``gpu`` marker).

    Args:
        f: Test function or class.

    Returns:
        The marked test.
    """
    return multi_gpu(1)(f)


def cudnn(f):
    """Marks a test as needing cuDNN (the ``cudnn`` marker); such a test needs
    a GPU, so it is also a :func:`gpu` test.

    Args:
        f: Test function or class.

    Returns:
        The marked test.
    """
    pytest = _pytest()
    if pytest is None:
        return f
    return pytest.mark.cudnn(gpu(f))


def _unavailable_backend(marker, reason):
    def decorator(f):
        pytest = _pytest()
        if pytest is None:
            return f
        f = pytest.mark.skip(reason=reason)(f)
        return getattr(pytest.mark, marker)(f)

    return decorator


def ideep(f):
    """Marks a test as needing iDeep (the ``ideep`` marker).

    iDeep is not supported by this implementation, so the test is skipped.

    Args:
        f: Test function or class.

    Returns:
        The marked test.
    """
    return _unavailable_backend("ideep", "iDeep is not available")(f)


def chainerx(f):
    """Marks a test as needing ChainerX (the ``chainerx`` marker).

    ChainerX's native build is not available here
    (``chainerx.is_available()`` is False), so the test is skipped.

    Args:
        f: Test function or class.

    Returns:
        The marked test.
    """
    return _unavailable_backend("chainerx", "ChainerX is not available")(f)
