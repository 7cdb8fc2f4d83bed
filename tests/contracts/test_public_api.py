"""Chainer 7.8.1's public names and signatures exist in core's namespaces and,
when chainer-training is installed, in the training namespaces.

The reference is ``../shared/api/chainer7-public-api.md`` (beside the checkout).
"""

import importlib
import importlib.util
import inspect
import pathlib
import re

import pytest

API_FILE = (
    pathlib.Path(__file__).resolve().parents[2].parent
    / "shared"
    / "api"
    / "chainer7-public-api.md"
)

# Namespaces owned by chainer-core.
CORE_NAMESPACES = [
    "chainer",
    "chainer.optimizers",
    "chainer.optimizer_hooks",
    "chainer.initializers",
    "chainer.serializers",
    "chainer.function_hooks",
    "chainer.link_hooks",
    "chainer.dataset",
    "chainer.backend",
    "chainer.backends.cuda",
    "chainer.reporter",
    "chainer.gradient_check",
    "chainer.testing",
    "chainer.utils.type_check",
    "chainer.computational_graph",
    "chainer.configuration",
    "chainer.variable",
    "chainer.link",
    "chainer.optimizer",
    "chainer.function_node",
    "chainer.function",
    "chainer.initializer",
    "chainer.serializer",
]

# Namespaces owned by chainer-training (checked when it is installed).
TRAINING_NAMESPACES = [
    "chainer.training",
    "chainer.training.extensions",
    "chainer.training.triggers",
    "chainer.training.updaters",
    "chainer.iterators",
]

# Namespaces owned by chainer-datasets (checked when it is installed).
DATASETS_NAMESPACES = ["chainer.datasets"]

# Names another distribution provides (reached lazily from core's namespace).
OWNED_ELSEWHERE = {
    ("chainer", "Distribution"),
    ("chainer", "cross_entropy"),
    ("chainer", "kl_divergence"),
    ("chainer", "register_kl"),
}
# NVIDIA DALI's iterator is not a target (DALI is a CUDA-only library).
NOT_TARGETS = {("chainer.iterators", "DaliIterator")}
# Python 2 compatibility artefacts of Chainer's modules, not API.
IGNORED = {"absolute_import"}
# ChainerX and iDeep are not targets: these names exist but only raise a clear
# error, so their constructor signatures are not compared.
SIGNATURE_EXEMPT = {
    ("chainer.backend", "ChainerxDevice"),
    ("chainer.backend", "Intel64Device"),
}


def _parse():
    sections = {}
    current = None
    for line in API_FILE.read_text().splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        elif current and line.strip():
            m = re.match(r"^(\w+) \[(\w+)\](.*)$", line)
            if m:
                sections[current].append(m.groups())
    return sections


def _split_params(sig):
    """Parameter names of a signature text such as ``(a, b=1, *args, c: int = 2)``."""
    if not sig.startswith("("):
        return None
    depth = 0
    end = None
    for i, ch in enumerate(sig):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                end = i
                break
    inner = sig[1:end]
    parts, depth, buf = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(buf)
            buf = ""
        else:
            buf += ch
    if buf.strip():
        parts.append(buf)
    names = []
    for p in parts:
        p = p.strip()
        if p in ("/", "*"):
            continue
        name = re.match(r"\**(\w+)", p)
        if name:
            names.append(p[: len(p) - len(p.lstrip("*"))] + name.group(1))
    return names


def _entries():
    if not API_FILE.exists():
        return []
    sections = _parse()
    out = []
    namespaces = list(CORE_NAMESPACES)
    if importlib.util.find_spec("chainer.training") is not None:
        namespaces += TRAINING_NAMESPACES
    if importlib.util.find_spec("chainer.datasets") is not None:
        namespaces += DATASETS_NAMESPACES
    for ns in namespaces:
        for name, kind, rest in sections.get(ns, []):
            if name in IGNORED or (ns, name) in OWNED_ELSEWHERE | NOT_TARGETS:
                continue
            out.append(pytest.param(ns, name, kind, rest, id=f"{ns}.{name}"))
    return out


pytestmark = pytest.mark.skipif(
    not API_FILE.exists(), reason=f"API reference not found at {API_FILE}"
)


@pytest.mark.parametrize(("ns", "name", "kind", "rest"), _entries())
def test_name_exists_with_signature(ns, name, kind, rest):
    module = importlib.import_module(ns)
    assert hasattr(module, name), f"{ns}.{name} is missing"
    obj = getattr(module, name)
    if kind in ("class", "function") and (ns, name) not in SIGNATURE_EXEMPT:
        expected = _split_params(rest.split("  members:")[0].strip())
        if expected is not None:
            target = obj
            try:
                sig = inspect.signature(target)
            except (TypeError, ValueError):
                sig = None
            if sig is not None:
                actual = []
                for p in sig.parameters.values():
                    if p.kind == p.KEYWORD_ONLY and p.name not in expected:
                        continue  # an added keyword-only option stays compatible
                    prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(
                        p.kind, ""
                    )
                    actual.append(prefix + p.name)
                if actual and actual[0] == "self":
                    actual = actual[1:]
                assert actual == expected, f"{ns}.{name}{sig} != {rest}"
    if "  members: " in rest:
        members = rest.split("  members: ")[1].split(", ")
        missing = [m for m in members if not hasattr(obj, m)]
        assert not missing, f"{ns}.{name} lacks members {missing}"
