"""The iDeep backend (``chainer.backends.intel64``): not available here.

Chainer 7 accelerates some CPU functions with iDeep (``ideep4py``) when it is
installed and ``chainer.config.use_ideep`` allows it. iDeep is unmaintained
and does not build for today's Python, so this Chainer never uses it: this
module behaves as Chainer 7's does without ``ideep4py``.
:func:`is_ideep_available` and :func:`should_use_ideep` return False,
:func:`inputs_all_ready` returns False, and constructing
:class:`Intel64Device` (``chainer.get_device('@intel64')``) or calling
``to_intel64()`` raises ``RuntimeError`` saying iDeep is not available.
"""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import configuration

#: The ``ideep4py`` module (None: iDeep is not available).
ideep = None
_ideep_version = None
_error = ModuleNotFoundError("No module named 'ideep4py'", name="ideep4py")


class mdarray:
    """Stand-in for ``ideep4py.mdarray``, for type testing: never instantiated."""

    def __init__(self, *args, **kwargs):
        check_ideep_available()


class Intel64Device(backend.Device):
    """Device of the iDeep backend (``'@intel64'``); needs iDeep.

    Raises:
        RuntimeError: Always here: iDeep is not available.
    """

    xp = numpy
    name = "@intel64"
    supported_array_types = (numpy.ndarray, mdarray)

    def __init__(self):
        check_ideep_available()

    @staticmethod
    def from_array(array):
        if isinstance(array, mdarray):
            return Intel64Device()
        return None

    def __eq__(self, other):
        return isinstance(other, Intel64Device)

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def send_array(self, array):
        check_ideep_available()

    def is_array_supported(self, array):
        return isinstance(array, (numpy.ndarray, mdarray))


_SHOULD_USE_IDEEP = {
    "==always": {"always": True, "auto": False, "never": False},
    ">=auto": {"always": True, "auto": True, "never": False},
}


def is_ideep_available():
    """Returns whether a supported iDeep is installed: always False here.

    Returns:
        bool: ``False``.
    """
    return _ideep_version is not None and _ideep_version == 2


def check_ideep_available():
    """Raises ``RuntimeError``: iDeep is not available in this Chainer."""
    if not is_ideep_available():
        raise RuntimeError(
            "iDeep is not available.\n"
            f"Reason: {type(_error).__name__}: {_error}\n"
            "This Chainer does not support iDeep (Intel64) acceleration; "
            "use the NumPy device ('@numpy') instead."
        )


def should_use_ideep(level):
    """Returns whether iDeep should be used for a function: always False here.

    Args:
        level (str): ``'==always'`` or ``'>=auto'``, compared with
            ``chainer.config.use_ideep`` when iDeep is available.

    Returns:
        bool: ``False``.
    """
    if not is_ideep_available():
        return False
    if level not in _SHOULD_USE_IDEEP:
        raise ValueError(
            f"invalid iDeep use level: {level!r} "
            "(must be either of '==always' or '>=auto')"
        )
    flags = _SHOULD_USE_IDEEP[level]
    use_ideep = configuration.config.use_ideep
    if use_ideep not in flags:
        raise ValueError(
            f"invalid use_ideep configuration: {use_ideep!r} "
            "(must be either of 'always', 'auto', or 'never')"
        )
    return flags[use_ideep]


def inputs_all_ready(inputs, supported_ndim=(2, 4)):
    """Returns whether iDeep can take all ``inputs``: always False here.

    Args:
        inputs: Arrays or Variables.
        supported_ndim (tuple of int): Dimensions iDeep would accept.

    Returns:
        bool: ``False``.
    """
    return False
