"""Tests of chainer.plugins with fake plugins (no installed plugin needed).

In-process tests run with autoloading off (root conftest) and register fakes
explicitly. Entry-point loading is tested in subprocesses that see fake
distributions: a ``*.dist-info`` folder on ``PYTHONPATH`` is all that
``importlib.metadata`` needs.
"""

import importlib
import itertools
import os
import subprocess
import sys
import textwrap
import types

import numpy
import pluggy
import pytest

import chainer
from chainer import backend
from chainer import function_node
from chainer import plugins

_counter = itertools.count()


def _fake_plugin(**hooks):
    """A plugin module whose hook ``name`` returns ``hooks[name]``."""
    module = types.ModuleType(f"fake_chainer_plugin_{next(_counter)}")
    for hook_name, result in hooks.items():

        def impl(result=result):
            return result

        setattr(module, hook_name, plugins.hookimpl(impl))
    return module


@pytest.fixture
def register():
    """Registers plugins for one test and unregisters them afterwards."""
    names = []

    def _register(plugin, name=None):
        registered = plugins.register(plugin, name=name)
        names.append(registered)
        return registered

    yield _register
    listed = {info.name for info in plugins.list_plugins()}
    for name in names:
        if name in listed:
            plugins.unregister(name)


class _Double(function_node.FunctionNode):
    def forward(self, inputs):
        (x,) = inputs
        return (x * 2,)


def _kernel_triple(node, inputs):
    (x,) = inputs
    return (x * 3,)


# --------------------------------------------------------------------------
# The core plugin and lookups
# --------------------------------------------------------------------------


def test_hookimpl_is_a_chainer_marker():
    assert isinstance(plugins.hookimpl, pluggy.HookimplMarker)
    assert plugins.hookimpl.project_name == "chainer"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        plugins.nope  # noqa: B018


def test_core_plugin_registers_numpy_backend():
    assert plugins.get_backend("numpy") is backend.CpuDevice
    assert "numpy" in plugins.names("backends")
    core = plugins.list_plugins()[0]
    assert core.name == "core"
    assert core.distribution == "chainer-core"
    assert core.version == chainer.__version__
    assert core.registered["backends"] == ("numpy",)
    assert core.hooks == ("register_backends",)


def test_unknown_name_lists_available_and_autoload_state():
    with pytest.raises(KeyError) as info:
        plugins.get_backend("nonexistent")
    message = str(info.value)
    assert "'nonexistent'" in message
    assert "available: numpy" in message
    assert "CHAINER_DISABLE_PLUGIN_AUTOLOAD" in message


@pytest.mark.parametrize(
    "getter",
    [
        plugins.get_function,
        plugins.get_link,
        plugins.get_extension,
        plugins.get_dataset,
    ],
)
def test_unknown_name_of_each_kind(getter):
    with pytest.raises(KeyError, match="no chainer plugin registers"):
        getter("surely_not_registered")


def test_names_accepts_plural_and_singular_and_rejects_unknown_kind():
    assert plugins.names("backend") == plugins.names("backends")
    with pytest.raises(ValueError, match="unknown registry kind 'gadgets'"):
        plugins.names("gadgets")


def test_ensure_loaded_is_idempotent():
    plugins.ensure_loaded()
    before = plugins.list_plugins()
    plugins.ensure_loaded()
    assert plugins.list_plugins() == before


# --------------------------------------------------------------------------
# Explicit registration
# --------------------------------------------------------------------------


def test_register_makes_every_kind_available(register):
    def my_op(x):
        return x

    class MyLink:
        pass

    class MyExtension:
        def __call__(self, trainer):
            pass

    class MyDevice(backend.CpuDevice):
        name = "@mine"

    def get_my_corpus():
        return [1, 2, 3]

    plugin = _fake_plugin(
        register_functions={"my_op": my_op},
        register_links={"MyLink": MyLink},
        register_extensions={"MyExtension": MyExtension},
        register_datasets={"get_my_corpus": get_my_corpus},
        register_backends={"mine": MyDevice},
    )
    name = register(plugin, name="mine")
    assert name == "mine"
    assert plugins.get_function("my_op") is my_op
    assert plugins.get_link("MyLink") is MyLink
    assert plugins.get_extension("MyExtension") is MyExtension
    assert plugins.get_dataset("get_my_corpus") is get_my_corpus
    assert plugins.get_backend("mine") is MyDevice
    assert "my_op" in plugins.names("functions")
    (info,) = [i for i in plugins.list_plugins() if i.name == "mine"]
    assert info.distribution is None
    assert info.version is None
    assert info.registered["functions"] == ("my_op",)
    assert info.registered["links"] == ("MyLink",)
    assert info.registered["extensions"] == ("MyExtension",)
    assert info.registered["datasets"] == ("get_my_corpus",)
    assert info.registered["backends"] == ("mine",)
    assert info.registered["kernels"] == ()


def test_registered_backend_is_reachable_through_get_device(register):
    class MineDevice(backend.CpuDevice):
        name = "@mine2"

    register(_fake_plugin(register_backends={"mine2": MineDevice}))
    device = chainer.get_device("@mine2")
    assert isinstance(device, MineDevice)


def test_default_plugin_name_is_module_name(register):
    plugin = _fake_plugin(register_functions={"f_default": len})
    assert register(plugin) == plugin.__name__


def test_lazy_reference_is_imported_on_first_access_and_cached(
    register, tmp_path, monkeypatch
):
    module_name = f"lazy_target_{next(_counter)}"
    (tmp_path / f"{module_name}.py").write_text(
        "class Holder:\n    def op(x):\n        return x + 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    register(_fake_plugin(register_functions={"lazy_op": f"{module_name}:Holder.op"}))
    assert module_name not in sys.modules
    op = plugins.get_function("lazy_op")
    assert module_name in sys.modules
    assert op(1) == 2
    assert plugins.get_function("lazy_op") is op


def test_lazy_reference_that_cannot_load_names_plugin(register):
    register(
        _fake_plugin(register_functions={"broken": "no_such_module_xyz:f"}),
        name="brokenref",
    )
    with pytest.raises(ImportError, match=r"'broken'.*'brokenref'.*no_such_module"):
        plugins.get_function("broken")


def test_lazy_reference_to_non_callable_is_rejected(register):
    register(_fake_plugin(register_functions={"pi": "math:pi"}))
    with pytest.raises(TypeError, match="non-callable float"):
        plugins.get_function("pi")


def test_conflicting_names_raise_naming_both_plugins(register):
    register(_fake_plugin(register_functions={"dup_op": len}), name="first")
    second = _fake_plugin(register_functions={"dup_op": abs})
    with pytest.raises(ValueError) as info:
        plugins.register(second, name="second")
    message = str(info.value)
    assert "function 'dup_op'" in message
    assert "'first'" in message
    assert "'second'" in message
    # The failed registration leaves the registry as it was.
    assert "second" not in {i.name for i in plugins.list_plugins()}
    assert plugins.get_function("dup_op") is len


def test_same_name_of_different_kinds_does_not_conflict(register):
    register(_fake_plugin(register_functions={"Same": len}))
    register(_fake_plugin(register_links={"Same": dict}))
    assert plugins.get_function("Same") is len
    assert plugins.get_link("Same") is dict


def test_misspelled_hook_fails_clearly(register):
    plugin = _fake_plugin(register_functoins={"x": len})
    with pytest.raises(pluggy.PluginValidationError) as info:
        plugins.register(plugin, name="typo")
    message = str(info.value)
    assert "'register_functoins'" in message
    assert "did you mean 'register_functions'" in message
    assert "'typo'" in message
    assert "typo" not in {i.name for i in plugins.list_plugins()}


def test_hook_with_unknown_argument_fails(register):
    module = types.ModuleType("bad_args_plugin")

    @plugins.hookimpl
    def register_functions(config):
        return {}

    module.register_functions = register_functions
    with pytest.raises(pluggy.PluginValidationError, match="config"):
        plugins.register(module)
    assert "bad_args_plugin" not in {i.name for i in plugins.list_plugins()}


@pytest.mark.parametrize(
    ("result", "error", "match"),
    [
        (["my_op"], TypeError, "must return a dict"),
        ({1: len}, TypeError, "invalid name 1"),
        ({"op": "not a reference"}, ValueError, "'module:attr'"),
        ({"op": None}, ValueError, "expected an object"),
    ],
)
def test_bad_hook_results_are_rejected(result, error, match):
    plugin = _fake_plugin(register_functions=result)
    with pytest.raises(error, match=match):
        plugins.register(plugin)
    assert plugin.__name__ not in {i.name for i in plugins.list_plugins()}


def test_register_rejects_bad_arguments(register):
    with pytest.raises(TypeError, match="plugin module or object"):
        plugins.register("chainer_plugin_example")
    with pytest.raises(TypeError, match="non-empty str"):
        plugins.register(_fake_plugin(), name="")
    plugin = _fake_plugin()
    register(plugin, name="once")
    with pytest.raises(ValueError, match="already registered as 'once'"):
        plugins.register(plugin, name="twice")
    with pytest.raises(ValueError, match="'core' is already registered"):
        plugins.register(_fake_plugin(), name="core")


def test_unregister_removes_registrations(register):
    register(_fake_plugin(register_functions={"gone_op": len}), name="gone")
    assert plugins.get_function("gone_op") is len
    plugins.unregister("gone")
    assert "gone_op" not in plugins.names("functions")
    with pytest.raises(KeyError):
        plugins.get_function("gone_op")


def test_unregister_unknown_lists_registered_plugins():
    with pytest.raises(KeyError, match=r"'missing'.*registered plugins: core"):
        plugins.unregister("missing")


# --------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------


def test_kernel_is_published_used_and_withdrawn(register):
    overrides = function_node._kernel_overrides
    register(
        _fake_plugin(register_kernels={(_Double, "numpy"): _kernel_triple}),
        name="kernels",
    )
    assert overrides[_Double, "numpy"] is _kernel_triple
    assert plugins.get_kernel(_Double, "numpy") is _kernel_triple
    assert plugins.names("kernels") == [(_Double, "numpy")]
    with pytest.raises(KeyError, match=r"available: .*_Double on numpy"):
        plugins.get_kernel(_Double, "cupy")
    (y,) = _Double().apply((numpy.ones(3, dtype=numpy.float32),))
    numpy.testing.assert_array_equal(y.array, numpy.full(3, 3, numpy.float32))
    plugins.unregister("kernels")
    # Rebuilt in place: FunctionNode keeps reading the same dict object.
    assert function_node._kernel_overrides is overrides
    assert (_Double, "numpy") not in overrides
    (y,) = _Double().apply((numpy.ones(3, dtype=numpy.float32),))
    numpy.testing.assert_array_equal(y.array, numpy.full(3, 2, numpy.float32))


class _FakeArray:
    """An array type of the fake '@fakekern' backend (wraps a NumPy array)."""

    def __init__(self, data):
        self.data = data


class _FakeKernelDevice(backend.Device):
    xp = numpy
    name = "@fakekern"
    supported_array_types = (_FakeArray,)

    def send_array(self, array):
        return array if isinstance(array, _FakeArray) else _FakeArray(array)

    @staticmethod
    def from_array(array):
        return _FakeKernelDevice() if isinstance(array, _FakeArray) else None

    def __init__(self):
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        return super().__enter__()


class _AddOneRule(chainer.optimizer.UpdateRule):
    def update_core_cpu(self, param):
        xp = numpy
        data = param.array.data if isinstance(param.array, _FakeArray) else param.array
        data += xp.ones_like(data)


def test_update_rule_kernel_override_on_device_branch(register):
    calls = []

    def kernel(rule, param):
        calls.append((rule, param))
        param.array.data *= 10

    register(
        _fake_plugin(
            register_backends={"fakekern": _FakeKernelDevice},
            register_kernels={(_AddOneRule, "fakekern"): kernel},
        ),
        name="rule_kernels",
    )
    rule = _AddOneRule()
    device = _FakeKernelDevice()
    param = types.SimpleNamespace(
        array=_FakeArray(numpy.ones(2)), device=device, grad=numpy.ones(2)
    )
    rule.update_core(param)
    assert calls == [(rule, param)]
    numpy.testing.assert_array_equal(param.array.data, [10, 10])
    # The kernel runs with the parameter's device made current.
    assert device.entered == 1

    # A subclass that updates its own way does not inherit the kernel.
    class Sub(_AddOneRule):
        def update_core_gpu(self, param):
            self.update_core_cpu(param)

    sub_param = types.SimpleNamespace(
        array=_FakeArray(numpy.ones(2)), device=device, grad=numpy.ones(2)
    )
    Sub().update_core(sub_param)
    numpy.testing.assert_array_equal(sub_param.array.data, [2, 2])
    assert len(calls) == 1

    plugins.unregister("rule_kernels")
    rule.update_core(param)
    numpy.testing.assert_array_equal(param.array.data, [11, 11])
    assert len(calls) == 1


def test_update_rule_numpy_kernel_replaces_update_core_cpu(register):
    calls = []

    def kernel(rule, param):
        calls.append(rule)
        param.array += 10

    register(
        _fake_plugin(register_kernels={(_AddOneRule, "numpy"): kernel}),
        name="numpy_rule_kernel",
    )
    rule = _AddOneRule()
    param = chainer.Variable(numpy.zeros(2), grad=numpy.zeros(2))
    rule.update_core(param)
    numpy.testing.assert_array_equal(param.array, [10, 10])
    assert calls == [rule]
    # Without a gradient there is nothing to do: the kernel is not called.
    param.grad = None
    rule.update_core(param)
    numpy.testing.assert_array_equal(param.array, [10, 10])
    assert calls == [rule]


def test_lazy_kernel_and_string_node_class(register, tmp_path, monkeypatch):
    module_name = f"lazy_kernels_{next(_counter)}"
    (tmp_path / f"{module_name}.py").write_text(
        textwrap.dedent(
            """
            from chainer import function_node

            class Node(function_node.FunctionNode):
                def forward(self, inputs):
                    return (inputs[0] + 1,)

            def kernel(node, inputs):
                return (inputs[0] + 100,)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    register(
        _fake_plugin(
            register_kernels={(f"{module_name}:Node", "numpy"): f"{module_name}:kernel"}
        )
    )
    # String keys are matched by name: registration imports nothing.
    assert module_name not in sys.modules
    module = importlib.import_module(module_name)
    key = (module.Node, "numpy")
    stand_in = function_node._kernel_overrides[key]
    assert stand_in is not module.kernel
    (y,) = module.Node().apply((numpy.zeros(2, dtype=numpy.float32),))
    numpy.testing.assert_array_equal(y.array, numpy.full(2, 100, numpy.float32))
    # After its first call the stand-in is replaced by the real kernel.
    assert function_node._kernel_overrides[key] is module.kernel
    assert plugins.get_kernel(f"{module_name}:Node", "numpy") is module.kernel


def test_kernel_for_missing_distribution_is_skipped(register):
    register(
        _fake_plugin(
            register_kernels={("not_installed_dist.ops:Node", "cupy"): _kernel_triple}
        )
    )
    assert plugins.names("kernels") == []


def test_conflicting_kernels_name_both_plugins(register):
    register(_fake_plugin(register_kernels={(_Double, "numpy"): len}), name="k1")
    other = _fake_plugin(register_kernels={(_Double, "numpy"): abs})
    with pytest.raises(ValueError, match=r"_Double on numpy.*'k1'.*'k2'"):
        plugins.register(other, name="k2")


@pytest.mark.parametrize(
    "key",
    [("_Double", "numpy", "extra"), (_Double, 0), "just a string", (42, "numpy")],
)
def test_bad_kernel_keys_are_rejected(key):
    with pytest.raises(TypeError, match="kernel key"):
        plugins.register(_fake_plugin(register_kernels={key: len}))


def test_get_kernel_rejects_bad_arguments():
    with pytest.raises(ValueError, match="'module:Class'"):
        plugins.get_kernel("NoColon", "numpy")
    with pytest.raises(TypeError, match="backend name"):
        plugins.get_kernel(_Double, None)
    with pytest.raises(KeyError, match="_Double on cupy"):
        plugins.get_kernel(_Double, "cupy")


# --------------------------------------------------------------------------
# Entry points, in subprocesses with fake distributions
# --------------------------------------------------------------------------


def _fake_distribution(site, dist_name, version, entry_points, modules):
    info = site / f"{dist_name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n"
    )
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[chainer.plugins]\n{lines}")
    for module_name, source in modules.items():
        (site / f"{module_name}.py").write_text(textwrap.dedent(source))


def _run(script, site=None, **env_overrides):
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    env.pop("CHAINER_TRACE_PLUGINS", None)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(site), *filter(None, [env.get("PYTHONPATH")])]
        )
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


_GOOD_PLUGIN = """
    from chainer import plugins

    @plugins.hookimpl
    def register_functions():
        return {"fake_fn": "fake_impl:fake_fn"}
"""


def test_entry_point_plugins_are_loaded_with_distribution(tmp_path):
    _fake_distribution(
        tmp_path,
        "fake-dist",
        "1.2",
        {"fake": "fake_plugin"},
        {"fake_plugin": _GOOD_PLUGIN, "fake_impl": "def fake_fn(x):\n    return 2*x\n"},
    )
    result = _run(
        """
        import sys
        import chainer
        from chainer import plugins
        assert "fake_plugin" not in sys.modules  # nothing loads at import
        assert plugins.get_function("fake_fn")(4) == 8
        info = {i.name: i for i in plugins.list_plugins()}
        assert list(info)[0] == "core", list(info)
        assert info["core"].distribution == "chainer-core"
        fake = info["fake"]
        print(fake.distribution, fake.version, fake.registered["functions"])
        """,
        site=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "fake-dist 1.2 ('fake_fn',)"


def test_autoload_off_hides_entry_point_plugins(tmp_path):
    _fake_distribution(
        tmp_path,
        "fake-dist",
        "1.2",
        {"fake": "fake_plugin"},
        {"fake_plugin": _GOOD_PLUGIN},
    )
    result = _run(
        """
        import sys
        from chainer import plugins
        assert "fake_fn" not in plugins.names("functions")
        assert [i.name for i in plugins.list_plugins()] == ["core"]
        assert "fake_plugin" not in sys.modules
        """,
        site=tmp_path,
        CHAINER_DISABLE_PLUGIN_AUTOLOAD="1",
    )
    assert result.returncode == 0, result.stderr


def test_entry_point_conflict_names_both_distributions(tmp_path):
    _fake_distribution(
        tmp_path,
        "alpha-dist",
        "1.0",
        {"alpha": "alpha_plugin"},
        {"alpha_plugin": _GOOD_PLUGIN},
    )
    _fake_distribution(
        tmp_path,
        "beta-dist",
        "2.0",
        {"beta": "beta_plugin"},
        {"beta_plugin": _GOOD_PLUGIN},
    )
    result = _run(
        "from chainer import plugins\nplugins.ensure_loaded()\n", site=tmp_path
    )
    # Contained: the first loaded keeps the name, the other is dropped with a
    # warning naming both.
    assert result.returncode == 0, result.stderr
    assert (
        "PluginWarning: function 'fake_fn' of plugin 'beta' (distribution "
        "beta-dist 2.0) is ignored: plugin 'alpha' (distribution alpha-dist 1.0)"
    ) in result.stderr


def test_broken_entry_point_names_plugin_and_distribution(tmp_path):
    _fake_distribution(
        tmp_path,
        "broken-dist",
        "0.3",
        {"broken": "broken_plugin"},
        {"broken_plugin": "raise RuntimeError('boom')\n"},
    )
    result = _run(
        "from chainer import plugins\nplugins.ensure_loaded()\n", site=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert (
        "PluginWarning: chainer plugin 'broken' (distribution broken-dist 0.3) "
        "could not be loaded from 'broken_plugin': RuntimeError: boom; the plugin "
        "is skipped" in result.stderr
    )


def test_misspelled_hook_of_entry_point_fails_check_pending(tmp_path):
    _fake_distribution(
        tmp_path,
        "typo-dist",
        "0.1",
        {"typo": "typo_plugin"},
        {"typo_plugin": _GOOD_PLUGIN.replace("register_functions", "register_link")},
    )
    result = _run(
        "from chainer import plugins\nplugins.ensure_loaded()\n", site=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "PluginWarning" in result.stderr
    assert "'typo' (distribution typo-dist 0.1)" in result.stderr
    assert "did you mean 'register_links'" in result.stderr


def test_trace_env_var_writes_hook_calls(tmp_path):
    result = _run(
        "from chainer import plugins\nplugins.ensure_loaded()\n",
        CHAINER_TRACE_PLUGINS="1",
        CHAINER_DISABLE_PLUGIN_AUTOLOAD="1",
    )
    assert result.returncode == 0, result.stderr
    assert "chainer.plugins: register_backends() -> [core]" in result.stderr
    assert "register_backends returned [{'numpy': " in result.stderr


def test_import_chainer_loads_no_plugin_machinery():
    result = _run(
        """
        import sys
        import chainer
        heavy = ["pluggy", "importlib.metadata", "chainer._hookspecs",
                 "chainer._core_plugin"]
        print([name for name in heavy if name in sys.modules])
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_plugin_touching_the_registry_while_loading_does_not_recurse(tmp_path):
    _fake_distribution(
        tmp_path,
        "eager-dist",
        "0.2",
        {"eager": "eager_plugin"},
        {
            "eager_plugin": """
            from chainer import plugins

            plugins.ensure_loaded()
            SEEN = (plugins.names("functions"), plugins.list_plugins())
            try:
                plugins.register(object())
            except RuntimeError as exc:
                ERROR = str(exc)

            @plugins.hookimpl
            def register_functions():
                return {"eager_fn": len}
            """
        },
    )
    result = _run(
        """
        import sys
        from chainer import plugins
        found = plugins.get_function("eager_fn") is len
        module = sys.modules["eager_plugin"]
        print(found, module.SEEN)
        print(module.ERROR)
        """,
        site=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    found, error = result.stdout.splitlines()
    assert found == "True ([], [])"
    assert "cannot be (un)registered while they are being loaded" in error


def test_two_distributions_with_one_entry_point_name_are_an_error(tmp_path):
    for dist_name, module in (("one-dist", "one_plugin"), ("two-dist", "two_plugin")):
        _fake_distribution(
            tmp_path, dist_name, "1.0", {"same": module}, {module: _GOOD_PLUGIN}
        )
    result = _run(
        "from chainer import plugins\nplugins.ensure_loaded()\n", site=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "PluginWarning: two chainer plugins are named 'same'" in result.stderr
    assert "one-dist 1.0" in result.stderr
    assert "two-dist 1.0" in result.stderr
