"""The workspace tooling is consistent: hatch envs, pre-commit, CI and releases.

``hatch run test:run`` (the README's test command) needs every distribution
with the extras its tests use; the pre-commit ruff must be the ruff the project
lints with; CI runs the suite through hatch and smoke-tests the release wheels.
"""

import importlib.util
import io
import pathlib
import re
import tarfile
import tomllib
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HATCH = tomllib.loads((ROOT / "hatch.toml").read_text())
CI = (ROOT / ".ci" / "run").read_text()
PACKAGES = sorted(p.parent for p in (ROOT / "packages").glob("*/pyproject.toml"))


def _version(text):
    return tuple(int(part) for part in text.split("."))


def _lint_ruff_pin():
    pins = [d for d in HATCH["envs"]["lint"]["dependencies"] if d.startswith("ruff")]
    assert len(pins) == 1, f"hatch.toml's lint env pins ruff once: {pins}"
    match = re.fullmatch(r"ruff==(\d+\.\d+\.\d+)", pins[0])
    assert match, f"hatch.toml's lint env must pin an exact ruff: {pins[0]!r}"
    return match.group(1)


def test_pre_commit_ruff_is_the_pinned_ruff():
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    match = re.search(
        r"repo: https://github.com/astral-sh/ruff-pre-commit\s*\n\s*rev: v?(\S+)",
        config,
    )
    assert match, "no ruff-pre-commit repo in .pre-commit-config.yaml"
    assert match.group(1) == _lint_ruff_pin(), (
        f"pre-commit's ruff v{match.group(1)} differs from hatch.toml's "
        f"ruff=={_lint_ruff_pin()}"
    )


def test_pinned_ruff_knows_the_rules_of_the_config():
    # pyproject.toml's ignores name RUF043 and PT030: ruff 0.8.0 rejects the
    # configuration ("Unknown rule selector: RUF043"), so does 0.9.0 (PT030);
    # 0.9.10 is the oldest release checked to accept it.
    assert _version(_lint_ruff_pin()) >= (0, 9, 10)


@pytest.mark.parametrize("name", sorted(HATCH["envs"]))
def test_env_does_not_install_the_repository_root(name):
    env = HATCH["envs"][name]
    # The root pyproject.toml is tool configuration, not a distribution.
    assert env.get("skip-install") is True or env.get("detached") is True, (
        f"hatch env {name!r} would install the repository root"
    )


def _members(env):
    members = {}
    for member in HATCH["envs"][env].get("workspace", {}).get("members", []):
        if isinstance(member, str):
            member = {"path": member}
        for path in ROOT.glob(member["path"]):
            members[path.name] = set(member.get("features", []))
    return members


def test_test_env_has_every_distribution_with_its_extras():
    members = _members("test")
    for package in PACKAGES:
        project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
        extras = set(project.get("optional-dependencies", {}))
        # CuPy needs a GPU driver: CI's CUDA step installs it on its own.
        wanted = {e for e in extras if not e.startswith("cuda")}
        assert package.name in members, f"hatch env 'test' lacks {package.name}"
        assert members[package.name] == wanted, (
            f"hatch env 'test' installs {package.name} with extras "
            f"{sorted(members[package.name])}, its tests need {sorted(wanted)}"
        )


def test_test_env_installs_the_example_plugin_and_mypy():
    deps = HATCH["envs"]["test"]["dependencies"]
    assert any(d.startswith("chainer-plugin-example @ ") for d in deps)
    assert any(re.match(r"mypy\b", d) for d in deps)


def test_ci_runs_the_documented_commands():
    for command in (
        "run lint:check",
        "env create test",
        "run test:types",
        "run test:run",
        "run test:doctest",
    ):
        assert f'"$HATCH" {command}' in CI, f".ci/run does not run hatch {command}"
    # PYTEST_ADDOPTS would leak into the tests that run pytest in a subprocess.
    assert "PYTEST_ADDOPTS" not in CI
    # The suite runs once (through hatch), not a second time in another venv.
    assert not re.search(r"pytest[^\n]*-m \"not gpu\"[^\n]* tests$", CI, re.M)
    spec = re.search(r"HATCH_SPEC='hatch>=(\d+\.\d+)", CI)
    assert spec, ".ci/run installs hatch without a minimum version"
    assert _version(spec.group(1)) >= (1, 18)
    # hatch's environments live in .ci-venvs/ (ignored by git), not in $HOME.
    assert "VENVS=${CI_VENVS:-$PWD/.ci-venvs}" in CI
    assert 'HATCH_DATA_DIR="$VENVS/' in CI


def test_ci_builds_and_smoke_tests_the_release():
    assert '-m build -q --outdir "$DIST" "$pkg"' in CI
    assert '"$DIST"/*.whl numpy' in CI
    assert ".ci/smoke_wheels.py" in CI
    assert (ROOT / ".ci" / "smoke_wheels.py").is_file()


def _smoke_module():
    spec = importlib.util.spec_from_file_location(
        "_smoke_wheels", ROOT / ".ci" / "smoke_wheels.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_release(folder, *, wheel_license=True, sdist_license=True):
    for dist in _smoke_module().DISTRIBUTIONS:
        stem = dist.replace("-", "_")
        with zipfile.ZipFile(folder / f"{stem}-7.0.0-py3-none-any.whl", "w") as z:
            z.writestr(f"{stem}-7.0.0.dist-info/METADATA", "Name: x\n")
            if wheel_license:
                z.writestr(f"{stem}-7.0.0.dist-info/licenses/LICENSE", "MIT\n")
        with tarfile.open(folder / f"{stem}-7.0.0.tar.gz", "w:gz") as tar:
            files = ["PKG-INFO"] + (["LICENSE"] if sdist_license else [])
            for name in files:
                data = b"text\n"
                info = tarfile.TarInfo(f"{stem}-7.0.0/{name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))


def test_smoke_accepts_archives_with_licenses(tmp_path, capsys):
    _fake_release(tmp_path)
    _smoke_module().check_archives(tmp_path)
    assert "chainer-mn" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"wheel_license": False}, "has no LICENSE file in its .dist-info"),
        ({"sdist_license": False}, "has no LICENSE file at its top"),
    ],
)
def test_smoke_rejects_archives_without_license(tmp_path, capsys, options, message):
    _fake_release(tmp_path, **options)
    with pytest.raises(SystemExit):
        _smoke_module().check_archives(tmp_path)
    assert message in capsys.readouterr().err


def test_smoke_rejects_a_missing_distribution(tmp_path, capsys):
    _fake_release(tmp_path)
    (tmp_path / "chainer_mn-7.0.0-py3-none-any.whl").unlink()
    with pytest.raises(SystemExit):
        _smoke_module().check_archives(tmp_path)
    assert "chainer-mn: expected one wheel and one sdist" in capsys.readouterr().err


def _sibling_closure(names):
    """The names with every sibling distribution they require, transitively."""
    required = {}
    for package in PACKAGES:
        project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
        required[package.name] = {
            re.match(r"[A-Za-z0-9_.-]+", text).group(0)
            for text in project.get("dependencies", [])
        } & {p.name for p in PACKAGES}
    closure, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in closure:
            closure.add(name)
            todo.extend(required[name])
    return closure


def _ci_local_installs():
    """``(command, distributions)`` for each pip install of ./packages/ paths."""
    joined = CI.replace("\\\n", " ")
    for line in joined.splitlines():
        if "pip install" not in line:
            continue
        names = set(re.findall(r"\./packages/([A-Za-z0-9_-]+)", line))
        if names:
            yield line.strip(), names


def test_ci_installs_the_local_siblings_of_what_it_installs():
    # Our distributions are not on the package index (a name there may be
    # someone else's): a step that installs one from its path must pass the
    # paths of every sibling it requires, e.g. chainer-links needs
    # ./packages/chainer-cpu next to it.
    installs = list(_ci_local_installs())
    assert installs, ".ci/run installs no distribution from ./packages/"
    for command, names in installs:
        missing = _sibling_closure(names) - names
        assert not missing, f".ci/run: {command!r} lacks ./packages/{sorted(missing)}"


@pytest.mark.parametrize("env", sorted(HATCH["envs"]))
def test_hatch_workspaces_hold_the_siblings_of_their_members(env):
    members = set(_members(env))
    missing = _sibling_closure(members) - members
    assert not missing, f"hatch env {env!r} lacks workspace members {sorted(missing)}"


def test_ci_arguments_do_not_replace_a_scripts_test_paths():
    # `{args:default}` is replaced whole by any argument: where .ci/run calls
    # a script with options only, the script must name its test paths
    # outside the placeholder, or the options turn it into a run of the
    # whole suite.
    for env_name, env in HATCH["envs"].items():
        for name, script in env.get("scripts", {}).items():
            commands = script if isinstance(script, list) else [script]
            defaults = [re.search(r"\{args:([^}]*)\}", c) for c in commands]
            if not any(d and "tests" in d.group(1) for d in defaults):
                continue
            for call in re.findall(rf'"\$HATCH" run {env_name}:{name}\b(.*)', CI):
                args = call.split()
                paths = [a for a in args if a.startswith("tests")]
                assert not args or paths, (
                    f".ci/run calls {env_name}:{name} with options only, which "
                    "replace the test paths of its {args:...} default"
                )
