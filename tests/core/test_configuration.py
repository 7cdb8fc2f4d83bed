"""chainer.config / global_config / using_config, debug mode, dtypes and the
environment variables read at import time."""

import io
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy
import pytest

import chainer
from chainer import configuration

# Chainer 7's configuration entries and their defaults (with no CHAINER_*
# environment variable set).
DEFAULTS = {
    "autotune": False,
    "compute_mode": None,
    "cudnn_deterministic": False,
    "cudnn_fast_batch_normalization": False,
    "debug": False,
    "dtype": "float32",
    "enable_backprop": True,
    "in_recomputing": False,
    "keep_graph_on_report": False,
    "lazy_grad_sum": False,
    "schedule_func": None,
    "show_backprop_traceback": False,
    "train": True,
    "type_check": True,
    "use_cudnn": "auto",
    "use_cudnn_tensor_core": "auto",
    "use_ideep": "never",
    "use_static_graph": True,
    "warn_nondeterministic": False,
}


def _run_in_thread(func):
    """Runs ``func`` in a fresh thread (fresh thread-local config); returns its
    result or re-raises its exception."""
    box = {}

    def target():
        try:
            box["result"] = func()
        except BaseException as e:  # re-raised in the calling thread
            box["error"] = e

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")


def _run_python(code, **env_vars):
    """Runs ``code`` in a fresh interpreter with only the given CHAINER_* vars."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHAINER_")}
    env["CHAINER_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.update(env_vars)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


_DUMP_CONFIG = """
    import json
    import chainer

    def plain(value):
        if value is None or isinstance(value, (bool, str)):
            return value
        return str(value)

    gc = chainer.global_config
    print(json.dumps({k: plain(getattr(gc, k)) for k in vars(gc)}))
"""


# ---------------------------------------------------------------------------
# Entries and defaults
# ---------------------------------------------------------------------------


def test_every_entry_exists():
    for key in DEFAULTS:
        assert hasattr(chainer.global_config, key), key
        assert hasattr(chainer.config, key), key


def test_defaults_without_environment_variables():
    result = _run_python(_DUMP_CONFIG)
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    for key, expected in DEFAULTS.items():
        assert values[key] == expected, key


def test_module_objects():
    assert chainer.config is configuration.config
    assert chainer.global_config is configuration.global_config
    assert chainer.using_config is configuration.using_config
    assert isinstance(chainer.config, configuration.LocalConfig)
    assert isinstance(chainer.global_config, configuration.GlobalConfig)


# ---------------------------------------------------------------------------
# LocalConfig and using_config
# ---------------------------------------------------------------------------


def test_local_config_falls_back_to_global():
    gc = configuration.GlobalConfig()
    gc.alpha = 1
    local = configuration.LocalConfig(gc)
    assert local.alpha == 1
    gc.alpha = 2
    assert local.alpha == 2
    local.alpha = 3
    assert local.alpha == 3
    assert gc.alpha == 2
    del local.alpha
    assert local.alpha == 2


def test_unknown_entry_raises_attribute_error():
    with pytest.raises(AttributeError, match="no_such_entry"):
        _ = chainer.config.no_such_entry


def test_using_config_sets_and_restores():
    assert chainer.config.train is True
    with chainer.using_config("train", False):
        assert chainer.config.train is False
        # Only the thread-local view changes.
        assert chainer.global_config.train is True
    assert chainer.config.train is True


def test_using_config_nests():
    with chainer.using_config("train", False):
        with chainer.using_config("train", True):
            assert chainer.config.train is True
            with chainer.using_config("train", "x"):
                assert chainer.config.train == "x"
            assert chainer.config.train is True
        assert chainer.config.train is False
    assert chainer.config.train is True


def test_using_config_restores_on_exception():
    with pytest.raises(ValueError, match="boom"), chainer.using_config("train", False):
        raise ValueError("boom")
    assert chainer.config.train is True
    with (
        pytest.raises(KeyError),
        chainer.using_config("train", False),
        chainer.using_config("enable_backprop", False),
    ):
        raise KeyError("inner")
    assert chainer.config.train is True
    assert chainer.config.enable_backprop is True


def test_using_config_removes_new_local_entry():
    with chainer.using_config("my_new_entry", 42):
        assert chainer.config.my_new_entry == 42
    with pytest.raises(AttributeError):
        _ = chainer.config.my_new_entry


def test_using_config_lets_global_changes_show_after_exit():
    old = chainer.global_config.keep_graph_on_report
    try:
        with chainer.using_config("keep_graph_on_report", "local"):
            chainer.global_config.keep_graph_on_report = "global"
            assert chainer.config.keep_graph_on_report == "local"
        assert chainer.config.keep_graph_on_report == "global"
    finally:
        chainer.global_config.keep_graph_on_report = old


def test_using_config_with_custom_config():
    gc = configuration.GlobalConfig()
    gc.train = True
    local = configuration.LocalConfig(gc)
    with chainer.using_config("train", False, config=local):
        assert local.train is False
        assert chainer.config.train is True
    assert local.train is True


# ---------------------------------------------------------------------------
# Thread locality
# ---------------------------------------------------------------------------


def test_other_thread_sees_global_not_local_values():
    with chainer.using_config("train", False):
        assert _run_in_thread(lambda: chainer.config.train) is True
    assert chainer.config.train is True


def test_thread_local_values_do_not_leak_into_the_main_thread():
    entered = threading.Event()
    release = threading.Event()
    seen = {}

    def worker():
        with chainer.using_config("train", False):
            seen["worker"] = chainer.config.train
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert entered.wait(10)
        assert chainer.config.train is True
        assert seen["worker"] is False
    finally:
        release.set()
        thread.join()


def test_other_thread_sees_global_changes():
    old = chainer.global_config.train
    chainer.global_config.train = "changed"
    try:
        assert _run_in_thread(lambda: chainer.config.train) == "changed"
    finally:
        chainer.global_config.train = old


def test_plain_assignment_is_thread_local():
    def set_in_thread():
        chainer.config.train = False
        return chainer.config.train

    assert _run_in_thread(set_in_thread) is False
    assert chainer.config.train is True
    assert chainer.global_config.train is True


# ---------------------------------------------------------------------------
# show()
# ---------------------------------------------------------------------------


def _parse_show(text):
    entries = []
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        entries.append((key, value.strip()))
    return entries


def test_show_lists_every_entry_sorted():
    buf = io.StringIO()
    with chainer.using_config("train", False), chainer.using_config("extra", "xyz"):
        chainer.config.show(file=buf)
        entries = _parse_show(buf.getvalue())
        keys = [key for key, _ in entries]
        assert keys == sorted(keys)
        assert set(DEFAULTS) <= set(keys)
        values = dict(entries)
        # Thread-local values win over global ones.
        assert values["train"] == "False"
        assert values["extra"] == "xyz"
        for key, value in entries:
            assert value == str(getattr(chainer.config, key))


def test_global_show_ignores_thread_local_values():
    buf = io.StringIO()
    with chainer.using_config("train", False):
        chainer.global_config.show(file=buf)
    values = dict(_parse_show(buf.getvalue()))
    assert values["train"] == str(chainer.global_config.train)
    assert values["enable_backprop"] == str(chainer.global_config.enable_backprop)
    assert "extra" not in values


def test_show_aligns_values_in_one_column():
    buf = io.StringIO()
    chainer.global_config.show(file=buf)
    lines = buf.getvalue().splitlines()
    width = max(len(line.split(" ")[0]) for line in lines)
    starts = {len(line) - len(line[width:].lstrip(" ")) for line in lines}
    assert len(starts) == 1


def test_show_format_matches_chainer():
    gc = configuration.GlobalConfig()
    gc.debug = False
    gc.keep_graph_on_report = False
    gc.train = True
    buf = io.StringIO()
    gc.show(file=buf)
    assert buf.getvalue() == (
        "debug                False\n"
        "keep_graph_on_report False\n"
        "train                True\n"
    )


# ---------------------------------------------------------------------------
# Environment variables (read when chainer is imported)
# ---------------------------------------------------------------------------


def test_env_chainer_debug():
    code = """
        import numpy
        import chainer
        print(chainer.config.debug, chainer.is_debug())
        x = chainer.Variable(numpy.array([numpy.nan], numpy.float32))
        try:
            x * 2
        except RuntimeError as e:
            print(e)
    """
    result = _run_python(code, CHAINER_DEBUG="1")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "True True"
    assert "NaN is detected on forward computation" in lines[1]
    result = _run_python(code, CHAINER_DEBUG="0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["False False"]


def test_env_chainer_type_check_disabled():
    code = """
        import numpy
        import chainer
        print(chainer.config.type_check)
        a = chainer.Variable(numpy.ones(2, numpy.float32))
        b = chainer.Variable(numpy.ones(2, numpy.float64))
        print((a + b).dtype)
    """
    result = _run_python(code, CHAINER_TYPE_CHECK="0")
    assert result.returncode == 0, result.stderr
    # Without type checking NumPy's promotion applies instead of InvalidType.
    assert result.stdout.splitlines() == ["False", "float64"]


@pytest.mark.parametrize(
    ("value", "config_repr", "resolved"),
    [
        ("float16", "float16", "float16"),
        ("float32", "float32", "float32"),
        ("float64", "float64", "float64"),
        ("mixed16", "mixed16", "float16"),
    ],
)
def test_env_chainer_dtype(value, config_repr, resolved):
    code = """
        import numpy
        import chainer
        dtype = chainer.config.dtype
        print("mixed16" if dtype is chainer.mixed16 else numpy.dtype(dtype).name)
        print(chainer.get_dtype().name)
        print(chainer.get_dtype(map_mixed16=numpy.float32).name)
    """
    result = _run_python(code, CHAINER_DTYPE=value)
    assert result.returncode == 0, result.stderr
    mapped = "float32" if value == "mixed16" else resolved
    assert result.stdout.splitlines() == [config_repr, resolved, mapped]


def test_env_chainer_dtype_bad_value():
    result = _run_python("import chainer", CHAINER_DTYPE="bad")
    assert result.returncode != 0
    assert "TypeError" in result.stderr
    assert "CHAINER_DTYPE" in result.stderr
    assert "'bad'" in result.stderr


# ---------------------------------------------------------------------------
# get_dtype
# ---------------------------------------------------------------------------


def test_get_dtype_default_follows_config():
    with chainer.using_config("dtype", numpy.dtype(numpy.float32)):
        assert chainer.get_dtype() == numpy.float32
    with chainer.using_config("dtype", numpy.float16):
        assert chainer.get_dtype() == numpy.float16
        assert isinstance(chainer.get_dtype(), numpy.dtype)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (numpy.float64, numpy.float64),
        ("float16", numpy.float16),
        (numpy.dtype("float32"), numpy.float32),
        (numpy.int32, numpy.int32),
    ],
)
def test_get_dtype_explicit(given, expected):
    result = chainer.get_dtype(given)
    assert isinstance(result, numpy.dtype)
    assert result == expected


def test_get_dtype_mixed16():
    assert repr(chainer.mixed16) == "dtype(mixed16)"
    with chainer.using_config("dtype", chainer.mixed16):
        assert chainer.get_dtype() == numpy.float16
        assert chainer.get_dtype(map_mixed16=numpy.float32) == numpy.float32
    assert chainer.get_dtype(chainer.mixed16) == numpy.float16
    assert chainer.get_dtype(chainer.mixed16, map_mixed16="float32") == numpy.float32
    # map_mixed16 only applies to mixed16.
    assert chainer.get_dtype(numpy.float64, map_mixed16=numpy.float32) == numpy.float64


def test_get_dtype_bad_name():
    with pytest.raises(TypeError, match="not understood"):
        chainer.get_dtype("float99")


# ---------------------------------------------------------------------------
# Debug mode
# ---------------------------------------------------------------------------


def test_set_debug_and_is_debug():
    def body():
        assert chainer.is_debug() is False
        chainer.set_debug(True)
        assert chainer.is_debug() is True
        assert chainer.config.debug is True
        chainer.set_debug(False)
        assert chainer.is_debug() is False
        chainer.set_debug(True)
        return chainer.global_config.debug

    # A fresh thread: set_debug changes the calling thread's configuration.
    assert _run_in_thread(body) is False
    assert chainer.is_debug() is False


def test_debug_mode_context():
    assert chainer.is_debug() is False
    with chainer.DebugMode(True):
        assert chainer.is_debug() is True
        with chainer.DebugMode(False):
            assert chainer.is_debug() is False
        assert chainer.is_debug() is True
    assert chainer.is_debug() is False


def test_debug_mode_restores_on_exception():
    with pytest.raises(ValueError, match="boom"), chainer.DebugMode(True):
        raise ValueError("boom")
    assert chainer.is_debug() is False


def test_debug_mode_bad_argument():
    with pytest.raises(TypeError, match="debug must be a bool"):
        chainer.DebugMode("yes")


def test_debug_mode_exit_leaves_no_thread_local_entry():
    def body():
        with chainer.DebugMode(True):
            pass
        chainer.global_config.debug = True
        try:
            return chainer.is_debug()
        finally:
            chainer.global_config.debug = False

    assert _run_in_thread(body) is True


def test_debug_mode_detects_nan_in_forward():
    x = chainer.Variable(numpy.array([1.0, numpy.nan], numpy.float32))
    y = x * 2  # no check outside debug mode
    assert numpy.isnan(y.array[1])
    with chainer.DebugMode(True), pytest.raises(RuntimeError, match="NaN is detected"):
        x * 2


def test_debug_mode_records_creation_stack():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    assert (x * 2).creator_node.stack is None
    with chainer.using_config("debug", True):
        y = x * 2
    assert y.creator_node.stack is not None


# ---------------------------------------------------------------------------
# Backprop modes
# ---------------------------------------------------------------------------


def test_no_backprop_mode_builds_no_graph():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    with chainer.no_backprop_mode():
        assert chainer.config.enable_backprop is False
        y = x * 3 + 1
    assert chainer.config.enable_backprop is True
    assert y.creator is None
    numpy.testing.assert_array_equal(y.array, [4.0, 7.0])
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    assert x.grad is None


def test_force_backprop_mode_inside_no_backprop_mode():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    with chainer.no_backprop_mode():
        with chainer.force_backprop_mode():
            assert chainer.config.enable_backprop is True
            y = x * 3
        z = x * 3
        assert chainer.config.enable_backprop is False
    assert y.creator is not None
    assert z.creator is None
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [3.0, 3.0])


def test_graph_built_before_no_backprop_mode_still_backprops():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    y = x * x
    with chainer.no_backprop_mode():
        y.grad = numpy.ones(2, numpy.float32)
        y.backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_backprop_modes_restore_on_exception():
    with pytest.raises(ValueError, match="boom"), chainer.no_backprop_mode():
        raise ValueError("boom")
    assert chainer.config.enable_backprop is True
    with chainer.no_backprop_mode():
        with pytest.raises(ValueError, match="boom"), chainer.force_backprop_mode():
            raise ValueError("boom")
        assert chainer.config.enable_backprop is False


def test_enable_backprop_config_entry_has_the_same_effect():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    with chainer.using_config("enable_backprop", False):
        y = x + 1
    assert y.creator is None
