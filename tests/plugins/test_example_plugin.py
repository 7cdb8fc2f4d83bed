"""End-to-end tests of the example third-party plugin distribution.

``tests/plugins/chainer-plugin-example`` must be installed into the test
environment (``pip install -e tests/plugins/chainer-plugin-example``); it is the
proof that a distribution's ``chainer.plugins`` entry point reaches every
registry without the user importing it.
"""

import importlib.util
import os
import subprocess
import sys
import textwrap
import types

import numpy
import pluggy
import pytest

import chainer
from chainer import function_node
from chainer import plugins

if importlib.util.find_spec("chainer_plugin_example") is None:
    pytest.fail(
        "the example plugin distribution is not installed: run "
        "`pip install -e tests/plugins/chainer-plugin-example`",
        pytrace=False,
    )

import chainer_plugin_example


def _run(script, **env_overrides):
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    env.update(env_overrides)
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture
def example():
    """The example plugin registered explicitly (autoloading is off in tests)."""
    name = plugins.register(chainer_plugin_example, name="example")
    yield name
    plugins.unregister(name)


def test_autoload_registers_everything():
    out = _run(
        """
        import sys
        import numpy
        import chainer
        from chainer import plugins

        def loaded():
            return sorted(m for m in sys.modules if m.startswith("chainer_plugin"))

        # Nothing of the plugin is imported by ``import chainer``.
        assert loaded() == [], loaded()
        square = plugins.get_function("example_square")
        x = chainer.Variable(numpy.array([1.0, -2.0], dtype=numpy.float32))
        y = square(x)
        y.grad = numpy.ones(2, dtype=numpy.float32)
        y.backward()
        print(y.array.tolist(), x.grad.tolist())
        # The plugin module is tiny: links, extensions and the device load on
        # first use only.
        print(loaded())
        link = plugins.get_link("ExampleScale")(2, initial=3.0)
        y = link(numpy.ones((1, 2), numpy.float32))
        print(type(link).__name__, y.array.tolist())
        print(plugins.get_extension("ExampleExtension").__name__)
        print([float(v) for v in plugins.get_dataset("get_example_squares")(3)[2]])
        device = chainer.get_device("@example")
        print(type(device).__name__, device.name, chainer.get_device("@example:3").name)
        v = chainer.Variable(numpy.ones(2, numpy.float32))
        v.to_device("@example")
        print(v.device, type(v.array).__name__, (v * 2).device)
        (info,) = [i for i in plugins.list_plugins() if i.name == "example"]
        print(info.distribution, info.version)
        print({kind: len(names) for kind, names in info.registered.items()})
        """
    )
    lines = out.splitlines()
    assert lines[0] == "[1.0, 4.0] [2.0, -4.0]"
    assert lines[1] == "['chainer_plugin_example', 'chainer_plugin_example.functions']"
    assert lines[2] == "ExampleScale [[3.0, 3.0]]"
    assert lines[3] == "ExampleExtension"
    assert lines[4] == "[2.0, 4.0]"
    assert lines[5] == "ExampleDevice @example @example:3"
    assert lines[6] == "@example ExampleArray @example"
    assert lines[7] == "chainer-plugin-example 0.1.0"
    assert lines[8] == (
        "{'backends': 1, 'functions': 1, 'links': 1, 'extensions': 1, "
        "'datasets': 1, 'kernels': 1}"
    )


def test_autoload_conflict_with_explicit_plugin_names_both():
    out = _run(
        """
        import types
        from chainer import plugins

        rival = types.ModuleType("rival_plugin")
        rival.register_functions = plugins.hookimpl(lambda: {"example_square": len})
        try:
            plugins.register(rival, name="rival")
        except ValueError as exc:
            print(exc)
        """
    )
    assert "function 'example_square' is registered by both" in out
    assert "plugin 'example' (distribution chainer-plugin-example 0.1.0)" in out
    assert "plugin 'rival' (registered explicitly)" in out


def test_autoload_off_hides_the_plugin():
    out = _run(
        """
        import sys
        import chainer
        from chainer import plugins
        print("example_square" in plugins.names("functions"))
        try:
            chainer.get_device("@example")
        except ValueError as exc:
            print(exc)
        print(any(m.startswith("chainer_plugin") for m in sys.modules))
        """,
        CHAINER_DISABLE_PLUGIN_AUTOLOAD="1",
    )
    hidden, error, imported = out.splitlines()
    assert hidden == "False"
    assert "'@example'" in error
    assert imported == "False"


def test_explicit_registration_finds_the_distribution(example):
    (info,) = [i for i in plugins.list_plugins() if i.name == example]
    assert info.distribution == "chainer-plugin-example"
    assert info.version == chainer_plugin_example.__version__
    assert info.registered["functions"] == ("example_square",)
    assert info.registered["links"] == ("ExampleScale",)
    assert info.registered["extensions"] == ("ExampleExtension",)
    assert info.registered["backends"] == ("example",)


def test_explicit_conflict_names_both_distributions(example):
    rival = types.ModuleType("rival_plugin")
    rival.register_links = plugins.hookimpl(lambda: {"ExampleScale": dict})
    with pytest.raises(ValueError) as info:
        plugins.register(rival, name="rival")
    message = str(info.value)
    assert "link 'ExampleScale' is registered by both" in message
    assert "'example' (distribution chainer-plugin-example 0.1.0)" in message
    assert "'rival' (registered explicitly)" in message


def test_kernel_override_runs_for_numpy(example):
    from chainer_plugin_example import functions

    assert plugins.get_kernel(functions.ExampleSquare, "numpy") is (
        functions.square_kernel
    )
    before = functions.kernel_calls
    x = chainer.Variable(numpy.array([[0.5, 3.0]], dtype=numpy.float32))
    y = plugins.get_function("example_square")(x)
    assert functions.kernel_calls == before + 1
    numpy.testing.assert_allclose(y.array, [[0.25, 9.0]])
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_allclose(x.grad, [[1.0, 6.0]])
    plugins.unregister(example)
    assert (functions.ExampleSquare, "numpy") not in function_node._kernel_overrides
    plugins.register(chainer_plugin_example, name=example)


def test_example_square_rejects_integer_input(example):
    from chainer.utils import type_check

    with pytest.raises(type_check.InvalidType):
        plugins.get_function("example_square")(numpy.arange(3))


def test_example_scale_link_learns_a_scale(example):
    link = plugins.get_link("ExampleScale")(3, initial=0.5)
    assert isinstance(link, chainer.Link)
    assert [name for name, _ in link.namedparams()] == ["/W"]
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    y = link(x)
    numpy.testing.assert_allclose(y.array, x * 0.5)
    with pytest.raises(ValueError, match="positive int"):
        plugins.get_link("ExampleScale")(0)


def test_example_extension_records_iterations(example):
    extension = plugins.get_extension("ExampleExtension")()
    trainer = types.SimpleNamespace(updater=types.SimpleNamespace(iteration=7))
    extension(trainer)
    assert extension.iterations == [7]
    assert extension.trigger == (1, "iteration")


def test_example_device(example):
    # The backend's arrays are of a type of its own, not NumPy's (see
    # test_array_backend.py for models training on it).
    from chainer_plugin_example import array as example_array

    device = chainer.get_device("@example")
    assert device.name == "@example"
    assert device.xp is example_array.xp
    assert device.xp is not numpy
    sent = device.send(numpy.ones(2))
    assert type(sent) is example_array.ExampleArray
    assert device.send(sent) is sent
    assert chainer.backend.get_device_from_array(sent) == device
    back = chainer.get_device("@numpy").send(sent)
    assert type(back) is numpy.ndarray
    numpy.testing.assert_array_equal(back, [1.0, 1.0])
    assert chainer.get_device("@example:1").name == "@example:1"
    with pytest.raises(ValueError, match="non-negative int"):
        plugins.get_backend("example")(-1)


def test_misspelled_hook_in_explicit_plugin_fails(example):
    typo = types.ModuleType("typo_plugin")
    typo.register_extension = plugins.hookimpl(lambda: {"X": dict})
    with pytest.raises(pluggy.PluginValidationError, match="register_extensions"):
        plugins.register(typo, name="typo")


def test_autoloaded_function_appears_in_the_catalogue():
    # A user who only pip-installed the plugin finds its function at F.<name>.
    pytest.importorskip("chainer.functions", reason="chainer-links is not installed")
    out = _run(
        """
        import numpy
        import chainer.functions as F

        y = F.example_square(numpy.array([3.0], numpy.float32))
        print(float(y.array[0]), "example_square" in dir(F))
        """
    )
    assert out.split() == ["9.0", "True"]


def test_plugin_claiming_a_catalogue_name_is_a_conflict():
    pytest.importorskip("chainer.functions", reason="chainer-links is not installed")
    out = _run(
        """
        import types
        from chainer import plugins

        shadow = types.ModuleType("shadow_relu")
        shadow.register_functions = plugins.hookimpl(
            lambda: {"relu": "numpy:maximum"}
        )
        try:
            plugins.register(shadow, name="shadow")
            plugins.get_function("relu")
        except ValueError as exc:
            print("relu" in str(exc), "chainer-links" in str(exc))
        """
    )
    assert out.split() == ["True", "True"]
