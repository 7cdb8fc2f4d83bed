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
        """A string naming every entry, usable in a class or method name.

        Returns:
            str: ``'<entry>_<value>'`` for each entry joined with ``'__'``,
            e.g. ``'use_chainerx_false__chainerx_device_None__use_cuda_false__
            ...__use_ideep_never'``. Injected test classes are named with it.
        """
        parts = []
        for key, _ in self._props:
            value = getattr(self, key)
            if value is True:
                text = "true"
            elif value is False:
                text = "false"
            else:
                text = str(value)
            parts.append(f"{key}_{text}")
        return "__".join(parts)

    def get_pytest_marks(self):
        """pytest markers for this configuration.

        ``chainerx`` for ChainerX runs, ``gpu`` for CUDA runs (also ChainerX on
        a ``cuda`` device), ``cudnn`` when a CUDA run uses cuDNN, ``multi_gpu``
        when the device index is 1 or more, ``ideep`` for iDeep runs. Select
        or deselect them with ``-m``.

        Returns:
            list: Marker decorators.
        """
        marks = []
        if self.use_chainerx:
            marks.append(attr.chainerx)
            backend_name, _, index = self.chainerx_device.partition(":")
            index = int(index or 0)
            if backend_name == "cuda":
                marks.append(attr.gpu)
                if index >= 1:
                    marks.append(attr.multi_gpu(index + 1))
        elif self.use_cuda:
            marks.append(attr.gpu)
            if self.use_cudnn != "never":
                marks.append(attr.cudnn)
            if self.cuda_device >= 1:
                marks.append(attr.multi_gpu(self.cuda_device + 1))
        elif self.use_ideep != "never":
            marks.append(attr.ideep)
        return marks


def _config_parameter(method):
    # The parameter that receives the configuration: the first one after
    # self (``backend_config`` by convention; stacked injections fill
    # ``backend_config0``, ``backend_config1``... from the innermost one).
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )
    if len(params) < 2 or params[1].kind not in positional:
        return None
    return params[1].name


def _backend_method(impl, config):
    def method(self, *args, **kwargs):
        reason = config.skip_reason()
        if reason is not None:
            raise unittest.SkipTest(reason)
        return impl(self, config, *args, **kwargs)

    method = _bundle.drop_parameter(impl, method, _config_parameter(impl))
    for mark in config.get_pytest_marks():
        method = mark(method)
    return method


def _inject(cls, method_names, configs):
    if method_names is None:
        names = [
            n
            for n in _bundle.test_method_names(cls)
            if _config_parameter(getattr(cls, n)) is not None
        ]
    else:
        names = list(method_names)
        for name in names:
            if not callable(getattr(cls, name, None)):
                raise ValueError(f"{cls.__name__} has no test method {name!r}")
    cases = []
    if method_names is not None:
        # The methods that are not injected run once, in a class that keeps
        # the original name.
        cases.append(
            (cls.__name__, _bundle.derive(cls, cls.__name__, dict.fromkeys(names)))
        )
    others = [n for n in _bundle.test_method_names(cls) if n not in names]
    used = set()
    for config in configs:
        name = f"{cls.__name__}_{config.get_func_str()}"
        if name in used:
            # Same entries as an earlier configuration: the same test run.
            continue
        used.add(name)
        members = {n: _backend_method(getattr(cls, n), config) for n in names}
        if method_names is not None:
            members.update(dict.fromkeys(others))
        cases.append((name, _bundle.derive(cls, name, members)))
    return cases


def inject_backend_tests(method_names, params):
    """Class decorator that runs test methods once per backend configuration.

    Each target method takes a ``backend_config`` argument (a
    :class:`BackendConfig`). The class is replaced by one subclass per entry
    of ``params``, named ``<Class>_<config.get_func_str()>``, whose target
    methods receive that configuration. When ``method_names`` is given, the
    other test methods run once, in a subclass keeping the class name, and
    are left out of the per-configuration classes. The methods of each
    configuration carry its markers (``gpu``, ``cudnn``, ``chainerx``,
    ``ideep``, ``multi_gpu``; see :meth:`BackendConfig.get_pytest_marks`), so
    ``-m "not gpu"`` deselects them; a configuration that cannot run here is
    skipped.

    Args:
        method_names (list of str or None): Methods to inject into; ``None``
            selects every ``test*`` method that takes an argument besides
            ``self``. The configuration is passed as that first argument
            (stacked decorators fill the arguments from the innermost one).
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
