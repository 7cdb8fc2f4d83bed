"""Update rules and hyperparameters, exported by :mod:`chainer.optimizer`."""

from __future__ import annotations

import copy
from typing import Any

import numpy

from chainer import _dispatch
from chainer import backend
from chainer import function_node
from chainer import serializer as serializer_module
from chainer import variable

_TIMINGS = ("pre", "post", "auto")


def register_hook(pre, post, hook, name, timing):
    """Adds ``hook`` to the ``pre`` or ``post`` dict (Optimizer and UpdateRule)."""
    if not callable(hook):
        raise TypeError(f"hook function is not callable: {hook!r}")
    if timing not in _TIMINGS:
        raise ValueError(f"timing must be one of {_TIMINGS}; got {timing!r}")
    if timing == "auto":
        # User functions have no ``timing``; they run before the update. An
        # unrelated non-string ``timing`` attribute (e.g. on a mock) is not a
        # request either.
        timing = getattr(hook, "timing", "pre")
        if not isinstance(timing, str):
            timing = "pre"
        elif timing not in ("pre", "post"):
            raise ValueError(
                f"hook {hook!r} has invalid timing {timing!r}; expected 'pre' or 'post'"
            )
    if name is None:
        name = getattr(hook, "name", None) or getattr(hook, "__name__", None)
        if name is None:
            raise ValueError(f"cannot infer a name for hook {hook!r}; pass name=")
    if name in pre or name in post:
        raise KeyError(f'hook "{name}" already exists')
    (pre if timing == "pre" else post)[name] = hook


def unregister_hook(pre, post, name):
    """Removes the hook called ``name`` from ``pre`` or ``post``."""
    if name in pre:
        del pre[name]
    elif name in post:
        del post[name]
    else:
        raise KeyError(f'no hook named "{name}" is registered')


def _move_state(state, param_array):
    # Keeps state arrays on the parameter's device; ``param.to_device`` does
    # not know about optimizer states, and deserialized states live on CPU.
    if type(param_array) is numpy.ndarray:
        for key, value in state.items():
            if type(value) is not numpy.ndarray and backend.is_array_supported(value):
                state[key] = backend.CpuDevice().send(value)
        return
    device = backend.get_device_from_array(param_array)
    for key, value in state.items():
        if (
            backend.is_array_supported(value)
            and backend.get_device_from_array(value) != device
        ):
            state[key] = device.send(value)


def _dtype_of(param):
    array = param.array
    if array is not None:
        return array.dtype
    try:
        # An uninitialized Parameter knows its dtype from its initializer.
        return param.dtype
    except (AttributeError, RuntimeError):
        return None


class Hyperparameter:
    """Set of hyperparameter entries of an optimizer.

    Entries are plain attributes. An entry missing here is looked up in the
    parent, so an update rule's hyperparameter (whose parent is the
    optimizer's) follows the optimizer's values unless it sets its own.

    Args:
        parent (Hyperparameter): Parent hyperparameter.
    """

    __module__ = "chainer.optimizer"

    def __init__(self, parent=None):
        self._parent = parent

    def __getattr__(self, name: str) -> Any:
        # Only called for names missing from this object. Update rules read
        # hyperparameters on every step, so walk the chain without nested
        # lookups and exceptions.
        node = self.__dict__.get("_parent")
        while node is not None:
            if not isinstance(node, Hyperparameter):
                return getattr(node, name)
            entries = node.__dict__
            if name in entries:
                return entries[name]
            node = entries.get("_parent")
        if "_parent" not in self.__dict__:
            # Half-built object (copy/pickle probing for special methods).
            raise AttributeError(name)
        raise AttributeError(f"hyperparameter {name!r} is not set")

    def __setattr__(self, name: str, value: Any) -> None:
        # Declared so that type checkers accept arbitrary entries.
        object.__setattr__(self, name, value)

    def __repr__(self):
        d = self.get_dict()
        body = ", ".join(f"{k}={d[k]}" for k in sorted(d))
        return f"Hyperparameter({body})"

    @property
    def parent(self):
        """Parent hyperparameter object (or None)."""
        return self._parent

    def get_dict(self):
        """Converts the hyperparameter into a dictionary.

        Returns:
            dict: Entries of this object and its ancestors; the nearest
            definition wins.
        """
        d = {} if self._parent is None else self._parent.get_dict()
        for key, value in self.__dict__.items():
            if key != "_parent":
                d[key] = value
        return d


class HyperparameterProxy:
    """Property that forwards to an entry of ``self.hyperparam``.

    Optimizers declare e.g. ``lr = HyperparameterProxy('lr')`` so that
    ``optimizer.lr`` reads and writes ``optimizer.hyperparam.lr``.

    Args:
        attr_name (str): Name of the hyperparameter entry.
    """

    __module__ = "chainer.optimizer"

    def __init__(self, attr_name):
        self._attr_name = attr_name
        self.__doc__ = f"Alias to ``self.hyperparam.{attr_name}``"

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj, value):
        setattr(obj.hyperparam, self._attr_name, value)


class UpdateRule:
    """Base class of all update rules.

    An update rule updates one parameter from its gradient and its own
    state (a dict of arrays created by :meth:`init_state` on the first
    update). Concrete rules implement :meth:`update_core_cpu` (written
    against the array module, so it also serves other backends) and
    optionally :meth:`update_core_gpu`. These are also called for a
    parameter whose gradient (or data) is None, which they leave unchanged.

    Args:
        parent_hyperparam (Hyperparameter): Parent of :attr:`hyperparam`,
            usually the optimizer's hyperparameter.

    Attributes:
        enabled (bool): If False, :meth:`update` does nothing.
        hyperparam (Hyperparameter): Hyperparameters of the rule.
        t (int): Number of updates made by this rule.
    """

    __module__ = "chainer.optimizer"

    is_elementwise = False

    def __init__(self, parent_hyperparam=None):
        self._pre_update_hooks = {}
        self._post_update_hooks = {}
        self._state = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param = None

    @property
    def state(self):
        """State dictionary (None until the first update)."""
        return self._state

    def add_hook(self, hook, name=None, timing="auto"):
        """Adds a hook function, called as ``hook(rule, param)``.

        Args:
            hook (callable): Hook function.
            name (str): Name of the hook; defaults to ``hook.name`` or
                ``hook.__name__``.
            timing (str): ``'pre'`` (before the update), ``'post'`` (after
                it) or ``'auto'`` (``hook.timing`` if it exists, else 'pre').
        """
        register_hook(
            self._pre_update_hooks, self._post_update_hooks, hook, name, timing
        )

    def remove_hook(self, name):
        """Removes the hook of the given name.

        Args:
            name (str): Name of the hook to remove.
        """
        unregister_hook(self._pre_update_hooks, self._post_update_hooks, name)

    def update(self, param):
        """Invokes the hook functions and updates the parameter.

        Does nothing if the rule is disabled. Otherwise :attr:`t` is
        incremented, the state is initialized on the first update of an
        initialized parameter, a gradient scaled by
        ``loss.backward(loss_scale=...)`` is unscaled, and the pre-update
        hooks, :meth:`update_core` and the post-update hooks run in this
        order. They also run for a parameter without a gradient (or without
        data); the built-in rules then leave it unchanged. With
        :meth:`use_fp32_update`, a float16 parameter is updated through a
        float32 copy that hooks and :meth:`update_core` receive instead.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        if not self.enabled:
            return
        self.t += 1
        if self._use_fp32_update and _dtype_of(param) == numpy.float16:
            self._update_fp32(param)
            return
        self._run(param)

    def _run(self, param):
        if param.array is not None:
            if self._state is None:
                self._state = {}
                with param.device:
                    self.init_state(param)
            else:
                _move_state(self._state, param.array)
        loss_scale = param._loss_scale
        if loss_scale is not None:
            grad = param.grad
            if grad is not None:
                grad /= loss_scale
                # The gradient is unscaled now; hooks must not compensate again.
                param._loss_scale = None
        for hook in self._pre_update_hooks.values():
            hook(self, param)
        self.update_core(param)
        for hook in self._post_update_hooks.values():
            hook(self, param)

    def _update_fp32(self, param):
        # The update runs on a float32 master copy so that small steps are
        # not lost to float16 rounding; the result is cast back in place.
        array = param.array
        if array is None:
            # Nothing to copy yet: the rule sees an uninitialized float32
            # stand-in and the parameter stays as it is.
            from chainer import initializers

            stand_in = variable.Parameter(
                initializers.NaN(numpy.float32), name=param.name
            )
            self._run(stand_in)
            return
        master = self._fp32_param
        if master is None or master.array.shape != array.shape:
            master = variable.Variable(array.astype(numpy.float32), name=param.name)
            self._fp32_param = master
        elif type(master.array) is not type(array) or (
            type(array) is not numpy.ndarray and master.device != param.device
        ):
            master.array = param.device.send(master.array)
        grad = param.grad
        if grad is not None:
            grad = grad.astype(numpy.float32)
            loss_scale = param._loss_scale
            if loss_scale is not None:
                grad /= loss_scale
        master.grad = grad
        self._run(master)
        array[...] = master.array
        master.grad = None

    def update_core(self, param):
        """Updates the parameter, dispatching on its array module.

        NumPy parameters go to :meth:`update_core_cpu`; parameters of other
        backends (CuPy...) go to :meth:`update_core_gpu` with their device
        made current, unless a plugin registered a kernel override for
        ``(type(self), backend name)`` (``'numpy'``, ``'cupy'``...; see
        ``register_kernels``): then ``kernel(self, param)`` does the update
        instead, for a parameter with a gradient (without one there is
        nothing to do). An
        uninitialized parameter is dispatched on the device it belongs to.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        array = param.array
        if type(array) is numpy.ndarray or isinstance(array, numpy.ndarray):
            kernel = None
            if _dispatch.kernel_cache:
                kernel = _dispatch.kernel_cache[type(self), "numpy"]
            if kernel is None:
                self.update_core_cpu(param)
            elif param.grad is not None:
                kernel(self, param)
            return
        if array is None and param.device.xp is numpy:
            # An uninitialized parameter goes where its data will live.
            self.update_core_cpu(param)
            return
        kernel = None
        if _dispatch.kernel_cache and array is not None:
            kernel = _dispatch.kernel_cache[
                type(self), function_node._backend_name(array)
            ]
        with param.device:
            if kernel is None:
                self.update_core_gpu(param)
            elif param.grad is not None:
                kernel(self, param)

    def update_core_cpu(self, param):
        """Updates a parameter held in a NumPy array.

        Subclasses implement the update here (or override
        :meth:`update_core`).

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        raise TypeError(
            f"{type(self).__name__} does not implement update_core_cpu(param) "
            "or update_core(param)"
        )

    def update_core_gpu(self, param):
        """Updates a parameter held on a device backend (e.g. CuPy).

        The default runs :meth:`update_core_cpu`, which is written against
        the array module of the parameter.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        self.update_core_cpu(param)

    def update_core_chainerx(self, param):
        """ChainerX update; ChainerX is not supported, so this raises.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        raise RuntimeError("ChainerX is not supported by this Chainer")

    def init_state(self, param):
        """Initializes the state (``self.state``) for the given parameter.

        The default adds nothing. Rules with state fill ``self.state`` with
        arrays made on the parameter's device.

        Args:
            param (~chainer.Variable): Parameter variable; its array gives
                the shape, dtype and device of the state.
        """

    def serialize(self, serializer):
        """Serializes or deserializes the update rule (``t`` and the state).

        Loading into a rule whose state does not exist yet creates the state
        entries from the stored arrays; if they are missing, the state is
        left to be initialized on the first update.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        self._serialize(serializer, None)

    def _serialize(self, serializer, param):
        # ``param`` (the parameter this rule updates, if the caller knows
        # it) gives the shapes that new state entries must have.
        self.t = serializer("t", self.t)
        state = self._state
        if state is not None:
            for key in list(state):
                state[key] = serializer(key, state[key])
            return
        if not isinstance(serializer, serializer_module.Deserializer):
            return
        # init_state runs on a shallow copy sharing the new state dict, which
        # names the entries to load (and their expected shapes when the
        # parameter is known).
        self._state = state = {}
        probe = copy.copy(self)
        param_shape = None
        if param is not None and param.array is not None:
            param_shape = tuple(param.shape)
            dummy = numpy.zeros(param_shape, dtype=param.dtype)
        else:
            dummy = numpy.zeros(1, dtype=numpy.float32)
        try:
            probe.init_state(variable.Variable(dummy, grad=dummy.copy()))
            expected = {key: getattr(v, "shape", None) for key, v in state.items()}
            for key in list(state):
                try:
                    value = serializer(key, None)
                except KeyError:
                    if self.enabled:
                        raise
                    value = None
                if value is None:
                    # Missing from the snapshot: the state is initialized on
                    # the first update instead.
                    self._state = None
                    return
                shape = getattr(value, "shape", None)
                if (
                    expected[key] is not None
                    and param_shape is not None
                    and shape != expected[key]
                ):
                    raise ValueError(
                        f"update rule state {key!r} of shape {shape} does not "
                        f"fit the parameter of shape {param_shape} (expected "
                        f"{expected[key]})"
                    )
                state[key] = value
        except BaseException:
            self._state = None
            raise

    def use_fp32_update(self, flag=True):
        """Enables the float32 master-copy update for float16 parameters.

        Args:
            flag (bool): Whether to use it.
        """
        self._use_fp32_update = flag
