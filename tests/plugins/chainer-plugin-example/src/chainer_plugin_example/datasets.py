"""The example plugin's dataset getter, ``get_example_squares``."""

import numpy


def get_example_squares(n=5):
    """Returns ``n`` examples ``(x, x ** 2)`` of float32 scalars.

    Args:
        n (int): Number of examples.

    Returns:
        list of tuple: ``[(0.0, 0.0), (1.0, 1.0), (2.0, 4.0), ...]``.
    """
    xs = numpy.arange(n, dtype=numpy.float32)
    return list(zip(xs, xs**2, strict=True))
