"""Regenerates the re-export block of ``chainer/functions/__init__.py``.

Every public function of Chainer 7's ``chainer.functions`` (the list in
``../shared/api/chainer7-public-api.md``) that a module of the catalogue
defines (or re-exports from core) is imported into ``chainer.functions``.
A name defined in several modules is taken from the module named after it,
else from the first module in path order.

Run: ``python scripts/gen_functions_init.py`` from the repository root.
"""

import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "packages" / "chainer-links" / "src" / "chainer" / "functions"
API = ROOT.parent / "shared" / "api" / "chainer7-public-api.md"
BEGIN = "# --- generated re-exports (scripts/gen_functions_init.py) ---"
END = "# --- end of generated re-exports ---"


def _wanted():
    text = API.read_text()
    section = text.split("## chainer.functions\n", 1)[1].split("\n## ", 1)[0]
    return {m.group(1) for m in re.finditer(r"^(\w+) \[function\]", section, re.M)}


def _defined(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                names.add(alias.asname or alias.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return names


def main():
    wanted = _wanted()
    found = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent.parent)
        if any(part.startswith("_") for part in rel.parts[2:]):
            continue
        module = ".".join(rel.with_suffix("").parts)
        for name in sorted(_defined(path) & wanted):
            if name not in found or path.stem == name:
                if name in found and pathlib.Path(found[name]).stem == name:
                    continue
                found[name] = module
    lines = [BEGIN]
    for name in sorted(found):
        lines.append(f"from {found[name]} import {name}")
    lines.append("")
    lines.append("__all__ = [")
    lines.extend(f'    "{name}",' for name in sorted(found))
    lines.append("]")
    lines.append(END)
    block = "\n".join(lines)
    init = PKG / "__init__.py"
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
    print(f"{len(found)} functions exported; {len(missing)} of Chainer's not found")
    if "-v" in sys.argv:
        print(" ".join(missing))


if __name__ == "__main__":
    main()
