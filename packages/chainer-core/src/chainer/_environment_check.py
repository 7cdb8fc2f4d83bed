"""Checks of the environment Chainer runs in (``chainer._environment_check``).

:func:`check` warns about an optional dependency (CuPy) whose installed version
is outside the supported range, or that is installed twice under different
package names, and about NumPy built with Apple's Accelerate on macOS. Chainer
calls it at import; here ``import chainer`` skips it to stay fast, and a user
(or ``chainer.print_runtime_info``-style tooling) calls it when wanted.
Set ``CHAINER_WARN_VERSION_MISMATCH=0`` to skip the version comparison.
"""

from __future__ import annotations

import os
import re
import sys
import warnings

from chainer import _version


def _check_python_350():
    # Python 3.5.0 had a bug that broke Chainer; kept for Chainer's API.
    if sys.version_info[:3] == (3, 5, 0) and not int(
        os.getenv("CHAINER_PYTHON_350_FORCE", "0")
    ):
        raise RuntimeError("Chainer does not work with Python 3.5.0.")


def _check_osx_numpy_backend():
    if sys.platform != "darwin":
        return
    import numpy

    try:
        config = numpy.show_config(mode="dicts")
    except TypeError:  # NumPy < 1.25 has no mode argument
        return
    blas = str(config.get("Build Dependencies", {}).get("blas", {})).lower()
    if "accelerate" in blas:
        warnings.warn(
            "Accelerate has been detected as a NumPy backend library.\n"
            "vecLib, which is a part of Accelerate, is known not to work "
            "correctly with Chainer.\n"
            "We recommend using other BLAS libraries such as OpenBLAS."
        )


def _version_tuple(text):
    parts = []
    for piece in text.split("."):
        m = re.match(r"\d+", piece)
        if m is None:
            break
        parts.append(int(m.group()))
    return tuple(parts)


def _satisfies(version, specifier):
    v = _version_tuple(version)
    for clause in specifier.split(","):
        clause = clause.strip()
        m = re.match(r"(>=|<=|==|!=|>|<)\s*(.+)", clause)
        if m is None:
            continue
        op, bound = m.group(1), _version_tuple(m.group(2))
        width = max(len(v), len(bound))
        a = v + (0,) * (width - len(v))
        b = bound + (0,) * (width - len(bound))
        ok = {
            ">=": a >= b,
            "<=": a <= b,
            "==": a == b,
            "!=": a != b,
            ">": a > b,
            "<": a < b,
        }[op]
        if not ok:
            return False
    return True


def _check_optional_dependencies():
    from importlib import metadata

    check_version = os.environ.get("CHAINER_WARN_VERSION_MISMATCH", "1") == "1"
    for dep in _version._optional_dependencies:
        name, spec = dep["name"], dep["specifier"]
        found = []
        for pkg in dep["packages"]:
            try:
                version = metadata.version(pkg)
            except metadata.PackageNotFoundError:
                continue
            found.append(pkg)
            if check_version and not _satisfies(version, spec):
                warnings.warn(
                    f"{name} ({pkg}) version {version} may not be compatible "
                    "with this version of Chainer.\nPlease consider installing "
                    f"the supported version by running:\n  $ pip install "
                    f"'{pkg}{spec}'\n\nSee the following page for more "
                    f"details:\n  {dep['help']}"
                )
        if len(found) > 1:
            warnings.warn(
                f"Multiple installations of {name} package has been detected: "
                f"{found}. You should select only one package from "
                f"{dep['packages']}: uninstall the others with "
                "`pip uninstall <package name>`."
            )


def check():
    """Runs every environment check; problems are reported as warnings."""
    _check_python_350()
    _check_osx_numpy_backend()
    _check_optional_dependencies()
