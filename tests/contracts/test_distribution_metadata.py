"""The seven distributions are releasable: metadata, license, versions, hints.

Read from ``packages/*/pyproject.toml`` and the sources, so these checks hold
whichever distributions are installed.
"""

import ast
import pathlib
import re
import tomllib
from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import chainer
from chainer.utils import install_hint

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "packages"
NAMES = (
    "chainer-core",
    "chainer-links",
    "chainer-training",
    "chainer-datasets",
    "chainer-cpu",
    "chainer-cuda",
    "chainer-mn",
)
URL_KEYS = {"Homepage", "Documentation", "Source", "Issues"}
REQUIRED_CLASSIFIERS = {
    "Intended Audience :: Developers",
    "Programming Language :: Python :: 3.11",
    "Programming Language :: Python :: 3.12",
    "Programming Language :: Python :: 3.13",
    "Topic :: Scientific/Engineering :: Artificial Intelligence",
}
# Modules that state their distribution's version, besides chainer-core's
# chainer/_version.py.
VERSION_MODULES = {
    "chainer-core": "src/chainer/_version.py",
    "chainer-cpu": "src/chainer_cpu/__init__.py",
    "chainer-cuda": "src/chainer_cuda/__init__.py",
    "chainer-mn": "src/chainermn/__init__.py",
}


def _projects():
    projects = {}
    for path in sorted(PACKAGES.glob("*/pyproject.toml")):
        with path.open("rb") as f:
            projects[path.parent.name] = tomllib.load(f)
    return projects


PROJECTS = _projects()


def _requirements(project):
    table = project["project"]
    yield from table.get("dependencies", [])
    for requirements in table.get("optional-dependencies", {}).values():
        yield from requirements


def test_the_seven_distributions_are_there():
    assert sorted(PROJECTS) == sorted(NAMES)
    for directory, project in PROJECTS.items():
        assert project["project"]["name"] == directory


@pytest.mark.parametrize("directory", NAMES)
def test_release_metadata(directory):
    project = PROJECTS[directory]["project"]
    for field in ("description", "readme", "requires-python", "keywords"):
        assert project.get(field), f"{directory}: {field} is missing"
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert project["authors"]
    assert all(author.get("name") for author in project["authors"])
    classifiers = project["classifiers"]
    assert classifiers == sorted(set(classifiers))
    assert set(classifiers) >= REQUIRED_CLASSIFIERS
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    # With an SPDX license expression (PEP 639) the package index refuses
    # license classifiers.
    assert not [c for c in classifiers if c.startswith("License ::")]
    urls = project["urls"]
    assert set(urls) == URL_KEYS
    home = PROJECTS["chainer-core"]["project"]["urls"]["Homepage"]
    assert urls["Homepage"] == home
    assert urls["Issues"] == f"{home}/issues"
    assert urls["Source"] == f"{home}/tree/main/packages/{directory}"
    assert urls["Documentation"] == f"{home}/blob/main/packages/{directory}/README.md"
    assert (PACKAGES / directory / project["readme"]).is_file()


@pytest.mark.parametrize("directory", NAMES)
def test_build_backend_puts_the_license_in(directory):
    # license-files is read by hatchling from 1.27 on (PEP 639).
    build = PROJECTS[directory]["build-system"]
    assert build["build-backend"] == "hatchling.build"
    (hatchling,) = [Requirement(r) for r in build["requires"]]
    assert hatchling.name == "hatchling"
    assert not hatchling.specifier.contains("1.26")
    assert hatchling.specifier.contains("1.27")


def test_license_file_in_the_repository_and_every_distribution():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
    for directory in NAMES:
        path = PACKAGES / directory / "LICENSE"
        assert path.is_file(), f"{path} is missing"
        assert path.read_text() == text, f"{path} differs from the root LICENSE"


def test_versions_continue_chainer_7():
    versions = {d: Version(p["project"]["version"]) for d, p in PROJECTS.items()}
    for directory, version in versions.items():
        # Scripts and libraries gate on Chainer 7 (``>= 7``, major == 7).
        assert version >= Version("7.9.0"), directory
        assert version.major == 7, directory
    assert chainer.__version__ == PROJECTS["chainer-core"]["project"]["version"]
    assert Version(chainer.__version__) >= Version("7.0.0")
    assert chainer.__version__.split(".")[0] == "7"


def test_installed_chainer_core_is_this_version():
    assert metadata.version("chainer-core") == chainer.__version__, (
        "the installed chainer-core metadata is stale; reinstall it with "
        "pip install -e packages/chainer-core"
    )


@pytest.mark.parametrize("directory", sorted(VERSION_MODULES))
def test_version_attributes_match_pyproject(directory):
    source = (PACKAGES / directory / VERSION_MODULES[directory]).read_text()
    values = [
        node.value.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
    ]
    assert values == [PROJECTS[directory]["project"]["version"]]


@pytest.mark.parametrize("directory", NAMES)
def test_sibling_ranges_admit_the_current_versions(directory):
    versions = {d: Version(p["project"]["version"]) for d, p in PROJECTS.items()}
    for text in _requirements(PROJECTS[directory]):
        requirement = Requirement(text)
        sibling = versions.get(requirement.name)
        if sibling is None:
            continue
        spec = requirement.specifier
        assert spec.contains(sibling), f"{directory}: {text} excludes {sibling}"
        # A floor and a ceiling at the next major version, not a lockstep pin.
        assert not spec.contains(Version(f"{sibling.major + 1}.0.0")), text
        assert not spec.contains(Version("0.1.0")), text
        assert not any(s.operator in ("==", "===") for s in spec), text


def test_install_hint_knows_every_distribution_and_extra():
    assert {
        directory: tuple(project["project"].get("optional-dependencies", {}))
        for directory, project in PROJECTS.items()
    } == install_hint.DISTRIBUTIONS


_HINT = re.compile(
    r"pip install\s+(?:--upgrade\s+|-U\s+|-e\s+)?['\"]?(?:packages/)?"
    r"chainer-(?:core|links|training|datasets|cpu|cuda|mn)\b"
)


def _docstring_nodes(tree):
    for node in ast.walk(tree):
        if isinstance(
            node,
            ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef,
        ):
            body = node.body
            if body and isinstance(body[0], ast.Expr):
                yield body[0].value


def test_install_commands_come_from_install_hint():
    # A message that names a command for one of our distributions must get it
    # from chainer.utils.install_hint, so that it says what works before the
    # release is on the package index (docstrings are documentation, not
    # messages, and may name the published command).
    offenders = []
    for path in sorted(PACKAGES.glob("*/src/**/*.py")):
        if path.name == "install_hint.py":
            continue
        tree = ast.parse(path.read_text())
        docstrings = {id(node) for node in _docstring_nodes(tree)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and _HINT.search(node.value)
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, "hard-coded install commands:\n" + "\n".join(offenders)


def _sibling_dependencies(directory):
    return {
        Requirement(text).name
        for text in PROJECTS[directory]["project"]["dependencies"]
        if Requirement(text).name in PROJECTS
    }


def test_chainer_cpu_comes_with_the_catalogue_and_needs_core_only():
    # chainer-cpu's kernels are named by "module:attr" strings and import
    # nothing of chainer-links, so it sits right above chainer-core; the
    # catalogue requires it, so that `pip install chainer-links` brings the
    # NumPy fast paths.
    assert _sibling_dependencies("chainer-cpu") == {"chainer-core"}
    assert "chainer-cpu" in _sibling_dependencies("chainer-links")
    sources = PACKAGES / "chainer-cpu" / "src"
    for path in sorted(sources.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            for name in names:
                assert not name.startswith(
                    ("chainer.functions", "chainer.links", "chainer.distributions")
                ), f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"
