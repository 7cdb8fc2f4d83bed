"""Chainer: a flexible framework of neural networks (define-by-run).

This is the core distribution (``chainer-core``): autograd, configuration,
backends, links' base classes, optimizers, serializers and the reporter. The
catalogues (``chainer.functions``, ``chainer.links``), training utilities and
datasets come from sibling distributions that install into this namespace.
"""

import os
import pkgutil

import numpy

__path__ = pkgutil.extend_path(__path__, __name__)

from chainer import _dispatch
from chainer import _namespace
from chainer import backend
from chainer import configuration
from chainer import device_resident
from chainer import function
from chainer import function_hook
from chainer import function_node
from chainer import initializer
from chainer import link
from chainer import link_hook
from chainer import optimizer
from chainer import primitive_ops  # installs Variable's operators
from chainer import reporter
from chainer import sequential
from chainer import serializer
from chainer import variable
from chainer._backprop import backward
from chainer._runtime_info import print_runtime_info
from chainer._version import __version__
from chainer.backend import get_device
from chainer.backend import using_device
from chainer.configuration import config
from chainer.configuration import global_config
from chainer.configuration import using_config
from chainer.device_resident import DeviceResident
from chainer.function import Function
from chainer.function import FunctionAdapter
from chainer.function import force_backprop_mode
from chainer.function import no_backprop_mode
from chainer.function_hook import FunctionHook
from chainer.function_hook import get_function_hooks
from chainer.function_node import FunctionNode
from chainer.function_node import grad
from chainer.graph_optimizations.static_graph import static_graph
from chainer.graph_optimizations.static_graph_utilities import static_code
from chainer.initializer import Initializer
from chainer.link import Chain
from chainer.link import ChainList
from chainer.link import Link
from chainer.link_hook import LinkHook
from chainer.optimizer import GradientMethod
from chainer.optimizer import Optimizer
from chainer.optimizer import UpdateRule
from chainer.reporter import DictSummary
from chainer.reporter import Reporter
from chainer.reporter import Summary
from chainer.reporter import get_current_reporter
from chainer.reporter import report
from chainer.reporter import report_scope
from chainer.sequential import Sequential
from chainer.serializer import AbstractSerializer
from chainer.serializer import Deserializer
from chainer.serializer import Serializer
from chainer.utils import _parallel
from chainer.utils import lazy_namespace as _lazy_namespace
from chainer.variable import Parameter
from chainer.variable import Variable
from chainer.variable import as_array
from chainer.variable import as_variable

_namespace.install()

# Subpackages imported on first attribute access, to keep ``import chainer``
# fast; ``import chainer.X`` works as usual. Those of a distribution that is
# not installed answer with an AttributeError naming it.
__getattr__, __dir__ = _lazy_namespace.attach(
    __name__,
    # Chainer 7's chainer.distributions names, also at the top level.
    dict.fromkeys(
        ("Distribution", "cross_entropy", "kl_divergence", "register_kl"),
        "distributions",
    ),
    (
        "_backend",
        "_backprop_utils",
        "_environment_check",
        "backends",
        "computational_graph",
        "cuda",
        "dataset",
        "datasets",
        "distributions",
        "exporters",
        "function_hooks",
        "functions",
        "gradient_check",
        "initializers",
        "iterators",
        "link_hooks",
        "links",
        "memory_layouts",
        "optimizer_hooks",
        "optimizers",
        "plugins",
        "serializers",
        "testing",
        "training",
        "types",
        "utils",
        "warnings",
    ),
    # Chainer 7 shows the module of Variable's operators here; it is
    # chainer-links' chainer.functions.math.basic_math.
    aliases={"basic_math": "functions.math.basic_math"},
)


class _Mixed16:
    """The ``mixed16`` dtype mode: float16 parameters with float32 computation."""

    dtype = numpy.dtype(numpy.float16)

    def __repr__(self):
        return "dtype(mixed16)"


mixed16 = _Mixed16()


class _FallbackType:
    def __repr__(self):
        return "Fallback"


#: Returned by ``forward_chainerx`` to ask for the NumPy/CuPy path.
Fallback = _FallbackType()

#: Whether to suppress warnings of experimental features.
disable_experimental_feature_warning = False


def _env_flag(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return value not in ("0", "", "false", "False")


def _parse_dtype(value):
    if value is None:
        return numpy.dtype(numpy.float32)
    if value == "mixed16":
        return mixed16
    if value in ("float16", "float32", "float64"):
        return numpy.dtype(value)
    raise TypeError(
        f"incorrect dtype name in CHAINER_DTYPE: {value!r} (expected float16, "
        "float32, float64 or mixed16)"
    )


def _set_defaults(gc):
    gc.autotune = False
    gc.cudnn_deterministic = _env_flag("CHAINER_CUDNN_DETERMINISTIC", False)
    gc.cudnn_fast_batch_normalization = _env_flag(
        "CHAINER_CUDNN_FAST_BATCH_NORMALIZATION", False
    )
    gc.debug = _env_flag("CHAINER_DEBUG", False)
    gc.dtype = _parse_dtype(os.environ.get("CHAINER_DTYPE"))
    gc.enable_backprop = True
    gc.in_recomputing = False
    gc.keep_graph_on_report = _env_flag("CHAINER_KEEP_GRAPH_ON_REPORT", False)
    gc.lazy_grad_sum = _env_flag("CHAINER_LAZY_GRAD_SUM", False)
    gc.schedule_func = None
    gc.train = True
    gc.type_check = _env_flag("CHAINER_TYPE_CHECK", True)
    gc.use_cudnn = os.environ.get("CHAINER_USE_CUDNN", "auto")
    gc.use_cudnn_tensor_core = "auto"
    gc.use_ideep = os.environ.get("CHAINER_USE_IDEEP", "never")
    gc.use_static_graph = True
    gc.warn_nondeterministic = _env_flag("CHAINER_WARN_NONDETERMINISTIC", False)
    gc.compute_mode = None
    gc.show_backprop_traceback = False


_set_defaults(global_config)
# Threads, OpenBLAS and malloc are set up at first use (docs/threads.md).
_parallel.at_import()


def is_debug():
    """Returns whether debug mode (NaN/Inf detection, call stacks) is on."""
    return bool(config.debug)


def set_debug(debug):
    """Turns debug mode on or off for the current thread.

    Args:
        debug (bool): New mode.
    """
    config.debug = bool(debug)


class DebugMode:
    """Context manager setting debug mode for its block.

    Args:
        debug (bool): Debug mode inside the block.
    """

    def __init__(self, debug):
        if not isinstance(debug, bool):
            raise TypeError("debug must be a bool")
        self._debug = debug
        self._context = None

    def __enter__(self):
        self._context = using_config("debug", self._debug)
        self._context.__enter__()

    def __exit__(self, *args):
        self._context.__exit__(*args)
        self._context = None


def get_dtype(dtype=None, map_mixed16=None):
    """Resolves the default dtype (``chainer.config.dtype``).

    Args:
        dtype: A dtype or None (use the configured default).
        map_mixed16: What ``mixed16`` resolves to (default float16).

    Returns:
        numpy.dtype: The resolved dtype.
    """
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16:
        return numpy.dtype(map_mixed16 if map_mixed16 is not None else numpy.float16)
    return numpy.dtype(dtype)


def get_array_types():
    """Returns the array types of every loaded backend."""
    return backend.get_array_types()


def get_cpu_array_types():
    """Returns the host array types (``numpy.ndarray``, ``numpy.generic``)."""
    return (numpy.ndarray, numpy.generic)


def is_arrays_compatible(arrays):
    """Returns whether the arrays share one backend and device."""
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return True
    devices = {backend.get_device_from_array(a) for a in arrays}
    return len(devices) == 1


def get_compute_mode():
    """Returns the compute mode; always None (ChainerX modes do not exist)."""
    return config.compute_mode


def should_use_cudnn(level, lowest_version=0):
    """Returns whether cuDNN should be used (delegates to ``chainer.cuda``)."""
    from chainer.backends import cuda

    return cuda.should_use_cudnn(level, lowest_version)


def should_use_cudnn_tensor_core(dtype):
    """Returns whether cuDNN tensor cores should be used."""
    from chainer.backends import cuda

    return cuda.should_use_cudnn_tensor_core(dtype)


def _load_plugins():
    from chainer import plugins

    plugins.ensure_loaded()


# The first FunctionNode.apply (or update rule step) loads the plugin registry,
# so that installed kernel overrides (chainer-cpu's, chainer-cuda's) apply from
# the first op on; importing chainer loads nothing.
_dispatch.set_loader(_load_plugins)
