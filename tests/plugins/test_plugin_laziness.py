"""Loading plugins imports their small entry modules only.

Names are registered as strings, kernels are matched by ``"module:Class"``
strings along the node class's MRO, and a backend's array types are declared
as strings: nothing of a backend or of the catalogue is imported until it is
used. The subprocess tests run with entry-point loading on, as users do.
"""

import json
import os
import subprocess
import sys
import textwrap
import types

import numpy
import pytest

import chainer
from chainer import _dispatch
from chainer import _links_names as links_names
from chainer import function_node
from chainer import plugins


def _run(script, site=None, **env_overrides):
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGIN_AUTOLOAD", None)
    env.pop("CHAINER_DISABLED_PLUGINS", None)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(site), *filter(None, [env.get("PYTHONPATH")])]
        )
    env.update(env_overrides)
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_building_and_training_a_link_imports_no_gpu_backend():
    pytest.importorskip("chainer_cuda")
    out = _run(
        """
        import json
        import sys

        import numpy

        import chainer
        import chainer.functions as F
        import chainer.links as L
        from chainer import backend
        from chainer import plugins

        link = L.Linear(2, 2)
        loss = F.sum(F.relu(link(numpy.ones((3, 2), numpy.float32))))
        loss.backward()
        backend.get_array_module(object(), 1.0, None, [1], "s")
        backend.get_device_from_array(object())
        print(json.dumps({
            "cuda_registered": "cupy" in plugins.names("backends"),
            "loaded": sorted(
                m for m in sys.modules
                if m == "cupy" or m.startswith(("cupy.", "chainer_cuda._device"))
            ),
        }))
        """
    )
    assert out["cuda_registered"]
    assert out["loaded"] == []


def test_registry_load_imports_no_catalogue_module():
    out = _run(
        """
        import json
        import sys
        import time

        import chainer
        from chainer import plugins

        before = len(sys.modules)
        start = time.process_time()
        plugins.ensure_loaded()
        took = time.process_time() - start
        print(json.dumps({
            "took": took,
            "added": len(sys.modules) - before,
            "catalogue": sorted(
                m for m in sys.modules
                if m.startswith(("chainer.functions", "chainer.links"))
            ),
            "functions": len(plugins.names("functions")),
        }))
        """
    )
    # Registering names from the static list: the catalogue (hundreds of
    # modules, 0.6 s) stays unimported; what remains is pluggy and
    # importlib.metadata.
    assert out["catalogue"] == []
    assert out["functions"] > 200
    assert out["added"] < 150, out
    assert out["took"] < 0.4, out


def test_static_name_lists_match_the_catalogue():
    import chainer.functions as F
    import chainer.links as L

    # The packages' __all__ are built from the lists; what can drift is the
    # list against what the catalogue really defines.
    assert list(links_names.FUNCTIONS) == sorted(F.__all__)
    assert list(links_names.LINKS) == sorted(L.__all__)
    for package, names in ((F, links_names.FUNCTIONS), (L, links_names.LINKS)):
        undefined = [name for name in names if name not in vars(package)]
        assert undefined == [], f"{package.__name__} does not define {undefined}"
        public = {
            name
            for name, value in vars(package).items()
            if not name.startswith("_") and callable(value)
        }
        assert public <= set(names), f"not in the lists: {public - set(names)}"


_LAZY_BACKEND = {
    "lazyarr": """
        class LazyArray:
            pass

        class SubArray(LazyArray):
            pass
        """,
    "lazydev": """
        import numpy

        import lazyarr
        from chainer import backend

        class LazyDevice(backend.Device):
            xp = numpy
            name = "@lazy"
            supported_array_types = (lazyarr.LazyArray,)

            @staticmethod
            def from_array(array):
                return LazyDevice()

            def send_array(self, array):
                return array
        """,
    "lazy_plugin": """
        from chainer import plugins

        @plugins.hookimpl
        def register_backends():
            return {
                "lazy": {
                    "device": "lazydev:LazyDevice",
                    "array_types": ["lazyarr:LazyArray"],
                }
            }
        """,
}


def test_declared_array_types_are_matched_without_importing(tmp_path):
    info = tmp_path / "lazy_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: lazy-dist\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text("[chainer.plugins]\nlazy = lazy_plugin\n")
    for name, source in _LAZY_BACKEND.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    out = _run(
        """
        import json
        import sys

        import chainer.links as L
        from chainer import backend

        L.Linear(2, 2)
        backend.get_array_module(object())
        before = "lazydev" in sys.modules

        import lazyarr

        device = backend.get_device_from_array(lazyarr.SubArray())
        print(json.dumps({
            "before": before,
            "after": "lazydev" in sys.modules,
            "device": type(device).__name__,
        }))
        """,
        site=tmp_path,
    )
    assert out == {"before": False, "after": True, "device": "LazyDevice"}


# --------------------------------------------------------------------------
# Kernels: string keys, MRO lookup, cache
# --------------------------------------------------------------------------


class _Base(function_node.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] + 1,)


class _Inherits(_Base):
    pass


class _OwnForward(_Base):
    def forward(self, inputs):
        return (inputs[0] - 1,)


def _kernel_plugin(kernels):
    module = types.ModuleType("laziness_kernel_plugin")

    @plugins.hookimpl
    def register_kernels():
        return kernels

    module.register_kernels = register_kernels
    return module


def _apply(node_class):
    (y,) = node_class().apply((numpy.zeros(1, numpy.float32),))
    return float(y.array[0])


def test_kernel_applies_to_subclasses_without_their_own_forward():
    name = plugins.register(
        _kernel_plugin({(_Base, "numpy"): lambda node, xs: (xs[0] + 100,)})
    )
    try:
        assert _apply(_Base) == 100
        assert _apply(_Inherits) == 100
        assert _apply(_OwnForward) == -1
    finally:
        plugins.unregister(name)
    # The per-class cache went with the registration.
    assert _apply(_Inherits) == 1
    assert len(function_node._kernel_overrides) == 0


def test_string_kernel_keys_are_not_imported_at_registration(tmp_path, monkeypatch):
    (tmp_path / "kernel_target_mod.py").write_text(
        textwrap.dedent(
            """
            from chainer import function_node

            class Node(function_node.FunctionNode):
                def forward(self, inputs):
                    return (inputs[0] + 1,)

            def kernel(node, inputs):
                return (inputs[0] + 7,)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    name = plugins.register(
        _kernel_plugin(
            {("kernel_target_mod:Node", "numpy"): "kernel_target_mod:kernel"}
        )
    )
    try:
        assert "kernel_target_mod" not in sys.modules
        assert plugins.names("kernels") == [("kernel_target_mod:Node", "numpy")]
        import kernel_target_mod

        assert _apply(kernel_target_mod.Node) == 7
        assert plugins.get_kernel(kernel_target_mod.Node, "numpy") is (
            kernel_target_mod.kernel
        )
    finally:
        plugins.unregister(name)
        sys.modules.pop("kernel_target_mod", None)


def test_no_kernel_keeps_the_cache_empty():
    # apply's fast exit: an empty cache means "no kernel registered".
    assert not _dispatch.kernels
    assert (_Base, "numpy") not in function_node._kernel_overrides
    assert _apply(_Base) == 1
    assert len(function_node._kernel_overrides) == 0
    assert chainer.backend.get_array_module(numpy.zeros(1)) is numpy


def test_dispatch_is_a_leaf_module():
    import ast
    import pathlib

    tree = ast.parse(pathlib.Path(_dispatch.__file__).read_text())
    imported = [
        alias.name if isinstance(node, ast.Import) else node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert not [name for name in imported if name and name.startswith("chainer")]


def test_the_first_op_loads_the_registry_and_installed_kernels_apply():
    # A script that only calls F.* on NumPy arrays (no Link, no device
    # lookup) still gets the kernels of installed plugins from its first op.
    pytest.importorskip("chainer_cpu")
    out = _run(
        """
        import json
        import sys

        import numpy

        import chainer
        import chainer.functions as F

        before = "chainer.plugins" in sys.modules
        F.relu(numpy.ones(3, numpy.float32))
        from chainer import _dispatch, plugins

        print(json.dumps({
            "before": before,
            "loaded": plugins._state.loaded,
            "kernels": len(_dispatch.kernels),
        }))
        """
    )
    assert out["before"] is False
    assert out["loaded"] is True
    assert out["kernels"] > 0


def test_without_kernels_the_first_op_leaves_the_fast_exit():
    out = _run(
        """
        import json

        import numpy

        import chainer
        import chainer.functions as F
        from chainer import function_node

        marked = bool(function_node._kernel_overrides)
        F.relu(numpy.ones(3, numpy.float32))
        print(json.dumps({
            "marked": marked,
            "after": bool(function_node._kernel_overrides),
        }))
        """,
        CHAINER_DISABLE_PLUGIN_AUTOLOAD="1",
    )
    # Before the first op the cache holds its marker, so apply looks up and
    # the lookup loads the registry; with no kernels registered it is empty
    # again, and later ops skip the lookup.
    assert out == {"marked": True, "after": False}
