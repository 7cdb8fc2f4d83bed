"""Helpers shared by the optimizer modules of this package."""

from __future__ import annotations

import numbers

import numpy


def check_real(cls_name, **values):
    """Raises TypeError unless every given hyperparameter is a real number."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{cls_name}: {name} must be a real number; got {value!r}")


def check_range(cls_name, name, value, low, high, high_inclusive=False):
    """Raises ValueError unless ``low <= value < high`` (or ``<= high``)."""
    ok = low <= value <= high if high_inclusive else low <= value < high
    if not ok:
        bracket = "]" if high_inclusive else ")"
        raise ValueError(
            f"{cls_name}: {name} must be in [{low}, {high}{bracket}; got {value}"
        )


# (eps, dtype) pairs already found representable; update rules check on
# every step, so this keeps the check off the per-parameter cost.
_eps_ok: set[tuple[object, object]] = set()


def check_eps(cls_name, eps, dtype):
    """Raises ValueError if ``eps`` rounds to zero in ``dtype``.

    A zero eps turns the first steps into 0/0, e.g. Adam's default 1e-8 in
    float16; a larger eps or ``use_fp32_update()`` avoids it.
    """
    key = (eps, dtype)
    try:
        if key in _eps_ok:
            return
    except TypeError:  # an unhashable eps (0-d array): check every time
        key = None
    if eps == 0 or numpy.dtype(dtype).type(eps) != 0:
        if key is not None:
            if len(_eps_ok) > 256:
                # eps changed by a schedule: forget old values.
                _eps_ok.clear()
            _eps_ok.add(key)
        return
    raise ValueError(
        f"eps of {cls_name} optimizer is too small for {numpy.dtype(dtype).name} "
        f"({eps}); use a larger eps or optimizer.use_fp32_update()"
    )
