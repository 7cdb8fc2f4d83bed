"""Layering rules of DESIGN.md, checked on the source with ``ast``.

- chainer-core imports none of the other distributions at module level
  (lazy imports inside functions are the documented optional paths).
- Only ``chainer_cuda`` imports ``cupy``; only ``chainer/plugins.py`` pluggy.
- Every import in ``packages/*/src`` (``ast.walk``: module level, inside
  functions, under ``try``) of a module of another of our distributions is
  declared: the importing distribution lists the other in ``dependencies``,
  or the import is optional: it sits in a ``try`` whose ``except`` catches
  ``ImportError`` and the other distribution is listed in one of the
  importer's extras, or depends on the importer itself (chainer-core's
  testing helpers use chainer.functions where it is installed; declaring a
  dependent would make a cycle).
- No import reaches another distribution's private module or name: a dotted
  path with a component starting with ``_`` (dunders aside).

Which distribution owns a module is read from the package directories: a
top-level package with an ``__init__.py`` belongs to its distribution; in a
namespace portion (``chainer/`` outside chainer-core) each child belongs to
the distribution that ships it, and the longest matching prefix wins.
"""

import ast
import fnmatch
import pathlib
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "packages"

# Tolerated imports of another distribution's private modules: none since
# issue 23, and any new one needs a reason here. Each entry: (file globs relative to the
# repository root, imported dotted path and what is below it, reason). An
# entry that matches nothing fails the test, so the list cannot outlive its
# crossings.
ALLOWED_CROSSINGS: tuple = ()


def _owners():
    """Maps importable module prefixes to the distribution shipping them."""
    owners = {}
    for pyproject in sorted(PACKAGES.glob("*/pyproject.toml")):
        src = pyproject.parent / "src"
        if not src.is_dir():
            continue
        with pyproject.open("rb") as f:
            name = canonicalize_name(tomllib.load(f)["project"]["name"])
        for top in src.iterdir():
            if top.name == "__pycache__" or top.name.endswith(".egg-info"):
                continue
            if top.suffix == ".py":
                owners[top.stem] = name
            elif top.is_dir() and (top / "__init__.py").is_file():
                owners[top.name] = name
            elif top.is_dir():
                # A namespace portion: the distribution owns what it ships.
                for child in top.iterdir():
                    if child.name == "__pycache__":
                        continue
                    if child.suffix == ".py" or (child / "__init__.py").is_file():
                        owners[f"{top.name}.{child.name.removesuffix('.py')}"] = name
    return owners


OWNERS = _owners()


def owner(module):
    """The distribution owning a dotted module path, or None (not ours)."""
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        found = OWNERS.get(".".join(parts[:i]))
        if found is not None:
            return found
    return None


def _declared():
    """{distribution: (dependency names, names listed in extras)}."""
    declared = {}
    for pyproject in sorted(PACKAGES.glob("*/pyproject.toml")):
        with pyproject.open("rb") as f:
            project = tomllib.load(f)["project"]
        required = {
            canonicalize_name(Requirement(r).name)
            for r in project.get("dependencies", [])
        }
        extras = {
            canonicalize_name(Requirement(r).name)
            for reqs in project.get("optional-dependencies", {}).values()
            for r in reqs
        }
        declared[canonicalize_name(project["name"])] = (required, extras)
    return declared


def _catches_import_error(handler):
    names = []
    kind = handler.type
    if kind is None:
        return False
    for node in kind.elts if isinstance(kind, ast.Tuple) else [kind]:
        names.append(node.id if isinstance(node, ast.Name) else None)
    return bool({"ImportError", "ModuleNotFoundError"} & set(names))


def _guarded_nodes(tree):
    """The nodes inside a ``try`` body whose handlers catch ImportError."""
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Try, ast.TryStar)) and any(
            _catches_import_error(h) for h in node.handlers
        ):
            for statement in node.body:
                guarded.update(ast.walk(statement))
    return guarded


def _module_name(path):
    src = next(p for p in path.parents if p.name == "src")
    parts = list(path.relative_to(src).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


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


def imported_paths(path):
    """Yields ``(node, dotted path, guarded)`` for every import in a file.

    ``from a.b import c`` yields ``a.b.c``: ``c`` may be a module or a name,
    and either way it belongs to ``a.b``'s distribution (or to ``a.b.c``'s,
    for a namespace portion such as ``from chainer import functions``).
    Relative imports are resolved against the file's package.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    guarded = _guarded_nodes(tree)
    module, is_package = _module_name(path)
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, node in guarded
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield node, f"{base}.{alias.name}", node in guarded


def _private(dotted):
    return [
        part
        for part in dotted.split(".")
        if part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
    ]


def _allowed(relpath, dotted):
    for index, (globs, prefix, _reason) in enumerate(ALLOWED_CROSSINGS):
        if any(fnmatch.fnmatch(relpath, g) for g in globs) and (
            dotted == prefix or dotted.startswith(prefix + ".")
        ):
            return index
    return None


def crossing_problems(paths=None):
    """Returns ``(problems, allow-list entries used)`` over the given files."""
    declared = _declared()
    problems = []
    used = set()
    if paths is None:
        paths = sorted(PACKAGES.glob("*/src/**/*.py"))
    for path in paths:
        rel = (
            path.relative_to(ROOT).as_posix()
            if path.is_relative_to(ROOT)
            else str(path)
        )
        importer = owner(_module_name(path)[0])
        for node, dotted, guarded in imported_paths(path):
            target = owner(dotted)
            if target is None or target == importer:
                continue
            where = f"{rel}:{node.lineno}: {dotted}"
            required, extras = declared[importer]
            optional = extras | {
                d for d, (deps, _) in declared.items() if importer in deps
            }
            found = []
            if target not in required and not (guarded and target in optional):
                found.append(
                    f"{where}: {importer} does not declare {target}"
                    + (
                        " (an optional import goes in try/except ImportError "
                        "and the distribution in an extra)"
                        if not guarded
                        else " in an extra"
                    )
                )
            if _private(dotted):
                found.append(f"{where}: private to {target}")
            if found:
                entry = _allowed(rel, dotted)
                if entry is not None:
                    used.add(entry)
                else:
                    problems.extend(found)
    return problems, used


def _sources(package):
    src = PACKAGES / package / "src"
    return sorted(src.rglob("*.py")) if src.exists() else []


def test_every_cross_distribution_import_is_declared_and_public():
    problems, used = crossing_problems()
    assert not problems, (
        "imports across distributions must be declared in pyproject.toml and "
        "reach public names only:\n" + "\n".join(problems)
    )
    stale = [entry[:2] for i, entry in enumerate(ALLOWED_CROSSINGS) if i not in used]
    assert not stale, f"allow-list entries that match no import any more: {stale}"


def test_sibling_dependencies_are_version_ranges():
    siblings = set(OWNERS.values())
    bad = []
    for pyproject in sorted(PACKAGES.glob("*/pyproject.toml")):
        with pyproject.open("rb") as f:
            project = tomllib.load(f)["project"]
        requirements = list(project.get("dependencies", []))
        for reqs in project.get("optional-dependencies", {}).values():
            requirements.extend(reqs)
        for text in requirements:
            req = Requirement(text)
            if canonicalize_name(req.name) not in siblings:
                continue
            operators = {spec.operator for spec in req.specifier}
            if not ({">=", ">"} & operators and {"<", "<="} & operators):
                bad.append(f"{project['name']}: {text}")
    assert not bad, "sibling requirements need a floor and a ceiling: " + str(bad)


def test_owners_come_from_the_package_directories():
    assert owner("chainer") == "chainer-core"
    assert owner("chainer.primitive_ops.array") == "chainer-core"
    assert owner("chainer.functions.activation.relu") == "chainer-links"
    assert owner("chainer.links") == "chainer-links"
    assert owner("chainer.training.extensions") == "chainer-training"
    assert owner("chainer.iterators") == "chainer-training"
    assert owner("chainer.datasets.mnist") == "chainer-datasets"
    assert owner("chainer_cuda") == "chainer-cuda"
    assert owner("chainermn.links") == "chainer-mn"
    assert owner("numpy") is None


def test_the_scan_finds_nested_undeclared_and_private_imports(tmp_path):
    # A file of chainer-training (which does not declare chainer-links)
    # importing the catalogue inside a function, a private module of core
    # inside a method, and chainer-links under a guard it does not list in
    # an extra: all three are reported.
    # The file's module name (so its distribution) comes from its path
    # below a src/ folder.
    src = tmp_path / "src" / "chainer" / "training"
    src.mkdir(parents=True)
    probe = src / "probe.py"
    probe.write_text(
        "def f():\n"
        "    from chainer.functions.activation import relu\n"
        "class C:\n"
        "    def g(self):\n"
        "        import chainer._dispatch\n"
        "try:\n"
        "    import chainer.links\n"
        "except ImportError:\n"
        "    pass\n"
        "from . import trainer\n"
        "from .. import variable\n"
    )
    problems, _ = crossing_problems([probe])
    text = "\n".join(problems)
    assert ":2: chainer.functions.activation.relu: chainer-training does not" in text
    assert ":5: chainer._dispatch: private to chainer-core" in text
    assert (
        ":7: chainer.links: chainer-training does not declare chainer-links in an extra"
        in text
    )
    # Relative imports resolve: training's own module and core's public one.
    assert "trainer" not in text
    assert "variable" not in text
    assert len(problems) == 3


def test_a_guarded_import_of_a_dependent_is_optional(tmp_path):
    # chainer-core cannot declare chainer-links (which depends on it); a
    # guarded import of it is the optional path, an unguarded one is not.
    src = tmp_path / "src" / "chainer" / "testing"
    src.mkdir(parents=True)
    probe = src / "probe.py"
    probe.write_text(
        "def f():\n"
        "    try:\n"
        "        from chainer import functions\n"
        "    except ImportError:\n"
        "        return None\n"
        "    from chainer import links\n"
    )
    problems, _ = crossing_problems([probe])
    assert len(problems) == 1
    assert (
        ":6: chainer.links: chainer-core does not declare chainer-links"
        in (problems[0])
    )


def test_core_imports_no_other_distribution_at_module_level():
    bad = []
    for path in _sources("chainer-core"):
        tree = ast.parse(path.read_text())
        for name in _imports(tree, top_level_only=True):
            target = owner(name)
            if target is not None and target != "chainer-core":
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
