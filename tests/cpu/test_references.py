"""The chainer-cpu names that the benchmarks and the docs give still exist.

The NumPy fast paths moved from chainer-core to chainer-cpu (issue 23);
``benchmarks/ab_step.py`` sets module attributes by ``module:attr`` name and
``benchmarks/loaded.py`` imports the BLAS helpers, so a stale name there
breaks a measurement only when someone runs it. These checks import what
the files name.
"""

import ast
import importlib
import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Text that names chainer-cpu's modules, or chainer-core's CPU hook.
DOCUMENTS = (
    "benchmarks/README.md",
    "benchmarks/ab_step.py",
    "benchmarks/loaded.py",
    "docs/threads.md",
    "docs/plugin_hooks.md",
    "packages/chainer-core/src/chainer/_hookspecs.py",
    "packages/chainer-cuda/src/chainer_cuda/_kernels/convolution.py",
)
# Python files whose chainer imports must resolve.
SCRIPTS = tuple(
    sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "benchmarks").rglob("*.py")
        if "torch" not in p.name
    )
)

_PREFIX = r"(?:chainer_cpu|chainer\.utils)"
# 'pkg.mod:attr' (ab_step.py's settings, kernel-table keys).
_ATTRIBUTE = re.compile(rf"\b({_PREFIX}(?:\.\w+)*):(\w+)")
# `pkg.mod.name` in Markdown or ``pkg.mod.name`` in reST.
_DOTTED = re.compile(rf"`({_PREFIX}(?:\.\w+)+)")


def _resolve(dotted):
    """Imports the longest module prefix of ``dotted``, then its attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            obj = importlib.import_module(name)
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            return obj
    raise ModuleNotFoundError(dotted)


def _names(text):
    for match in _ATTRIBUTE.finditer(text):
        yield f"{match.group(1)}.{match.group(2)}"
    for match in _DOTTED.finditer(text):
        yield match.group(1)


@pytest.mark.parametrize("document", DOCUMENTS)
def test_named_modules_and_attributes_exist(document):
    text = (ROOT / document).read_text()
    missing = []
    for name in sorted(set(_names(text))):
        try:
            _resolve(name)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{name} ({type(exc).__name__}: {exc})")
    assert not missing, f"{document} names what does not exist: {missing}"


def test_the_attribute_pattern_finds_the_ab_step_example():
    # The check above must see the names it is about.
    text = (ROOT / "benchmarks/ab_step.py").read_text()
    wanted = "chainer_cpu.functions.connection.convolution_nd._TRANSPOSE_BYTES"
    assert wanted in set(_names(text))
    with pytest.raises(AttributeError):
        _resolve("chainer.utils.conv._TRANSPOSE_BYTES")


def _chainer_imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


@pytest.mark.parametrize("script", SCRIPTS)
def test_benchmark_imports_resolve(script):
    missing = []
    for lineno, name in _chainer_imports(ROOT / script):
        if not re.match(rf"{_PREFIX}\b", name):
            continue
        try:
            _resolve(name)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{script}:{lineno}: {name} ({exc})")
    assert not missing, "imports of names that moved or went away:\n" + "\n".join(
        missing
    )
