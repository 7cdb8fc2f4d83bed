"""Links: the building blocks of models (``Link``, ``Chain``, ``ChainList``)."""

from __future__ import annotations

import collections
import contextlib
import copy as copy_module
import operator
import warnings
from collections.abc import Iterator
from typing import Any
from typing import Self

import numpy

from chainer import backend
from chainer import device_resident
from chainer import link_hook
from chainer import variable

_COPY_MODES = ("share", "copy", "init")


def _is_shape(value) -> bool:
    if value is None:
        return True
    if isinstance(value, (tuple, list)):
        return all(_is_shape(v) and v is not None for v in value)
    try:
        return operator.index(value) >= 0
    except TypeError:
        return False


def _shape_and_dtype(name, value):
    # Old-style ``Link(W=(3, 2))`` or ``Link(W=((3, 2), numpy.float64))``.
    if _is_shape(value):
        return value, numpy.float32
    if isinstance(value, tuple) and len(value) == 2 and _is_shape(value[0]):
        return value[0], value[1]
    raise TypeError(
        f"invalid initial parameter {name!r}: expected a shape or a "
        f"(shape, dtype) pair, got {value!r}"
    )


def _check_copy_mode(mode) -> None:
    if mode not in _COPY_MODES:
        raise ValueError(
            "The 'mode' argument should be either 'init', 'copy', or 'share'. "
            f"But {mode!r} was given."
        )


class Link(device_resident.DeviceResident):
    """Building block of model definitions.

    A link holds parameters (:class:`~chainer.Parameter`, the targets of
    optimization) and persistent values (arrays, scalars or other
    serializable objects, e.g. running statistics of batch normalization).
    Both are attributes of the link. Parameters are registered by assigning
    them inside :meth:`init_scope`, or with :meth:`add_param`; persistent
    values with :meth:`add_persistent` or :meth:`register_persistent`.
    Only these are saved and loaded by serializers and moved across devices.

    Links are callable: ``link(*args)`` runs the link hooks and the
    :meth:`forward` method that subclasses define.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> class Scale(chainer.Link):
        ...     def __init__(self, n):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(1.0, (n,))
        ...
        ...     def forward(self, x):
        ...         return self.W * x
        >>> Scale(3)(np.ones(3, 'f')).array
        array([1., 1., 1.], dtype=float32)

    Args:
        params: Deprecated old style: names to shapes, or to
            ``(shape, dtype)`` pairs, of parameters to create (NaN-filled).

    Attributes:
        name (str): Name of this link, given by the parent chain (if exists).
    """

    _within_init_scope = False
    _local_link_hooks: collections.OrderedDict | None = None

    def __init__(self, **params: Any) -> None:
        super().__init__()
        self._params: set[str] = set()
        self._persistent: set[str] = set()
        self.name: str | None = None
        if params:
            warnings.warn(
                "Passing parameter shapes to Link() is deprecated; register "
                "chainer.Parameter objects inside `with self.init_scope():`.",
                DeprecationWarning,
            )
            for name, value in params.items():
                shape, dtype = _shape_and_dtype(name, value)
                self.add_param(name, shape, dtype=dtype)

    def _check_init_called(self) -> None:
        # A subclass whose __init__ forgets super().__init__() has no
        # registries; say so instead of failing on a missing attribute.
        if "_params" not in self.__dict__:
            raise RuntimeError("Link.__init__() has not been called.")

    # -- registration ------------------------------------------------------
    @property
    def within_init_scope(self) -> bool:
        """True if the current code is inside of an initialization scope."""
        return self._within_init_scope

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """Creates an initialization scope.

        Inside the ``with`` block, assigning a :class:`~chainer.Parameter` to
        an attribute registers it as a parameter of this link (and, for
        :class:`Chain`, assigning a link registers it as a child).

        Example:
            >>> import chainer
            >>> class MyLink(chainer.Link):
            ...     def __init__(self):
            ...         super().__init__()
            ...         with self.init_scope():
            ...             self.W = chainer.Parameter(0, (10, 5))
            ...             self.b = chainer.Parameter(0, (5,))
            >>> sorted(name for name, _ in MyLink().namedparams())
            ['/W', '/b']
        """
        self._check_init_called()
        old_flag = self._within_init_scope
        self._within_init_scope = True
        try:
            yield
        finally:
            self._within_init_scope = old_flag

    def __setattr__(self, name: str, value: Any) -> None:
        if self._within_init_scope and isinstance(value, variable.Parameter):
            value.name = name
            self._params.add(name)
            self._persistent.discard(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._params.discard(name)
        self._persistent.discard(name)
        super().__delattr__(name)

    def add_param(
        self, name: str, shape=None, dtype=numpy.float32, initializer=None
    ) -> None:
        """Registers a parameter to the link.

        The parameter is set to the attribute ``name``.

        Args:
            name (str): Name of the parameter, also the attribute name.
            shape (int or tuple of ints): Shape of the parameter array. If
                omitted, the parameter stays uninitialized until
                :meth:`~chainer.Parameter.initialize` is called.
            dtype: Data type of the parameter array.
            initializer: Initializer of the data array. If ``None``, the
                array is filled with NaN; otherwise ``dtype`` is ignored.

        Raises:
            AttributeError: An attribute named ``name`` already exists.
        """
        self._check_init_called()
        if not isinstance(name, str):
            raise TypeError(f"parameter name must be a str, got {type(name).__name__}")
        if name in self.__dict__:
            raise AttributeError(
                f"cannot register a new parameter {name}: attribute exists"
            )
        if initializer is None:
            from chainer import initializers

            initializer = initializers.NaN(dtype)
        param = variable.Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Registers a persistent value to the link.

        The value is saved and loaded by serializers, moved across devices
        (if it is an array) and set to the attribute ``name``.

        Args:
            name (str): Name of the persistent value, also the attribute name.
            value: Value to be registered.

        Raises:
            AttributeError: An attribute named ``name`` already exists.
        """
        if not isinstance(name, str):
            raise TypeError(
                f"persistent value name must be a str, got {type(name).__name__}"
            )
        d = self.__dict__
        if name in d:
            raise AttributeError(
                f"cannot register a new persistent value {name}: attribute exists"
            )
        self._persistent.add(name)
        self._params.discard(name)
        d[name] = value

    def register_persistent(self, name: str) -> None:
        """Registers an existing attribute as a persistent value.

        Args:
            name (str): Name of the attribute.

        Raises:
            AttributeError: The link has no attribute ``name``.
        """
        if not hasattr(self, name):
            raise AttributeError(
                f"cannot register non-existent attribute {name} as a persistent value"
            )
        self._persistent.add(name)
        self._params.discard(name)

    # -- traversal ---------------------------------------------------------
    def params(self, include_uninit: bool = True) -> Iterator[variable.Parameter]:
        """Returns a generator of all parameters under the link hierarchy.

        Args:
            include_uninit (bool): If ``True``, it also generates
                uninitialized parameters.

        Returns:
            A generator object that generates all parameters.
        """
        d = self.__dict__
        for name in sorted(self._params):
            if include_uninit or d[name].array is not None:
                yield d[name]

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Any]]:
        """Returns a generator of all (path, param) pairs under the hierarchy.

        Args:
            include_uninit (bool): If ``True``, it also generates
                uninitialized parameters.

        Returns:
            A generator of ``(path, parameter)`` pairs; paths (e.g.
            ``'/l1/W'``) are relative to this link.
        """
        d = self.__dict__
        for name in sorted(self._params):
            if include_uninit or d[name].array is not None:
                yield "/" + name, d[name]

    def links(self, skipself: bool = False) -> Iterator[Link]:
        """Returns a generator of all links under the hierarchy.

        Args:
            skipself (bool): If ``True``, the generator skips this link and
                starts with the first child link.

        Returns:
            A generator object that generates all links.
        """
        if not skipself:
            yield self

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """Returns a generator of all (path, link) pairs under the hierarchy.

        Args:
            skipself (bool): If ``True``, the generator skips this link and
                starts with the first child link.

        Returns:
            A generator of ``(path, link)`` pairs; this link's path is
            ``'/'`` and a child's is e.g. ``'/predictor/l1'``.
        """
        if not skipself:
            yield "/", self

    def children(self) -> Iterator[Link]:
        """Returns a generator of all child links.

        Returns:
            A generator object that generates all child links.
        """
        return iter(())

    # -- gradients and copies ----------------------------------------------
    def cleargrads(self) -> None:
        """Clears all gradient arrays (sets them to ``None``).

        Call this before the backward computation at every iteration of the
        optimization, since gradients accumulate.
        """
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Initializes all gradient arrays by zero.

        .. deprecated:: v1.15
           Use the more efficient :meth:`cleargrads` instead.
        """
        warnings.warn(
            "Link.zerograds is deprecated. Use Link.cleargrads instead.",
            DeprecationWarning,
        )
        # One warning for the call, not one more per parameter.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for param in self.params():
                param.zerograd()

    def addgrads(self, link: Link) -> None:
        """Accumulates gradient values from given link.

        Each gradient array of ``link`` is added to the corresponding
        gradient of this link, even across host and devices.

        Args:
            link (Link): Source link object.
        """
        src = _source_dict(link)
        dst = self.__dict__
        for name in self._params:
            dst[name].addgrad(_source_entry(src, name, "parameter"))

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copies all parameters (and persistent values) from given link.

        Data arrays are copied, even across host and devices; gradients are
        not.

        Args:
            link (Link): Source link object.
            copy_persistent (bool): If ``True``, persistent values are copied
                too: arrays in place, other values by deep copy.
        """
        src = _source_dict(link)
        dst = self.__dict__
        for name in self._params:
            dst[name].copydata(_source_entry(src, name, "parameter"))
        if not copy_persistent:
            return
        array_types = backend.get_array_types()
        for name in self._persistent:
            d = dst[name]
            s = _source_entry(src, name, "persistent value")
            if isinstance(d, array_types) and isinstance(s, array_types):
                backend.copyto(d, s)
            else:
                dst[name] = copy_module.deepcopy(s)

    def copy(self, mode: str = "share") -> Self:
        """Copies the link hierarchy to a new one.

        Args:
            mode (str): ``'share'`` (default) copies the hierarchy shallowly:
                the parameters are new :class:`~chainer.Parameter` objects
                sharing their data arrays with the original ones (with
                cleared gradients). ``'copy'`` copies everything deeply, so
                the copy starts with the same values but changes
                independently. ``'init'`` copies deeply and then
                re-initializes every initialized parameter with its
                initializer.

        Returns:
            Link: Copied link object. With ``'share'`` its ``name`` is reset
            to ``None``; the deep copies keep it.
        """
        _check_copy_mode(mode)
        if mode == "share":
            ret = copy_module.copy(self)
            ret._params = set(self._params)
            ret._persistent = set(self._persistent)
            if self._local_link_hooks is not None:
                ret._local_link_hooks = collections.OrderedDict(self._local_link_hooks)
            d = ret.__dict__
            for name in ret._params:
                param = copy_module.copy(d[name])
                param.grad = None
                d[name] = param
            ret.name = None
        else:
            ret = copy_module.deepcopy(self)
            if mode == "init":
                for param in ret.params(include_uninit=False):
                    device = param.device
                    param.initialize(param.shape)
                    if param.device != device:
                        param.to_device(device)
        return ret

    def repeat(self, n_repeat: int, mode: str = "init"):
        """Repeats this link multiple times to make a :class:`~chainer.Sequential`.

        Args:
            n_repeat (int): Number of copies; zero or less gives an empty
                Sequential.
            mode (str): Copy mode of every repetition, as in :meth:`copy`
                (``'init'`` by default, so the copies get new initial values).

        Returns:
            ~chainer.Sequential: A Sequential of ``n_repeat`` copies.

        Example:
            >>> import chainer
            >>> class Block(chainer.Link):
            ...     def forward(self, x):
            ...         return x
            >>> len(Block().repeat(3))
            3
        """
        from chainer import sequential

        if isinstance(n_repeat, bool) or not isinstance(n_repeat, (int, numpy.integer)):
            raise TypeError(f"n_repeat must be an int, got {type(n_repeat).__name__}")
        _check_copy_mode(mode)
        ret = sequential.Sequential()
        for _ in range(n_repeat):
            ret.append(self.copy(mode))
        return ret

    # -- counting, updating, serialization ---------------------------------
    def count_params(self) -> int:
        """Counts the total number of elements of the parameters.

        Uninitialized parameters are not counted; a warning names each.

        Returns:
            int: The total size of the initialized parameters.
        """
        size = 0
        for name, param in self.namedparams():
            if param.array is None:
                warnings.warn(
                    f"Parameter '{name}' has not been initialized, so the resulting "
                    "count will not include the number of parameters in it."
                )
                continue
            size += param.size
        return size

    def enable_update(self) -> None:
        """Enables the update rules of all parameters under the hierarchy."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None:
                rule.enabled = True

    def disable_update(self) -> None:
        """Disables the update rules of all parameters under the hierarchy.

        The optimizer then leaves these parameters unchanged (useful to
        freeze part of a model).
        """
        for param in self.params():
            rule = param.update_rule
            if rule is not None:
                rule.enabled = False

    @property
    def update_enabled(self) -> bool:
        """``True`` if at least one parameter has an enabled update rule."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None and rule.enabled:
                return True
        return False

    def serialize(self, serializer) -> None:
        """Serializes the parameters and persistent values of the link.

        When loading, an uninitialized parameter is initialized with the
        shape of the stored array.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer object.
        """
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            data = serializer(name, param.array)
            if param.array is None and data is not None:
                param.initialize(data.shape)
                backend.copyto(param.array, data)
        for name in sorted(self._persistent):
            d[name] = serializer(name, d[name])

    # -- devices -----------------------------------------------------------
    def device_resident_accept(self, visitor) -> None:
        """Applies the visitor to this link, its parameters and persistents.

        Args:
            visitor (~chainer.device_resident.DeviceResidentsVisitor): Visitor.
        """
        super().device_resident_accept(visitor)
        d = self.__dict__
        for name in sorted(self._params):
            visitor.visit_variable(d[name])
        array_types = backend.get_array_types()
        for name in sorted(self._persistent):
            value = d[name]
            if isinstance(value, array_types):
                d[name] = visitor.visit_array(value)

    # -- hooks and forward -------------------------------------------------
    @property
    def local_link_hooks(self) -> collections.OrderedDict:
        """Ordered dictionary of link hooks registered to this link only.

        Global hooks (used as context managers) apply to every link; these
        apply to this one.
        """
        hooks = self._local_link_hooks
        if hooks is None:
            hooks = self._local_link_hooks = collections.OrderedDict()
        return hooks

    def add_hook(self, hook: link_hook.LinkHook, name: str | None = None) -> Link:
        """Registers a link hook to this link.

        Args:
            hook (~chainer.LinkHook): Link hook to be registered.
            name (str): Name of the hook; ``hook.name`` if omitted.

        Returns:
            Link: ``self``.

        Raises:
            TypeError: ``hook`` is not a :class:`~chainer.LinkHook`.
            KeyError: A hook of that name is already registered.
        """
        if not isinstance(hook, link_hook.LinkHook):
            raise TypeError(f"hook must be a LinkHook, got {type(hook).__name__}")
        if name is None:
            name = hook.name
        hooks = self.local_link_hooks
        if name in hooks:
            raise KeyError(f"link hook {name!r} already exists")
        hooks[name] = hook
        hook.added(self)
        return self

    def delete_hook(self, name: str) -> None:
        """Unregisters the link hook of the given name.

        Args:
            name (str): Name of the link hook to be unregistered.

        Raises:
            KeyError: No hook of that name is registered.
        """
        hooks = self.local_link_hooks
        if name not in hooks:
            raise KeyError(f"link hook {name!r} does not exist")
        hook = hooks.pop(name)
        hook.deleted(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "_params" not in self.__dict__:
            self._check_init_called()
        injected = _injected_call(type(self))
        if injected is not None:
            # A __call__ injected by a mixin after Link in the MRO takes
            # precedence over forward (Chainer's rule, kept for old code).
            bind = getattr(type(injected), "__get__", None)
            forward = injected if bind is None else bind(injected, self, type(self))
        else:
            forward = getattr(self, "forward", None)
            if forward is None:
                raise AttributeError(
                    f"{type(self).__name__} object has no attribute 'forward': "
                    "a link is called through its forward method"
                )
        global_hooks = link_hook._state.link_hooks
        local_hooks = self._local_link_hooks
        if not global_hooks and not local_hooks:
            return forward(*args, **kwargs)
        if local_hooks and global_hooks:
            merged = collections.OrderedDict(global_hooks)
            merged.update(local_hooks)
            hooks = list(merged.values())
        elif local_hooks:
            hooks = list(local_hooks.values())
        else:
            hooks = list(global_hooks.values())
        pre = link_hook._ForwardPreprocessCallbackArgs(self, "forward", args, kwargs)
        for hook in hooks:
            hook.forward_preprocess(pre)
        out = forward(*args, **kwargs)
        post = link_hook._ForwardPostprocessCallbackArgs(
            self, "forward", args, kwargs, out
        )
        for hook in hooks:
            hook.forward_postprocess(post)
        return out

    @classmethod
    def from_params(cls, *args: Any, **kwargs: Any) -> Link:
        """Initializes a link with given parameter arrays.

        Concrete links (e.g. ``chainer.links.Linear``) implement this to build
        themselves from existing arrays; the base class has no parameters to
        build from.

        Raises:
            TypeError: This link class does not implement ``from_params``.
        """
        raise TypeError(f"{cls.__name__} does not implement from_params")

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """Generator of ``(name, value)`` pairs shown in the link's repr.

        The base class has none; links override this to show their
        configuration (e.g. ``in_size`` and ``out_size``).
        """
        return iter(())

    def __repr__(self) -> str:
        specs = ", ".join(f"{k}={v}" for k, v in self.printable_specs)
        return f"{type(self).__name__}({specs})"


# Link subclass -> the __call__ a mixin after Link in its MRO defines (or None).
_injected_calls: dict[type, Any] = {}


def _injected_call(cls):
    try:
        return _injected_calls[cls]
    except KeyError:
        pass
    found = None
    mro = cls.__mro__
    for klass in mro[mro.index(Link) + 1 :]:
        if "__call__" in klass.__dict__:
            found = klass.__dict__["__call__"]
            break
    _injected_calls[cls] = found
    return found


def _source_dict(link) -> dict:
    if not isinstance(link, Link):
        raise TypeError(f"source must be a Link, got {type(link).__name__}")
    return link.__dict__


def _source_entry(src: dict, name: str, what: str):
    try:
        return src[name]
    except KeyError:
        raise ValueError(f"the source link has no {what} named {name!r}") from None


# Chain and ChainList live in their own module to keep this one readable; they
# are part of this module's public API.
from chainer._chain import Chain  # noqa: E402
from chainer._chain import ChainList  # noqa: E402

__all__ = ["Chain", "ChainList", "Link"]
