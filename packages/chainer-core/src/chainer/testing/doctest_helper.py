"""Conditions for skipping doctest examples (``:skipif:`` of Sphinx doctest).

Each helper returns True when an example should be skipped, e.g.::

    .. doctest::
       :skipif: doctest_helper.skipif_not_enough_cuda_devices(2)

The ``CHAINER_TEST_GPU_LIMIT`` environment variable gives the number of GPUs
available to the tests (unset or negative: no limit).
"""

from __future__ import annotations

import os

from chainer.testing import helper


def _gpu_limit():
    text = os.environ.get("CHAINER_TEST_GPU_LIMIT", "-1")
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f"CHAINER_TEST_GPU_LIMIT must be an integer, got {text!r}"
        ) from None


def skipif(condition):
    """Returns ``condition``: True skips the example.

    Args:
        condition (bool): Whether to skip.

    Returns:
        bool: ``condition`` as a bool.
    """
    return bool(condition)


def skipif_requires_satisfied(*requirements):
    """Skips an example when all the requirements are installed.

    Args:
        requirements (str): Requirement strings such as ``'scipy>=1.0'``.

    Returns:
        bool: True if every requirement is satisfied.
    """
    return helper._requirements_satisfied(requirements)


def skipif_not_enough_cuda_devices(device_count):
    """Skips an example when ``CHAINER_TEST_GPU_LIMIT`` allows fewer GPUs.

    Args:
        device_count (int): GPUs the example needs.

    Returns:
        bool: True if the limit is set and below ``device_count``.
    """
    return skipif(0 <= _gpu_limit() < device_count)
