"""Layering rules of DESIGN.md, checked on the source with ``ast``.

- chainer-core imports none of the other distributions at module level
  (lazy imports inside functions are the documented optional paths).
- Only ``chainer_cuda`` imports ``cupy``.
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "packages"
OTHERS = (
    "chainer.functions",
    "chainer.links",
    "chainer.training",
    "chainer.iterators",
    "chainer.datasets",
    "chainer.distributions",
    "chainer.exporters",
    "chainer_cuda",
    "chainermn",
)


def _imports(tree, top_level_only):
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            for alias in node.names:
                yield f"{node.module}.{alias.name}"


def _sources(package):
    src = PACKAGES / package / "src"
    return sorted(src.rglob("*.py")) if src.exists() else []


def test_core_imports_no_other_distribution_at_module_level():
    bad = []
    for path in _sources("chainer-core"):
        tree = ast.parse(path.read_text())
        for name in _imports(tree, top_level_only=True):
            if name.startswith(OTHERS):
                bad.append(f"{path.relative_to(ROOT)}: {name}")
    assert not bad, "core imports other distributions:\n" + "\n".join(bad)


def test_only_chainer_cuda_imports_cupy():
    bad = []
    for package in sorted(p.name for p in PACKAGES.iterdir() if p.is_dir()):
        if package == "chainer-cuda":
            continue
        for path in _sources(package):
            tree = ast.parse(path.read_text())
            for name in _imports(tree, top_level_only=False):
                if name == "cupy" or name.startswith("cupy."):
                    bad.append(f"{path.relative_to(ROOT)}: {name}")
    assert not bad, "cupy imported outside chainer_cuda:\n" + "\n".join(bad)


def test_core_does_not_import_pluggy_outside_plugins():
    bad = []
    for path in _sources("chainer-core"):
        if path.name == "plugins.py":
            continue
        for name in _imports(ast.parse(path.read_text()), top_level_only=False):
            if name == "pluggy" or name.startswith("pluggy."):
                bad.append(str(path.relative_to(ROOT)))
    assert not bad, "pluggy imported outside chainer/plugins.py: " + ", ".join(bad)
