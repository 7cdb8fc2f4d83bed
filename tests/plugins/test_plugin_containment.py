"""A broken third-party plugin is reported once and skipped; the rest works.

Each test builds a throwaway distribution (a ``*.dist-info`` folder with an
``entry_points.txt`` and the plugin module) on ``PYTHONPATH`` and runs a user
script in a subprocess with entry-point loading on, recording the
:class:`chainer.warnings.PluginWarning` warnings it gets.
"""

import json
import os
import subprocess
import sys
import textwrap
import types

import pytest

from chainer import plugins
from chainer import warnings as chainer_warnings

# Runs the body with every warning recorded, then prints the PluginWarnings
# and the body's ``RESULT`` as one JSON line.
_PRELUDE = """
import json
import warnings

from chainer import warnings as chainer_warnings

RESULT = {}
with warnings.catch_warnings(record=True) as _caught:
    warnings.simplefilter("always")
{body}
RESULT["warnings"] = [
    str(w.message)
    for w in _caught
    if issubclass(w.category, chainer_warnings.PluginWarning)
]
print(json.dumps(RESULT))
"""

# What a user does first: a Link, a function, a short training run.
_USER_WORK = """
import tempfile

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import datasets
from chainer import iterators
from chainer import optimizers
from chainer import training

model = L.Classifier(L.Linear(2, 2))
x = numpy.random.RandomState(0).rand(8, 2).astype(numpy.float32)
t = (x.sum(axis=1) > 1).astype(numpy.int32)
y = F.relu(chainer.Variable(x))
F.sum(y).backward()
optimizer = optimizers.SGD()
optimizer.setup(model)
iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4)
updater = training.updaters.StandardUpdater(iterator, optimizer)
with tempfile.TemporaryDirectory() as out:
    trainer = training.Trainer(updater, (2, "iteration"), out=out)
    trainer.extend(training.extensions.LogReport(trigger=(1, "iteration")))
    trainer.run()
RESULT["worked"] = trainer.updater.iteration == 2
"""


def _distribution(site, dist_name, version, entry_points, modules):
    info = site / f"{dist_name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n"
    )
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[chainer.plugins]\n{lines}")
    for module_name, source in modules.items():
        (site / f"{module_name}.py").write_text(textwrap.dedent(source))


def _run(site, body, **env_overrides):
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    env.pop("CHAINER_DISABLED_PLUGINS", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(site), *filter(None, [env.get("PYTHONPATH")])]
    )
    env.update(env_overrides)
    body = textwrap.indent(textwrap.dedent(body), "    ")
    result = subprocess.run(
        [sys.executable, "-c", _PRELUDE.replace("{body}", body)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _about(messages, plugin_name):
    return [m for m in messages if f"'{plugin_name}'" in m]


_RAISING_HOOK = """
from chainer import plugins

@plugins.hookimpl
def register_functions():
    raise RuntimeError("boom in the hook")
"""


def test_hook_that_raises_is_reported_once_and_skipped(tmp_path):
    _distribution(
        tmp_path,
        "bad-dist",
        "1.0",
        {"bad": "bad_plugin"},
        {"bad_plugin": _RAISING_HOOK},
    )
    out = _run(
        tmp_path,
        _USER_WORK
        + """
L.Linear(2, 2)  # a retry works too
from chainer import plugins
try:
    plugins.get_function("bad_op")
except KeyError as exc:
    RESULT["lookup"] = str(exc)
try:
    F.bad_op
except AttributeError as exc:
    RESULT["attribute"] = str(exc)
info = {i.name: i for i in plugins.list_plugins()}
RESULT["error"] = info["bad"].error
RESULT["dist"] = [info["bad"].distribution, info["bad"].version]
RESULT["core_error"] = info["core"].error
""",
    )
    assert out["worked"]
    (message,) = _about(out["warnings"], "bad")
    assert "distribution bad-dist 1.0" in message
    assert "register_functions()" in message
    assert "RuntimeError: boom in the hook" in message
    assert "plugin 'bad' (distribution bad-dist 1.0) failed to load" in out["lookup"]
    assert "it may provide this name" in out["lookup"]
    assert "'bad_op'" in out["attribute"]
    assert "plugin 'bad' (distribution bad-dist 1.0) failed" in out["attribute"]
    assert "boom in the hook" in out["error"]
    assert out["dist"] == ["bad-dist", "1.0"]
    assert out["core_error"] is None


def test_entry_point_that_cannot_be_imported_is_skipped(tmp_path):
    _distribution(
        tmp_path,
        "noimport-dist",
        "0.3",
        {"noimport": "noimport_plugin"},
        {"noimport_plugin": "import a_module_that_is_not_installed_xyz\n"},
    )
    out = _run(
        tmp_path,
        _USER_WORK
        + """
from chainer import plugins
RESULT["error"] = {i.name: i.error for i in plugins.list_plugins()}["noimport"]
""",
    )
    assert out["worked"]
    (message,) = _about(out["warnings"], "noimport")
    assert "distribution noimport-dist 0.3" in message
    assert "could not be loaded from 'noimport_plugin'" in message
    assert "a_module_that_is_not_installed_xyz" in out["error"]


def test_backend_that_cannot_be_imported_breaks_only_its_device(tmp_path):
    _distribution(
        tmp_path,
        "gone-backend",
        "2.0",
        {"gone": "gone_plugin"},
        {
            "gone_plugin": """
            from chainer import plugins

            @plugins.hookimpl
            def register_backends():
                return {"gone": "gone_backend_module_xyz:Device"}
            """
        },
    )
    out = _run(
        tmp_path,
        _USER_WORK
        + """
from chainer import backend

class Foreign:
    pass

RESULT["foreign"] = backend.get_array_module(Foreign()).__name__
try:
    chainer.get_device("@gone")
except ImportError as exc:
    RESULT["device"] = str(exc)
""",
    )
    assert out["worked"]
    assert out["foreign"] == "numpy"
    assert "'gone'" in out["device"]
    assert "gone_backend_module_xyz:Device" in out["device"]
    assert "distribution gone-backend 2.0" in out["device"]
    # Looking for the owner of an unknown type tried the backend once.
    (message,) = _about(out["warnings"], "gone")
    assert "'@gone' was skipped" in message


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            """
            from chainer import plugins

            @plugins.hookimpl
            def register_links():
                return ["NotADict"]
            """,
            "must return a dict",
        ),
        (
            """
            from chainer import plugins

            @plugins.hookimpl
            def register_linkz():
                return {}
            """,
            "did you mean 'register_links'",
        ),
        (
            """
            from chainer import plugins

            @plugins.hookimpl
            def register_links(config):
                return {}
            """,
            "config",
        ),
    ],
    ids=["junk-result", "unknown-hook", "bad-arguments"],
)
def test_plugin_with_a_bad_hook_is_skipped(tmp_path, source, expected):
    _distribution(
        tmp_path, "odd-dist", "0.1", {"odd": "odd_plugin"}, {"odd_plugin": source}
    )
    out = _run(
        tmp_path,
        _USER_WORK
        + """
from chainer import plugins
RESULT["error"] = {i.name: i.error for i in plugins.list_plugins()}["odd"]
""",
    )
    assert out["worked"]
    (message,) = _about(out["warnings"], "odd")
    assert "distribution odd-dist 0.1" in message
    assert expected in message
    assert expected in out["error"]


def test_first_party_name_wins_over_a_third_party_one(tmp_path):
    # "aaa" sorts before chainer-links: load order must not decide.
    _distribution(
        tmp_path,
        "aaa-dist",
        "1.0",
        {"aaa": "aaa_plugin"},
        {
            "aaa_plugin": """
            from chainer import plugins

            def relu(x):
                return "not relu"

            def aaa_op(x):
                return 2 * x

            @plugins.hookimpl
            def register_functions():
                return {"relu": relu, "aaa_op": aaa_op}
            """
        },
    )
    out = _run(
        tmp_path,
        """
        import chainer.functions as F
        from chainer import plugins
        RESULT["relu"] = plugins.get_function("relu") is F.relu
        RESULT["aaa_op"] = F.aaa_op(2)
        """,
    )
    assert out["relu"]
    assert out["aaa_op"] == 4
    (message,) = _about(out["warnings"], "aaa")
    assert "function 'relu' of plugin 'aaa' (distribution aaa-dist 1.0)" in message
    assert "plugin 'links'" in message
    assert "Chainer's own distributions win" in message


def test_two_third_party_plugins_with_one_name_keep_the_first(tmp_path):
    for dist_name, module in (("one-dist", "one_plugin"), ("two-dist", "two_plugin")):
        _distribution(
            tmp_path,
            dist_name,
            "1.0",
            {module.split("_")[0]: module},
            {
                module: f"""
                from chainer import plugins

                @plugins.hookimpl
                def register_functions():
                    return {{"shared_op": lambda x: {module!r}}}
                """
            },
        )
    out = _run(
        tmp_path,
        """
        from chainer import plugins
        RESULT["owner"] = plugins.get_function("shared_op")(0)
        """,
    )
    assert out["owner"] == "one_plugin"
    (message,) = [m for m in out["warnings"] if "shared_op" in m]
    assert "'two' (distribution two-dist 1.0) is ignored" in message
    assert "'one' (distribution one-dist 1.0)" in message


def test_disabled_plugins_are_not_imported(tmp_path):
    for dist_name, name in (("skip-me", "skipme"), ("also-skipped", "alsoskip")):
        _distribution(
            tmp_path,
            dist_name,
            "1.0",
            {name: f"{name}_plugin"},
            {f"{name}_plugin": _RAISING_HOOK},
        )
    out = _run(
        tmp_path,
        _USER_WORK
        + """
import sys
from chainer import plugins
names = [i.name for i in plugins.list_plugins()]
RESULT["listed"] = "skipme" in names or "alsoskip" in names
RESULT["imported"] = sorted({"skipme_plugin", "alsoskip_plugin"} & set(sys.modules))
RESULT["core"] = names[0]
""",
        # By entry-point name and by distribution name; core is refused.
        CHAINER_DISABLED_PLUGINS="skipme, also_skipped,core",
    )
    assert out["worked"]
    assert not out["listed"]
    assert out["imported"] == []
    assert out["core"] == "core"
    (message,) = [m for m in out["warnings"] if "CHAINER_DISABLED_PLUGINS" in m]
    assert "core plugin (the NumPy backend) cannot be disabled" in message


def test_hook_function_without_marker_is_reported(tmp_path):
    _distribution(
        tmp_path,
        "unmarked-dist",
        "1.0",
        {"unmarked": "unmarked_plugin"},
        {
            "unmarked_plugin": """
            def register_functions():
                return {"never_registered": len}
            """
        },
    )
    out = _run(tmp_path, "from chainer import plugins\nplugins.ensure_loaded()\n")
    (message,) = _about(out["warnings"], "unmarked")
    assert "register_functions() without @chainer.plugins.hookimpl" in message
    assert "distribution unmarked-dist 1.0" in message


def test_name_of_a_submodule_is_reported(tmp_path):
    _distribution(
        tmp_path,
        "shadow-dist",
        "1.0",
        {"shadow": "shadow_plugin"},
        {
            "shadow_plugin": """
            from chainer import plugins

            @plugins.hookimpl
            def register_functions():
                return {"activation": len}
            """
        },
    )
    out = _run(tmp_path, "from chainer import plugins\nplugins.ensure_loaded()\n")
    (message,) = _about(out["warnings"], "shadow")
    assert "submodule chainer.functions.activation" in message


# --------------------------------------------------------------------------
# In-process: explicit registration (autoloading is off in the test session)
# --------------------------------------------------------------------------


def _plugin(**hooks):
    module = types.ModuleType(f"containment_plugin_{len(hooks)}_{id(hooks)}")
    for hook_name, result in hooks.items():

        def impl(result=result):
            return result

        setattr(module, hook_name, plugins.hookimpl(impl))
    return module


def test_explicit_register_of_a_raising_hook_still_raises():
    module = types.ModuleType("explicit_raiser")

    @plugins.hookimpl
    def register_links():
        raise RuntimeError("asked for it")

    module.register_links = register_links
    with pytest.raises(RuntimeError, match="asked for it"):
        plugins.register(module)
    assert "explicit_raiser" not in {i.name for i in plugins.list_plugins()}


def test_extension_shadowing_a_builtin_is_reported():
    from chainer.training import extensions

    plugin = _plugin(register_extensions={"LogReport": dict})
    assert "LogReport" in extensions.__all__
    with pytest.warns(chainer_warnings.PluginWarning, match="shadows the built-in"):
        name = plugins.register(plugin, name="shadowing_ext")
    try:
        assert extensions.LogReport is not dict
    finally:
        plugins.unregister(name)


def test_plugin_info_has_an_error_field_defaulting_to_none():
    assert plugins.PluginInfo._fields[-1] == "error"
    assert all(info.error is None for info in plugins.list_plugins())
    assert issubclass(chainer_warnings.PluginWarning, UserWarning)
