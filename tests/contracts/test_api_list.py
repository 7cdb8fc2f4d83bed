"""The public API list is part of the repository, and its readers fail without it.

``chainer7-public-api.tsv`` beside this file is the list of Chainer 7.8.1's
public names and signatures the contract tests check (format and generator:
``scripts/api_list.py``).
"""

import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
API_FILE = HERE / "chainer7-public-api.tsv"
SCRIPT = ROOT / "scripts" / "api_list.py"

# The namespaces the contract tests read from the list.
NAMESPACES = {
    "chainer",
    "chainer.backend",
    "chainer.backends.cuda",
    "chainer.dataset",
    "chainer.datasets",
    "chainer.functions",
    "chainer.initializers",
    "chainer.iterators",
    "chainer.links",
    "chainer.optimizers",
    "chainer.serializers",
    "chainer.testing",
    "chainer.training",
    "chainer.training.extensions",
    "chainer.training.triggers",
    "chainer.training.updaters",
}


def _load_script():
    spec = importlib.util.spec_from_file_location("_api_list_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows():
    return [
        line.split("\t")
        for line in API_FILE.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]


def test_list_is_checked_in_beside_the_tests():
    assert API_FILE.is_file(), f"{API_FILE} is missing"
    rows = _rows()
    assert len(rows) > 600
    assert all(len(row) == 5 for row in rows)
    assert not NAMESPACES - {row[0] for row in rows}


def test_list_is_sorted_unique_and_has_no_trailing_blanks():
    rows = _rows()
    keys = [(row[0], row[1]) for row in rows]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)
    for line in API_FILE.read_text(encoding="utf-8").splitlines():
        assert line == line.rstrip(), f"trailing whitespace in {line!r}"


def test_list_has_the_signatures_of_well_known_names():
    rows = {(row[0], row[1]): row for row in _rows()}
    _, _, kind, signature, members = rows[("chainer.functions", "relu")]
    assert kind == "function"
    assert signature == "(x)"
    assert members == "-"
    _, _, kind, signature, members = rows[("chainer", "Link")]
    assert kind == "class"
    assert signature.startswith("(**params")
    assert "add_param" in members.split(", ")


def test_script_reads_what_it_writes(tmp_path):
    script = _load_script()
    markdown = (
        "# title\n\nprose\n\n## chainer.zeta\n"
        "b [function](x, y=1)\na [class](n) -> None  members: f, g\n\n"
        "## chainer.alpha\nflag [bool]\n"
    )
    entries = script.parse_markdown(markdown)
    path = tmp_path / "list.tsv"
    script.write_list(entries, path)
    text = path.read_text()
    assert "\tflag\tbool\t-\t-\n" in text
    assert script.read_list(path) == [
        ("chainer.alpha", "flag", "bool", "", []),
        ("chainer.zeta", "a", "class", "(n) -> None", ["f", "g"]),
        ("chainer.zeta", "b", "function", "(x, y=1)", []),
    ]
    assert not [p for p in tmp_path.iterdir() if p.name != "list.tsv"]


def test_script_reads_the_checked_in_list():
    entries = _load_script().read_list()
    assert len(entries) == len(_rows())


@pytest.mark.parametrize(
    ("markdown", "message"),
    [
        ("prose only\n", "no 'name [kind](signature)' entries"),
        ("relu [function](x)\n", "before any '## namespace' heading"),
        ("## chainer\nx [bool]\nx [bool]\n", "chainer.x is listed twice"),
    ],
)
def test_script_rejects_bad_markdown(markdown, message):
    script = _load_script()
    with pytest.raises(ValueError, match=re.escape(message)):
        script.format_list(script.parse_markdown(markdown))


def test_script_names_a_missing_or_malformed_list(tmp_path):
    script = _load_script()
    with pytest.raises(FileNotFoundError, match="part of the repository"):
        script.read_list(tmp_path / "absent.tsv")
    bad = tmp_path / "bad.tsv"
    bad.write_text("chainer\trelu\tfunction\n")
    with pytest.raises(ValueError, match="expected 5 tab-separated fields, got 3"):
        script.read_list(bad)


def test_catalogue_generator_reads_the_list(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location(
        "_gen_catalogue_init", SCRIPT.parent / "gen_catalogue_init.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    functions = module._wanted("functions", "function")
    links = module._wanted("links", "class")
    assert {"relu", "softmax_cross_entropy"} <= functions
    assert {"Linear", "Classifier"} <= links
    assert "shared" not in (SCRIPT.parent / "gen_catalogue_init.py").read_text()


@pytest.mark.parametrize(
    ("test_file", "needs"),
    [
        ("test_public_api.py", None),
        ("test_functions_catalogue.py", "chainer.functions"),
        ("test_links_catalogue.py", "chainer.links"),
    ],
)
def test_contract_fails_not_skips_without_the_list(tmp_path, test_file, needs):
    if needs and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{needs} is not installed")
    shutil.copy(HERE / test_file, tmp_path / test_file)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "chainer7-public-api.tsv is missing" in output
    assert "skipped" not in output
