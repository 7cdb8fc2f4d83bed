"""Importing a part of Chainer whose distribution is missing names the fix.

Each test runs in a subprocess, hides the distributions under test from the
import system, and then imports the way user scripts do.
"""

import os
import subprocess
import sys
import textwrap

# Hides the module: chainer subpackages by trimming ``chainer.__path__`` to
# the core portion, top-level packages by dropping their (editable) source
# folder from ``sys.path``. Prints whether the module could be hidden.
_PRELUDE = """
import importlib
import importlib.util
import os
import sys

import chainer
from chainer import _namespace

_namespace.install()


from importlib import metadata

_hidden_distributions = set()
_real_version = metadata.version


def _version(distribution):
    if distribution in _hidden_distributions:
        raise metadata.PackageNotFoundError(distribution)
    return _real_version(distribution)


metadata.version = _version


def hide(name):
    _hidden_distributions.add(_namespace._PROVIDERS[name])
    if name.startswith("chainer."):
        chainer.__path__[:] = [os.path.dirname(chainer.__file__)]
        return True
    spec = importlib.util.find_spec(name)
    if spec is None:
        return True
    folder = os.path.dirname(os.path.dirname(spec.origin))
    if "site-packages" in folder:
        return False
    sys.path[:] = [p for p in sys.path if os.path.abspath(p) != folder]
    importlib.invalidate_caches()
    return importlib.util.find_spec(name) is None
"""


def _run(body, prelude=_PRELUDE):
    env = dict(os.environ)
    result = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(body)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


_PROVIDERS = {
    "chainer.functions": "chainer-links",
    "chainer.links": "chainer-links",
    "chainer.training": "chainer-training",
    "chainer.iterators": "chainer-training",
    "chainer.datasets": "chainer-datasets",
    "chainer_cuda": "chainer-cuda",
    "chainermn": "chainer-mn",
}


def test_missing_distribution_is_named():
    # One subprocess for all modules keeps this file fast.
    lines = _run(
        f"""
        for module in {list(_PROVIDERS)!r}:
            if hide(module):
                try:
                    importlib.import_module(module)
                except ModuleNotFoundError as exc:
                    print(module, exc.name, "|", exc)
            else:
                importlib.import_module(module)
                print(module, "installed")
        """
    )
    assert len(lines) == len(_PROVIDERS)
    for line, (module, distribution) in zip(lines, _PROVIDERS.items(), strict=True):
        if line == f"{module} installed":
            continue
        head, message = line.split(" | ")
        assert head == f"{module} {module}"
        assert f"No module named {module!r}" in message
        assert f"provided by the distribution {distribution!r}" in message
        assert f"pip install {distribution}" in message
        # What works before the release is on the package index.
        assert f"pip install -e packages/{distribution}" in message


def test_user_import_forms_all_get_the_message():
    lines = _run(
        """
        hide("chainer.functions")
        hide("chainer.training")
        for statement in [
            "import chainer.functions as F",
            "from chainer import functions",
            "from chainer import functions as F",
            "import chainer.functions.activation.relu",
            "from chainer.training import extensions",
            "chainer.training",
        ]:
            try:
                exec(statement)
            except (ModuleNotFoundError, AttributeError) as exc:
                # Attribute access raises AttributeError so hasattr() works.
                print("pip install" in str(exc))
        print(hasattr(chainer, "training"))
        """
    )
    assert lines == ["True"] * 6 + ["False"]


def test_find_spec_probes_still_get_none():
    lines = _run(
        """
        hide("chainer.links")
        print(importlib.util.find_spec("chainer.links"))
        import chainer.backends.cuda  # probes for chainer_cuda with find_spec
        print(chainer.backends.cuda.available)
        """
    )
    assert lines == ["None", "False"]


def test_installed_portion_is_not_affected(tmp_path):
    portion = tmp_path / "chainer" / "links"
    portion.mkdir(parents=True)
    (portion / "__init__.py").write_text("VALUE = 42\n")
    lines = _run(
        f"""
        hide("chainer.links")
        chainer.__path__.append({str(tmp_path / "chainer")!r})
        import chainer.links
        print(chainer.links.VALUE)
        from chainer import links as L
        print(L is chainer.links)
        """
    )
    assert lines == ["42", "True"]


def test_unrelated_missing_module_keeps_the_usual_error():
    lines = _run(
        """
        try:
            import chainer.no_such_part
        except ModuleNotFoundError as exc:
            print(exc)
        """
    )
    assert lines == ["No module named 'chainer.no_such_part'"]


def test_later_finder_gets_its_turn():
    lines = _run(
        """
        import importlib.machinery
        import types

        class Loader:
            def create_module(self, spec):
                return None

            def exec_module(self, module):
                module.FROM_HOOK = True

        class Finder:
            def find_spec(self, fullname, path=None, target=None):
                if fullname == "chainermn":
                    return importlib.machinery.ModuleSpec(fullname, Loader())
                return None

        hide("chainermn")
        sys.meta_path.append(Finder())
        import chainermn
        print(chainermn.FROM_HOOK)
        """
    )
    assert lines == ["True"]


def test_import_chainer_installs_the_finder_once():
    lines = _run(
        """
        import sys
        import chainer
        from chainer import _namespace

        _namespace.install()
        finders = [f for f in sys.meta_path
                   if type(f).__module__ == "chainer._namespace"]
        print(len(finders), sys.meta_path[-1] is finders[0])
        """,
        prelude="",
    )
    assert lines == ["1 True"]


def test_installed_distribution_without_the_module_says_upgrade():
    lines = _run(
        """
        chainer.__path__[:] = [os.path.dirname(chainer.__file__)]
        metadata.version = lambda name: "0.0.1"
        try:
            import chainer.functions
        except ModuleNotFoundError as exc:
            print("installed chainer-links 0.0.1 does not provide it" in str(exc))
            print("pip install --upgrade chainer-links" in str(exc))
        """
    )
    assert lines == ["True", "True"]
