"""Backend-parameterized tests (``BackendConfig``, ``inject_backend_tests``)."""

from __future__ import annotations

import contextlib
import inspect
import unittest

import chainer
from chainer import backend
from chainer.testing import _bundle
from chainer.testing import attr


class BackendConfig:
    """Backend configuration of one injected test run.

    Entries (attributes, with their defaults): ``use_chainerx`` (False),
    ``chainerx_device`` (None), ``use_cuda`` (False), ``cuda_device`` (None,
    0 when ``use_cuda``), ``use_cudnn`` ('never'), ``cudnn_deterministic``
    (False), ``autotune`` (False), ``cudnn_fast_batch_normalization``
    (False), ``use_ideep`` ('never').

    Used as a context manager, it applies the configuration entries and makes
    its device current.

    Args:
        params (dict): Entries that differ from the defaults.
    """

    _props = (
        ("use_chainerx", False),
        ("chainerx_device", None),
        ("use_cuda", False),
        ("cuda_device", None),
        ("use_cudnn", "never"),
        ("cudnn_deterministic", False),
        ("autotune", False),
        ("cudnn_fast_batch_normalization", False),
        ("use_ideep", "never"),
    )

    def __init__(self, params):
        if not isinstance(params, dict):
            raise TypeError(f"params must be a dict, not {type(params).__name__}")
        self._contexts = []
        self._device = None
        for key, default in self._props:
            setattr(self, key, default)
        known = {key for key, _ in self._props}
        for key, value in params.items():
            if key not in known:
                raise ValueError(f"Parameter {key} is not defined")
            setattr(self, key, value)
        if self.use_chainerx and not isinstance(self.chainerx_device, str):
            raise ValueError(
                "'chainerx_device' must be a string such as 'native:0' "
                "when use_chainerx is True"
            )
        if self.use_cuda and self.cuda_device is None:
            self.cuda_device = 0

    def skip_reason(self):
        """Why this configuration cannot run here, or None if it can.

        Returns:
            str or None: The reason (no CUDA, or an unsupported backend).
        """
        if self.use_chainerx:
            return "ChainerX is not supported by this Chainer"
        if self.use_ideep != "never":
            return "iDeep is not supported by this Chainer"
        if self.use_cuda:
            from chainer.backends import cuda

            if not cuda.available:
                return "CUDA (CuPy with chainer-cuda) is not available"
        return None

    @property
    def device(self):
        """The :class:`~chainer.backend.Device` the test runs on."""
        if self._device is None:
            if self.use_cuda:
                self._device = backend.get_device(f"@cupy:{self.cuda_device}")
            elif self.use_chainerx:
                self._device = backend.ChainerxDevice()
            elif self.use_ideep != "never":
                self._device = backend.get_device("@intel64")
            else:
                self._device = backend.CpuDevice()
        return self._device

    @property
    def xp(self):
        """The array module of :attr:`device`."""
        return self.device.xp

    def get_array(self, np_array):
        """Sends NumPy arrays (or tuples/lists/dicts of them) to :attr:`device`.

        Args:
            np_array: Array or nested structure of arrays.

        Returns:
            The same structure on the device.
        """
        return self.device.send(np_array)

    def __enter__(self):
        stack = contextlib.ExitStack()
        stack.enter_context(chainer.using_config("use_cudnn", self.use_cudnn))
        stack.enter_context(
            chainer.using_config("cudnn_deterministic", self.cudnn_deterministic)
        )
        stack.enter_context(chainer.using_config("autotune", self.autotune))
        stack.enter_context(chainer.using_config("use_ideep", self.use_ideep))
        stack.enter_context(
            chainer.using_config(
                "cudnn_fast_batch_normalization",
                self.cudnn_fast_batch_normalization,
            )
        )
        stack.enter_context(backend.using_device(self.device))
        self._contexts.append(stack)
        return self

    def __exit__(self, typ, value, tb):
        self._contexts.pop().__exit__(typ, value, tb)

    def __repr__(self):
        items = " ".join(f"{k}={getattr(self, k)!r}" for k, _ in self._props)
        return f"<BackendConfig {items}>"

    def get_func_str(self):
        """A string naming the non-default entries, usable in a method name.

        Returns:
            str: e.g. ``'use_cuda_true__cuda_device_0'``; ``'cpu'`` for the
            default configuration.
        """
        parts = []
        for key, default in self._props:
            value = getattr(self, key)
            if value == default and type(value) is type(default):
                continue
            if value is True:
                text = "true"
            elif value is False:
                text = "false"
            else:
                text = "".join(c if c.isalnum() else "_" for c in str(value))
            parts.append(f"{key}_{text}")
        return "__".join(parts) if parts else "cpu"

    def get_pytest_marks(self):
        """pytest markers for this configuration (``gpu`` for CUDA runs).

        Returns:
            list: Marker decorators.
        """
        marks = []
        if self.use_cuda:
            marks.append(attr.multi_gpu(self.cuda_device + 1))
        elif self.use_chainerx and self.chainerx_device.startswith("cuda"):
            index = int(self.chainerx_device.partition(":")[2] or 0)
            marks.append(attr.multi_gpu(index + 1))
        return marks


def _accepts_backend_config(method):
    try:
        params = list(inspect.signature(method).parameters)
    except (TypeError, ValueError):
        return False
    return "backend_config" in params


def _backend_method(impl, config):
    def method(self, *args, **kwargs):
        reason = config.skip_reason()
        if reason is not None:
            raise unittest.SkipTest(reason)
        return impl(self, config, *args, **kwargs)

    method = _bundle.drop_parameter(impl, method, "backend_config")
    for mark in config.get_pytest_marks():
        method = mark(method)
    return method


def _inject(cls, method_names, configs):
    if method_names is None:
        names = [
            n
            for n in _bundle.test_method_names(cls)
            if _accepts_backend_config(getattr(cls, n))
        ]
    else:
        names = method_names
    members = {}
    for name in names:
        impl = getattr(cls, name, None)
        if impl is None or not callable(impl):
            raise ValueError(f"{cls.__name__} has no test method {name!r}")
        # Hide the original: it needs a backend_config argument.
        members[name] = None
        used = set()
        for i, config in enumerate(configs):
            suffix = config.get_func_str()
            if suffix in used:
                suffix = f"{suffix}__{i}"
            used.add(suffix)
            new_name = f"{name}__{suffix}"
            method = _backend_method(impl, config)
            method.__name__ = new_name
            method.__qualname__ = f"{cls.__name__}.{new_name}"
            members[new_name] = method
    return [(cls.__name__, _bundle.derive(cls, cls.__name__, members))]


def inject_backend_tests(method_names, params):
    """Class decorator that runs test methods once per backend configuration.

    Each target method takes a ``backend_config`` argument (a
    :class:`BackendConfig`). It is replaced by one method per entry of
    ``params``, named ``<method>__<config>``. CUDA configurations get the
    ``gpu`` marker and are skipped where CUDA is unavailable.

    Args:
        method_names (list of str or None): Methods to inject into; ``None``
            selects every ``test*`` method with a ``backend_config``
            parameter.
        params (list of dict): Backend configurations (see
            :class:`BackendConfig`); :func:`~chainer.testing.product` helps.

    Returns:
        callable: The class decorator.
    """
    if not (method_names is None or isinstance(method_names, list)):
        raise TypeError("method_names must be either None or a list")
    if not isinstance(params, list) or not all(isinstance(d, dict) for d in params):
        raise TypeError("params must be a list of dicts")
    configs = [BackendConfig(p) for p in params]

    def decorator(target):
        return _bundle.expand(target, lambda cls: _inject(cls, method_names, configs))

    return decorator
