"""The install commands that error messages give for this project's parts.

This module is an extension of this project, not part of Chainer 7's API.
Chainer's namespace comes in several distributions (chainer-core,
chainer-links, chainer-training, chainer-datasets, chainer-cpu, chainer-cuda,
chainer-mn);
a message that asks the user to install one of them builds the command with
:func:`install_hint`, so every message gives the same two ways: ``pip install``
from the package index, and ``pip install -e`` from a source checkout, which
works before a release is published there.
"""

from __future__ import annotations

# Each distribution with its extras, as declared in packages/<name>/pyproject.toml
# (tests/contracts/test_distribution_metadata.py keeps the two equal). In a
# source checkout the distribution lives in packages/<name>.
DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "chainer-core": ("hdf5",),
    "chainer-links": ("special", "vision"),
    "chainer-training": ("plot",),
    "chainer-datasets": ("image", "svhn"),
    "chainer-cpu": ("mkl", "onednn"),
    "chainer-cuda": ("cuda12", "cuda13"),
    "chainer-mn": ("openmpi", "cuda12", "cuda13"),
}


def install_hint(
    distribution: str, extra: str | None = None, *, upgrade: bool = False
) -> str:
    """Returns the commands that install one of this project's distributions.

    The text names ``pip install`` from the package index and, for a source
    checkout, ``pip install -e packages/<name>`` run in the checkout's root.
    Requirements with an extra are quoted for the shell.

    Args:
        distribution (str): A distribution of this project, such as
            ``'chainer-links'``.
        extra (str or None): One of the distribution's extras, such as
            ``'special'``, or None for the distribution alone.
        upgrade (bool): If True, the package-index command upgrades an
            installed distribution (``pip install --upgrade``).

    Returns:
        str: The commands, meant to follow words such as "install it with:".

    Raises:
        ValueError: ``distribution`` is not one of this project's
            distributions, or ``extra`` is not one of its extras.

    .. admonition:: Example

        >>> from chainer.utils import install_hint
        >>> print(install_hint.install_hint('chainer-links', 'special'))
        ... # doctest: +NORMALIZE_WHITESPACE
        pip install 'chainer-links[special]' (once published on PyPI; from the
        root of a source checkout: pip install -e 'packages/chainer-links[special]')

    """
    extras = DISTRIBUTIONS.get(distribution)
    if extras is None:
        raise ValueError(
            f"unknown distribution {distribution!r}; this project's "
            f"distributions are {', '.join(DISTRIBUTIONS)}"
        )
    if extra is None:
        requirement = distribution
        local = f"packages/{distribution}"
    elif extra in extras:
        requirement = f"'{distribution}[{extra}]'"
        local = f"'packages/{distribution}[{extra}]'"
    else:
        raise ValueError(
            f"unknown extra {extra!r} of {distribution}; its extras are "
            f"{', '.join(extras)}"
        )
    command = "pip install --upgrade" if upgrade else "pip install"
    return (
        f"{command} {requirement} (once published on PyPI; from the root of a "
        f"source checkout: pip install -e {local})"
    )
