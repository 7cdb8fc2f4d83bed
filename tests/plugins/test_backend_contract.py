"""The Device contract check applied to backend classes (docs/backends.md)."""

import importlib.util
import pathlib
import subprocess
import sys

import numpy
import pytest

from chainer import _backend_contract
from chainer import backend

ORIGIN = "plugin 'acme' (distribution acme-backend 1.0)"


class _Array:
    pass


class _Good(backend.Device):
    xp = numpy
    supported_array_types = (_Array,)

    @staticmethod
    def from_array(array):
        return _Good() if isinstance(array, _Array) else None

    def send_array(self, array):
        return array


def _without(attribute):
    # _Good with one of its attributes missing.
    attributes = {
        k: v
        for k, v in vars(_Good).items()
        if k != attribute and not k.startswith("__")
    }
    return type(f"No_{attribute}", (backend.Device,), attributes)


def _check(cls, name="acme"):
    _backend_contract.check_device_class(cls, name, ORIGIN)


def _error(cls, name="acme"):
    with pytest.raises(TypeError) as info:
        _check(cls, name)
    message = str(info.value)
    # Every message names the backend and the plugin it came from.
    assert f"'@{name}'" in message
    assert ORIGIN in message
    return message


def test_builtin_and_example_devices_pass():
    _check(backend.CpuDevice, "numpy")
    _check(_Good)
    pytest.importorskip("chainer_plugin_example")
    from chainer_plugin_example import device

    _check(device.ExampleDevice, "example")


def test_cuda_device_passes_without_importing_cupy():
    if importlib.util.find_spec("chainer_cuda") is None:
        pytest.skip("chainer-cuda is not installed")
    script = (
        "import sys\n"
        "from chainer import _backend_contract\n"
        "cupy_before = 'cupy' in sys.modules\n"
        "from chainer_cuda import _device\n"
        "cupy_loaded = 'cupy' in sys.modules\n"
        "before = set(sys.modules)\n"
        "_backend_contract.check_device_class(_device.GpuDevice, 'cupy', 'p')\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    # The check itself imports nothing (CuPy least of all).
    assert out.stdout.strip() == "[]"


def test_not_a_class():
    message = _error(42)
    assert "is 42, not a subclass of chainer.backend.Device" in message


def test_not_a_device_subclass():
    class Loose:
        xp = numpy

    message = _error(Loose)
    assert "Loose, not a subclass of chainer.backend.Device" in message


def test_missing_xp():
    assert "does not set `xp`" in _error(_without("xp"))


def test_xp_lacking_numpy_api():
    class Thin(_Good):
        xp = type("thin", (), {"asarray": staticmethod(numpy.asarray)})()

    message = _error(Thin)
    assert "lacks empty, empty_like, zeros" in message
    assert "asarray" not in message.split("lacks")[1]


def test_xp_none_with_array_types():
    class NoLibrary(_Good):
        xp = None

    assert "`xp` is None although it declares array types" in _error(NoLibrary)


def test_unavailable_backend_passes():
    # A backend whose array library is not installed: no xp, no array types;
    # creating a device is where it explains what to install.
    class Unavailable(_Good):
        xp = None
        supported_array_types = ()

    _check(Unavailable)


def test_lazy_xp_is_not_evaluated():
    calls = []

    class Lazy(_Good):
        supported_array_types = ("somelib.core:Array",)

        @property
        def xp(self):
            calls.append(1)
            return numpy

    _check(Lazy)
    assert calls == []


def test_missing_supported_array_types():
    message = _error(_without("supported_array_types"))
    assert "does not set `supported_array_types`" in message


@pytest.mark.parametrize(
    ("types", "match"),
    [
        ([_Array], "must be a tuple of array classes or 'module:QualName'"),
        (_Array, "must be a tuple of array classes or 'module:QualName'"),
        ((_Array, 3), "holds 3, which is neither a class nor"),
        (("no-colon",), "'no-colon' in `supported_array_types` is not a 'module"),
        ((), "`supported_array_types` is empty"),
    ],
)
def test_bad_supported_array_types(types, match):
    cls = type("BadTypes", (_Good,), {"supported_array_types": types})
    assert match in _error(cls)


def test_lazy_array_type_strings_pass():
    cls = type("Strings", (_Good,), {"supported_array_types": ("a.b:C.D",)})
    _check(cls)


def test_from_array_not_overridden():
    assert "does not override `from_array(array)`" in _error(_without("from_array"))


def test_from_array_must_be_static():
    class Bound(_Good):
        def from_array(self, array):
            return None

    assert "`from_array` must be a staticmethod or classmethod" in _error(Bound)


def test_from_index_must_be_a_class_method():
    class Bound(_Good):
        def from_index(self, index):
            return self

    assert "`from_index` must be a classmethod or staticmethod" in _error(Bound)


def test_send_array_not_overridden():
    assert "does not override `send_array(array)`" in _error(_without("send_array"))


def test_method_replaced_by_a_value():
    class NoUse(_Good):
        use = None

    assert "`use` is not a method" in _error(NoUse)


def test_eq_without_hash():
    class Unhashable(_Good):
        def __eq__(self, other):
            return True

    assert "defines `__eq__` without `__hash__`" in _error(Unhashable)


def test_class_name_must_match_registration():
    class Elsewhere(_Good):
        name = "@other"

    assert "name '@other' does not match '@acme'" in _error(Elsewhere)
    indexed = type("Indexed", (_Good,), {"name": "@acme:0"})
    _check(indexed)


def test_bad_backend_name():
    assert "must be a non-empty str without '@' or ':'" in _error(_Good, "a:b")


def test_every_problem_is_listed_at_once():
    class Sloppy(backend.Device):
        def __eq__(self, other):
            return True

    message = _error(Sloppy)
    for problem in ("`xp`", "`supported_array_types`", "`from_array", "send_array"):
        assert problem in message
    assert "docs/backends.md" in message


def test_docs_state_the_checked_contract():
    doc = (
        pathlib.Path(__file__).resolve().parents[2] / "docs" / "backends.md"
    ).read_text()
    rows = [line for line in doc.splitlines() if line.startswith("| `")]
    members = {row.split("`")[1].split("(")[0] for row in rows}
    for member in ("xp", "supported_array_types", "name", "from_array", "send_array"):
        assert member in members, member
    for member in members - {"from_index", "__init__", "__eq__"}:
        assert hasattr(backend.Device, member), member
    (xp_row,) = [row for row in rows if row.startswith("| `xp`")]
    for name in _backend_contract.REQUIRED_XP_NAMES:
        assert f"`{name}`" in xp_row, name
