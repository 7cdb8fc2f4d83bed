"""Chainer 7.8.1's public names and signatures exist in core's namespaces and,
when chainer-training is installed, in the training namespaces.

The reference is ``chainer7-public-api.tsv`` beside this file (checked in; see
``scripts/api_list.py`` for its format). Without it these tests fail: the list
is part of the repository.
"""

import importlib
import importlib.util
import inspect
import pathlib
import re

import pytest

API_FILE = pathlib.Path(__file__).with_name("chainer7-public-api.tsv")

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


def _read_api_list():
    """``(namespace, name, kind, signature, members)`` of every listed name."""
    if not API_FILE.is_file():
        raise FileNotFoundError(
            f"the public API list {API_FILE} is missing: it is part of the "
            "repository (scripts/api_list.py rebuilds it)"
        )
    entries = []
    for line in API_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            fields = ["" if f == "-" else f for f in line.split("\t")]
            if len(fields) != 5:
                raise ValueError(f"{API_FILE}: malformed line {line!r}")
            ns, name, kind, sig, members = fields
            entries.append(
                (ns, name, kind, sig, members.split(", ") if members else [])
            )
    return entries


def _parse():
    sections = {}
    for ns, name, kind, sig, members in _read_api_list():
        sections.setdefault(ns, []).append((name, kind, sig, members))
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
    sections = _parse()
    out = []
    namespaces = list(CORE_NAMESPACES)
    if importlib.util.find_spec("chainer.training") is not None:
        namespaces += TRAINING_NAMESPACES
    if importlib.util.find_spec("chainer.datasets") is not None:
        namespaces += DATASETS_NAMESPACES
    for ns in namespaces:
        for name, kind, sig, members in sections.get(ns, []):
            if name in IGNORED or (ns, name) in OWNED_ELSEWHERE | NOT_TARGETS:
                continue
            out.append(pytest.param(ns, name, kind, sig, members, id=f"{ns}.{name}"))
    return out


@pytest.mark.parametrize(("ns", "name", "kind", "sig_text", "members"), _entries())
def test_name_exists_with_signature(ns, name, kind, sig_text, members):
    module = importlib.import_module(ns)
    assert hasattr(module, name), f"{ns}.{name} is missing"
    obj = getattr(module, name)
    if kind in ("class", "function") and (ns, name) not in SIGNATURE_EXEMPT:
        expected = _split_params(sig_text)
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
                assert actual == expected, f"{ns}.{name}{sig} != {sig_text}"
    missing = [m for m in members if not hasattr(obj, m)]
    assert not missing, f"{ns}.{name} lacks members {missing}"
