"""Warning for non-deterministic kernels (``chainer.utils.nondeterministic``)."""

from __future__ import annotations

import warnings

from chainer import configuration


def nondeterministic(f_name):
    """Warns that a non-deterministic computation is running.

    Functions whose results may vary between runs (GPU kernels with atomic
    additions) call this; it warns only when
    ``chainer.config.warn_nondeterministic`` is True.

    Args:
        f_name (str): Name of the function or kernel, shown in the warning.
    """
    if configuration.config.warn_nondeterministic:
        warnings.warn(
            "Potentially non-deterministic code is being executed while "
            "config.warn_nondeterministic set. Source: " + f_name
        )
