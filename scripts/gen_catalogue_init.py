"""Regenerates the re-export blocks of ``chainer.functions`` and ``chainer.links``.

It also writes ``chainer/_links_names.py``, the names as data, from which the
packages' ``__all__`` and chainer-links' plugin read them.

Every public name of Chainer 7's ``chainer.functions`` / ``chainer.links``
(as listed in ``tests/contracts/chainer7-public-api.tsv``, see ``api_list.py``)
that a module of the catalogue defines (or re-exports) is imported into the
package's ``__init__.py``. A name defined in several modules is taken from the module
named after it, else from the first module in path order.

Run: ``python scripts/gen_catalogue_init.py [-v]`` from the repository root.
"""

import ast
import pathlib
import subprocess
import sys

from api_list import read_list

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "packages" / "chainer-links" / "src" / "chainer"
BEGIN = "# --- generated re-exports (scripts/gen_catalogue_init.py) ---"
END = "# --- end of generated re-exports ---"
_NAMES_TUPLE = {"functions": "FUNCTIONS", "links": "LINKS"}
NAMES_HEADER = (
    '"""The public names of ``chainer.functions`` and ``chainer.links``, as data.\n'
    '''
Written by ``scripts/gen_catalogue_init.py``; the packages' ``__all__`` are
built from these tuples. chainer-links' plugin registers the names from here
without importing the catalogue (which would import hundreds of modules).
"""
'''
)


def _wanted(package, kind):
    """Names of ``kind`` listed in ``chainer.<package>``."""
    return {
        name
        for namespace, name, listed_kind, _, _ in read_list()
        if namespace == f"chainer.{package}" and listed_kind == kind
    }


def _defined(path):
    """Public names of a module: ``(defined there, imported there)``."""
    tree = ast.parse(path.read_text())
    defined = set()
    imported = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not (
            node.name.startswith("_")
        ):
            defined.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                imported.add(alias.asname or alias.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    defined.add(target.id)
    return defined, imported - defined


def _module_key(name, module):
    # Prefer the module named after the name (relu in activation/relu.py;
    # Linear in connection/linear.py).
    stem = module.rsplit(".", 1)[1]
    return stem == name.lower() or stem.replace("_", "") == name.lower()


def generate(package, kind, verbose):
    pkg = SRC / package
    wanted = _wanted(package, kind)
    found = {}
    rank = {}
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg.parent.parent)
        if any(part.startswith("_") for part in rel.parts[2:]):
            continue
        module = ".".join(rel.with_suffix("").parts)
        defined, imported = _defined(path)
        for name in sorted((defined | imported) & wanted):
            # A module re-exporting a name from its new home (the cells kept
            # importable under functions/activation) loses to that home.
            key = (_module_key(name, module), name in defined)
            if name not in found or key > rank[name]:
                found[name] = module
                rank[name] = key
    lines = [
        BEGIN,
        "from chainer import _links_names",
        "from chainer.utils import lazy_namespace as _lazy_namespace",
    ]
    for name in sorted(found):
        lines.append(f"from {found[name]} import {name}")
    lines.append("")
    lines.append(f"__all__ = list(_links_names.{_NAMES_TUPLE[package]})")
    # Other names are those plugins register (chainer.utils.lazy_namespace).
    lines.append(
        f"__getattr__, __dir__ = _lazy_namespace.attach("
        f'__name__, plugin_kind="{package}")'
    )
    lines.append(END)
    block = "\n".join(lines)
    init = pkg / "__init__.py"
    text = init.read_text()
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + block + tail
    else:
        marker = "__all__: list[str] = []\n"
        text = text.replace(marker, block + "\n")
    init.write_text(text)
    # Leave the file as ruff (isort order, formatting) would.
    for cmd in (["ruff", "check", "--fix", "-q"], ["ruff", "format", "-q"]):
        subprocess.run([*cmd, str(init)], check=False)
    missing = sorted(wanted - set(found))
    print(f"chainer.{package}: {len(found)} exported; {len(missing)} not found")
    if verbose:
        print(" ".join(missing))
    return sorted(found)


def write_names(names_by_package):
    """Writes ``chainer/_links_names.py``: the names as data, one tuple a package."""
    parts = [NAMES_HEADER]
    for package, names in names_by_package.items():
        parts.append(f"{_NAMES_TUPLE[package]} = (")
        parts.extend(f'    "{name}",' for name in names)
        parts.append(")\n")
    path = SRC / "_links_names.py"
    path.write_text("\n".join(parts))
    subprocess.run(["ruff", "format", "-q", str(path)], check=False)


def main():
    verbose = "-v" in sys.argv
    names = {
        "functions": generate("functions", "function", verbose),
        "links": generate("links", "class", verbose),
    }
    write_names(names)


if __name__ == "__main__":
    main()
