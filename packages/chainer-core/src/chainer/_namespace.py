"""Clear errors for parts of Chainer whose distribution is not installed.

Chainer's namespace is shipped in pieces: ``chainer.functions`` and
``chainer.links`` come with chainer-links, ``chainer.training`` and
``chainer.iterators`` with chainer-training, and so on. :func:`install` puts a
finder at the end of ``sys.meta_path``; it is asked only after every other
finder failed, so installed parts import as usual, and a missing part raises a
``ModuleNotFoundError`` that names the distribution and the pip command.
"""

from __future__ import annotations

import sys
from types import FrameType

# Module -> the distribution that provides it.
_PROVIDERS = {
    "chainer.functions": "chainer-links",
    "chainer.links": "chainer-links",
    "chainer.distributions": "chainer-links",
    "chainer.distribution": "chainer-links",
    "chainer.exporters": "chainer-links",
    "chainer.training": "chainer-training",
    "chainer.iterators": "chainer-training",
    "chainer.datasets": "chainer-datasets",
    "chainer_cuda": "chainer-cuda",
    "chainermn": "chainer-mn",
}


def _import_context() -> tuple[bool, bool]:
    """Tells whether the import system is importing (not just probing) a module.

    Returns ``(importing, from_fromlist)``. ``importlib.util.find_spec`` probes
    reach the finder too, and must keep getting None for a missing module. Only
    the import machinery's own frames right above the finder are looked at, so
    a probe made by a module body that is itself being imported is still a
    probe.
    """
    # Frame 0 is this function, 1 the finder, 2 importlib's _find_spec.
    try:
        frame = sys._getframe(3)
    except ValueError:  # called directly from a shallow stack: not an import
        return False, False
    if (
        frame.f_globals.get("__name__") != "importlib._bootstrap"
        or frame.f_code.co_name != "_find_and_load_unlocked"
    ):
        return False, False
    outer: FrameType | None = frame
    while outer is not None and outer.f_globals.get("__name__") == (
        "importlib._bootstrap"
    ):
        if outer.f_code.co_name == "_handle_fromlist":
            return True, True
        outer = outer.f_back
    return True, False


class _MissingDistributionFinder:
    """Meta path finder that explains which distribution a missing module needs."""

    def find_spec(self, fullname, path=None, target=None):
        distribution = _PROVIDERS.get(fullname)
        if distribution is None:
            return None
        # Finders appended after this one (import hooks of other tools) still
        # get their turn before the error.
        meta_path = sys.meta_path
        start = meta_path.index(self) + 1 if self in meta_path else len(meta_path)
        for finder in meta_path[start:]:
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is not None:
                spec = find_spec(fullname, path, target)
                if spec is not None:
                    return spec
        importing, from_fromlist = _import_context()
        if not importing:
            return None
        # For ``from chainer import functions`` the import system drops a
        # ModuleNotFoundError whose ``name`` is the submodule it tried, and
        # raises a vaguer "cannot import name" instead; leaving ``name`` unset
        # there lets this message reach the user.
        raise ModuleNotFoundError(
            _message(fullname, distribution),
            name=None if from_fromlist else fullname,
        )


def _message(fullname: str, distribution: str) -> str:
    from importlib import metadata

    from chainer.utils import install_hint

    try:
        version = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return (
            f"No module named {fullname!r}: it is provided by the distribution "
            f"{distribution!r}, which is not installed. Install it with: "
            f"{install_hint.install_hint(distribution)}"
        )
    return (
        f"No module named {fullname!r}: the installed {distribution} {version} "
        "does not provide it yet; upgrade it with: "
        f"{install_hint.install_hint(distribution, upgrade=True)}"
    )


def install() -> None:
    """Appends the missing-distribution finder to ``sys.meta_path`` once."""
    if not any(isinstance(f, _MissingDistributionFinder) for f in sys.meta_path):
        sys.meta_path.append(_MissingDistributionFinder())
