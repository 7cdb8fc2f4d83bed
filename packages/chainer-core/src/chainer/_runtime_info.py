"""``chainer.print_runtime_info``: what a bug report needs to know."""

from __future__ import annotations

import importlib.util
import os
import platform
import sys

import numpy

from chainer import _host_memory


def _distribution_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _cupy_status() -> str:
    # Importing CuPy is slow and may touch the GPU driver; an already imported
    # module or the installed metadata answers without either.
    module = sys.modules.get("cupy")
    if module is not None:
        return f"{getattr(module, '__version__', 'unknown version')} (imported)"
    if importlib.util.find_spec("cupy") is None:
        return "Not Available"
    from importlib import metadata

    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name == "cupy" or name.startswith(("cupy-cuda", "cupy-rocm")):
            return f"{dist.version} ({name}, not imported)"
    return "Installed (version unknown)"


def _optional_version(module_name: str, distribution: str) -> str:
    if importlib.util.find_spec(module_name) is None:
        return "Not Available"
    return _distribution_version(distribution) or "Installed (version unknown)"


def _retention_status() -> str:
    nbytes = _host_memory.get_host_memory_retention()
    if nbytes is None:
        return "malloc defaults"
    return f"{nbytes} bytes"


def _cpu_threads_status() -> str:
    from chainer.utils import _parallel

    return _parallel.describe_threads()


def _distributions_line() -> str:
    from chainer.utils import install_hint

    installed, missing = [], []
    for name in install_hint.DISTRIBUTIONS:
        version = _distribution_version(name)
        if version is None:
            missing.append(name)
        else:
            installed.append(f"{name} {version}")
    line = f"Chainer distributions: {', '.join(installed) or 'none found'}"
    if missing:
        line += f"; not installed: {', '.join(missing)}"
    return line


def _format_key(key) -> str:
    if isinstance(key, tuple):
        node, backend_name = key
        # A kernel's node is a class, or the 'module:Class' text a plugin gave.
        if isinstance(node, type):
            node = node.__qualname__
        return f"{str(node).rpartition(':')[2]}@{backend_name}"
    return str(key)


def _counts(registered: dict) -> str:
    parts = []
    for kind, keys in registered.items():
        if keys:
            noun = kind if len(keys) != 1 else kind.removesuffix("s")
            parts.append(f"{len(keys)} {noun}")
    return ", ".join(parts) if parts else "nothing registered"


def _plugin_lines(verbose: bool) -> list[str]:
    from chainer import plugins

    try:
        records = plugins.list_plugins()
    except Exception as exc:
        # A diagnostic must survive the breakage it is asked to show.
        return [f"  (plugins failed to load: {type(exc).__name__}: {exc})"]
    lines = []
    for info in records:
        origin = (
            f"{info.distribution} {info.version}"
            if info.distribution
            else "registered explicitly"
        )
        # The registry sets ``error`` on a plugin it skipped because it failed.
        error = getattr(info, "error", None)
        if error is not None:
            lines.append(f"  {info.name} ({origin}): failed, skipped: {error}")
            continue
        lines.append(f"  {info.name} ({origin}): {_counts(info.registered)}")
        if verbose:
            lines.extend(
                f"    {kind}: {', '.join(_format_key(k) for k in keys)}"
                for kind, keys in info.registered.items()
                if keys
            )
    return lines


def print_runtime_info(out=None, *, verbose: bool = False) -> None:
    """Shows Chainer runtime information.

    Prints the platform, Python, Chainer, NumPy, CuPy and h5py versions, the
    version of each of Chainer's distributions that is installed, the host
    memory retention (see ``chainer.backend.set_host_memory_retention``),
    the CPU threads that NumPy convolutions use (``CHAINER_CPU_PARALLEL``)
    and one line per plugin: its distribution and version and how many
    backends, functions, links, extensions, datasets and kernels it
    registered, or why it failed. CuPy is not imported to find its version.

    Args:
        out: Output destination, a file-like object with ``write``. Defaults to
            ``sys.stdout``.
        verbose (bool): If True, each plugin's line is followed by the names
            it registered, one line per kind.
    """
    if out is None:
        out = sys.stdout
    elif not callable(getattr(out, "write", None)):
        raise TypeError(
            f"print_runtime_info(out=...) needs a file-like object with write(), "
            f"not {type(out).__name__}"
        )
    import chainer

    disabled = os.environ.get("CHAINER_DISABLE_PLUGIN_AUTOLOAD")
    header = (
        f"Plugins (CHAINER_DISABLE_PLUGIN_AUTOLOAD={disabled}):"
        if disabled
        else "Plugins:"
    )
    lines = [
        f"Platform: {platform.platform()}",
        f"Python: {platform.python_version()}",
        f"Chainer: {chainer.__version__}",
        _distributions_line(),
        "ChainerX: Not Available",
        f"NumPy: {numpy.__version__}",
        f"CuPy: {_cupy_status()}",
        "iDeep: Not Available",
        f"h5py: {_optional_version('h5py', 'h5py')}",
        f"Host memory retention: {_retention_status()}",
        f"CPU threads for convolutions: {_cpu_threads_status()}",
        header,
        *_plugin_lines(verbose),
    ]
    out.write("\n".join(lines) + "\n")
