"""chainer-cuda reaches other distributions through documented names only.

Its kernel overrides work on catalogue nodes and core's update rules: they may
read and set what those classes document (``node.patches``, ``node.layout``,
``rule.alpha_t``...), never their private state, and import no ``_`` module
of another distribution. The sources are parsed, not imported (the kernel
modules need CuPy).
"""

import ast
import pathlib

import pytest

import chainer_cuda

SRC = pathlib.Path(chainer_cuda.__file__).parent
OWN = "chainer_cuda"


def _sources():
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _foreign_private_imports(tree):
    """``(line, what)`` of imports of another distribution's ``_`` names."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] != OWN and any(map(_private, parts)):
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] == OWN:
                continue
            names = [a.name for a in node.names]
            if any(map(_private, parts)) or any(map(_private, names)):
                found.append(
                    (node.lineno, f"from {node.module} import {', '.join(names)}")
                )
    return found


def _own_module_names(tree):
    """Names bound to chainer_cuda's own modules by the imports of a file."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == OWN:
                    names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and _is_own(node.module):
            names.update(a.asname or a.name for a in node.names)
    return names


def _is_own(module) -> bool:
    return module is not None and module.split(".")[0] == OWN


def _foreign_private_attributes(tree):
    """``(line, what)`` of ``x._name`` where ``x`` is not chainer_cuda's own.

    Own are the modules chainer_cuda imports from itself, and ``self`` or
    ``cls`` inside the classes it defines.
    """
    own_modules = _own_module_names(tree)
    found = []

    def visit(node, in_own_class):
        if isinstance(node, ast.ClassDef):
            in_own_class = True
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            allowed = isinstance(base, ast.Name) and (
                base.id in own_modules or (in_own_class and base.id in ("self", "cls"))
            )
            if not allowed:
                found.append((node.lineno, ast.unparse(node)))
        for child in ast.iter_child_nodes(node):
            visit(child, in_own_class)

    visit(tree, False)
    return found


def _report(check):
    problems = []
    for path in _sources():
        tree = ast.parse(path.read_text(), str(path))
        for line, what in check(tree):
            problems.append(f"{path.relative_to(SRC.parent)}:{line}: {what}")
    return problems


def test_sources_are_found():
    names = {p.name for p in _sources()}
    assert {"legacy.py", "_device.py", "convolution.py", "softmax.py"} <= names


def test_no_private_module_of_another_distribution_is_imported():
    assert _report(_foreign_private_imports) == []


def test_no_private_attribute_of_a_catalogue_object_is_used():
    assert _report(_foreign_private_attributes) == []


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("def k(node, xs):\n    node._cols = None\n", "node._cols"),
        ("def k(node, xs):\n    return node._func._labels\n", "node._func._labels"),
        ("def k(rule, p):\n    return rule._bounds(rule.hyperparam)\n", "rule._bounds"),
        (
            "from chainer.optimizers import adam\nx = adam._alpha_t(1, 2, 3, 4)\n",
            "adam._alpha_t",
        ),
    ],
)
def test_the_attribute_check_finds_private_reads(code, problem):
    found = _foreign_private_attributes(ast.parse(code))
    assert any(problem in what for _, what in found), found


@pytest.mark.parametrize(
    "code",
    [
        "from chainer.functions.normalization import _moments\n",
        "from chainer.optimizers import _util\n",
        "import chainer.backends._dummy_device\n",
    ],
)
def test_the_import_check_finds_private_modules(code):
    assert _foreign_private_imports(ast.parse(code)) != []


def test_own_modules_and_classes_may_use_private_names():
    code = (
        "import chainer_cuda\nfrom chainer_cuda._kernels import _compiled\n"
        "x = chainer_cuda._probe()\ny = _compiled._cache\n"
        "class D:\n    def f(self):\n        return self._x\n"
    )
    tree = ast.parse(code)
    assert _foreign_private_attributes(tree) == []
    assert _foreign_private_imports(tree) == []
