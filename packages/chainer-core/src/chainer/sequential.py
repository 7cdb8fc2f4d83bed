"""``Sequential``: a model whose layers run one after another."""

from __future__ import annotations

import copy as copy_module
import inspect
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from typing import Any

from chainer import link as link_module


class _LayerError(TypeError, ValueError):
    # Bad operand of a Sequential: a TypeError, and the ValueError that
    # Chainer raises for it.
    pass


def _check_layer(layer) -> None:
    if not callable(layer):
        raise _LayerError(
            "All elements of a Sequential must be callable (links or functions), "
            f"but {layer!r} of type {type(layer).__name__} is not callable"
        )


def _check_sequential(other, op) -> None:
    if not isinstance(other, Sequential):
        raise _LayerError(
            f"the {op} operator of Sequential takes a Sequential, "
            f"not {type(other).__name__}"
        )


def _is_lambda(layer) -> bool:
    return getattr(layer, "__name__", None) == "<lambda>"


def _layer_type_name(layer) -> str:
    if isinstance(layer, link_module.Link):
        return type(layer).__name__
    return getattr(layer, "__name__", type(layer).__name__)


def _layer_repr(layer) -> str:
    if _is_lambda(layer):
        # A lambda's repr says nothing; its source says what it does.
        try:
            return inspect.getsource(layer).strip().rstrip(",")
        except (OSError, TypeError):
            pass
    return repr(layer)


class Sequential(link_module.ChainList):
    """Sequential model which has a single-stream forward pass.

    A Sequential holds layers, links or any other callables (such as
    functions of ``chainer.functions``), and its forward pass calls them in
    order, feeding each the output of the previous one (a tuple output is
    unpacked into positional arguments). It behaves like a list of layers:
    it supports indexing and slicing, ``len``, iteration, ``+``,
    :meth:`append`, :meth:`insert`, :meth:`pop` and so on.

    The links among the layers are its children (as in
    :class:`~chainer.ChainList`), named by their position among the links:
    in ``Sequential(l1, relu, l2)`` the parameters are ``'/0/W'`` and
    ``'/1/W'``.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> model = chainer.Sequential(lambda x: x * 2, lambda x: x + 1)
        >>> model(np.array([1, 2]))
        array([3, 5])

    Args:
        layers: Links and callables, in the order of the forward pass.
    """

    def __init__(self, *layers: Callable) -> None:
        super().__init__()
        self._layers: list[Callable] = []
        for layer in layers:
            self.append(layer)

    # -- bookkeeping -------------------------------------------------------
    def _sync_children(self) -> None:
        children: list[link_module.Link] = []
        seen: set[int] = set()
        for layer in self._layers:
            if isinstance(layer, link_module.Link) and id(layer) not in seen:
                seen.add(id(layer))
                layer.name = str(len(children))
                children.append(layer)
        for old in self._children:
            if id(old) not in seen:
                old.name = None
        self._children = children

    # -- list interface ----------------------------------------------------
    def __len__(self) -> int:
        return len(self._layers)

    # Chainer's Sequential iterates over every layer, plain callables included,
    # so it widens ChainList's Iterator[Link].
    def __iter__(self) -> Iterator[Callable]:  # type: ignore[override]
        return iter(self._layers)

    def __reversed__(self) -> Iterator[Callable]:
        return reversed(self._layers)

    def __getitem__(self, i):
        """Returns the layer at index ``i``, or a Sequential of a slice of layers."""
        if isinstance(i, slice):
            return Sequential(*self._layers[i])
        return self._layers[i]

    def __setitem__(self, i: int, layer: Callable) -> None:  # type: ignore[override]
        if isinstance(i, slice):
            raise TypeError("Sequential does not support slice assignment")
        _check_layer(layer)
        self._layers[i] = layer
        self._sync_children()

    def __delitem__(self, i) -> None:
        del self._layers[i]
        self._sync_children()

    def __add__(self, other: Any) -> Sequential:
        _check_sequential(other, "+")
        return Sequential(*self._layers, *other._layers)

    def __iadd__(self, other: Any) -> Sequential:
        _check_sequential(other, "+=")
        self.extend(other)
        return self

    # -- copy and pickle ---------------------------------------------------
    # Copies go through __copy__/__deepcopy__ so that only pickling sees the
    # lambda check of __reduce_ex__.
    def __copy__(self) -> Sequential:
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo) -> Sequential:
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy_module.deepcopy(self.__dict__, memo))
        return new

    def __reduce_ex__(self, protocol):
        if any(_is_lambda(layer) for layer in self._layers):
            raise ValueError(
                "This Sequential has a lambda function among its layers, and "
                "lambdas cannot be pickled: use functools.partial or a def "
                "function instead (or the dill package)"
            )
        return super().__reduce_ex__(protocol)

    def append(self, layer: Callable) -> None:
        """Appends a layer at the end.

        Args:
            layer (callable): A link or any other callable.

        Raises:
            TypeError: ``layer`` is not callable.
        """
        _check_layer(layer)
        self._layers.append(layer)
        if isinstance(layer, link_module.Link) and all(
            c is not layer for c in self._children
        ):
            layer.name = str(len(self._children))
            self._children.append(layer)

    def add_link(self, link: link_module.Link) -> None:
        """Appends a link at the end (see :meth:`append`).

        Args:
            link (~chainer.Link): The link to append.
        """
        self._check_link(link)
        self.append(link)

    def extend(self, sequential: Iterable[Callable]) -> None:
        """Appends all layers of the given Sequential (or iterable of layers).

        Args:
            sequential: A :class:`Sequential` or any iterable of callables.
        """
        for layer in list(sequential):
            self.append(layer)

    def insert(self, i: int, layer: Callable) -> None:
        """Inserts a layer before index ``i``.

        Args:
            i (int): Position; ``-len(self) <= i <= len(self)``.
            layer (callable): A link or any other callable.

        Raises:
            IndexError: ``i`` is out of range.
            TypeError: ``layer`` is not callable.
        """
        n = len(self._layers)
        if not -n <= i <= n:
            raise IndexError(f"index {i} out of range for a Sequential of {n} layers")
        _check_layer(layer)
        self._layers.insert(i, layer)
        self._sync_children()

    def pop(self, i: int = -1) -> Callable:
        """Removes the layer at index ``i`` and returns it.

        Args:
            i (int): Index of the layer; the last one by default.

        Returns:
            The removed layer.
        """
        layer = self._layers[i]
        del self[i]
        return layer

    def remove(self, layer: Callable) -> None:
        """Removes the first occurrence of ``layer``.

        Args:
            layer: The layer to remove.

        Raises:
            ValueError: ``layer`` is not in this Sequential.
        """
        try:
            i = self._layers.index(layer)
        except ValueError:
            raise ValueError(
                f"There is no layer object that is same as {layer!r}"
            ) from None
        del self[i]

    def clear(self) -> None:
        """Removes all layers."""
        self._layers.clear()
        self._sync_children()

    def index(self, layer: Callable, start: int | None = None, end: int | None = None):
        """Returns the index of the first occurrence of ``layer``.

        Args:
            layer: The layer to look for.
            start (int): Start of the search range.
            end (int): End of the search range.

        Returns:
            int: Index in this Sequential.

        Raises:
            ValueError: ``layer`` is not found.
        """
        n = len(self._layers)
        return self._layers.index(
            layer, 0 if start is None else start, n if end is None else end
        )

    def count(self, layer: Callable) -> int:
        """Returns the number of occurrences of ``layer``.

        Args:
            layer: The layer to count.

        Returns:
            int: The count.
        """
        return self._layers.count(layer)

    def count_by_layer_type(self, type_name: str) -> int:
        """Counts the layers of the given type.

        Args:
            type_name (str): Class name of a link (e.g. ``'Linear'``) or the
                ``__name__`` of a function (e.g. ``'relu'``).

        Returns:
            int: The number of matching layers.
        """
        if not isinstance(type_name, str):
            raise TypeError(f"type_name must be a str, got {type(type_name).__name__}")
        return sum(1 for layer in self._layers if _layer_type_name(layer) == type_name)

    def remove_by_layer_type(self, type_name: str) -> None:
        """Removes all layers of the given type.

        Args:
            type_name (str): Class name of a link or the ``__name__`` of a
                function, as in :meth:`count_by_layer_type`.
        """
        if not isinstance(type_name, str):
            raise TypeError(f"type_name must be a str, got {type(type_name).__name__}")
        self._layers = [
            layer for layer in self._layers if _layer_type_name(layer) != type_name
        ]
        self._sync_children()

    def flatten(self) -> Sequential:
        """Returns a Sequential with nested Sequentials expanded in place.

        Returns:
            Sequential: A new, flat Sequential sharing the layers.
        """
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                ret.extend(layer.flatten())
            else:
                ret.append(layer)
        return ret

    # -- Link interface ----------------------------------------------------
    def forward(self, *x: Any) -> Any:
        """Calls the layers in order.

        Args:
            x: Inputs of the first layer.

        Returns:
            The output of the last layer.

        Raises:
            RuntimeError: The Sequential has no layers.
        """
        if not self._layers:
            raise RuntimeError("Sequential does not have any layer.")
        for layer in self._layers:
            x = layer(*x) if isinstance(x, tuple) else layer(x)
        return x

    def copy(self, mode: str = "share") -> Sequential:
        """Copies the Sequential and its layers.

        Args:
            mode (str): ``'share'``, ``'copy'`` or ``'init'``, as in
                :meth:`chainer.Link.copy`. Plain callables are copied
                shallowly.

        Returns:
            Sequential: The copy.
        """
        ret = link_module.Link.copy(self, mode)
        if mode == "share":
            memo: dict[int, Any] = {}
            layers = []
            for layer in self._layers:
                if id(layer) not in memo:
                    if isinstance(layer, link_module.Link):
                        memo[id(layer)] = layer.copy(mode)
                    else:
                        memo[id(layer)] = copy_module.copy(layer)
                layers.append(memo[id(layer)])
            ret._layers = layers
            ret._children = []
            ret._sync_children()
        return ret

    def copyparams(self, link: Any, copy_persistent: bool = True) -> None:
        """Copies parameters of the links of another Sequential, layer by layer.

        Args:
            link (Sequential): Source; it must have the same layers structure.
            copy_persistent (bool): Copy persistent values too.

        Raises:
            TypeError: ``link`` is not a Sequential.
            ValueError: The layer structures differ.
        """
        if not isinstance(link, Sequential):
            raise TypeError(
                "Objects other than Sequential object cannot be copied to a "
                f"Sequential object; got {type(link).__name__}"
            )
        if len(link) != len(self):
            raise ValueError(
                f"cannot copy parameters from a Sequential of {len(link)} layers "
                f"into one of {len(self)}"
            )
        link_module.Link.copyparams(self, link, copy_persistent)
        for idx, (dst, src) in enumerate(zip(self._layers, link._layers, strict=True)):
            if not isinstance(dst, link_module.Link):
                continue
            if not isinstance(src, link_module.Link):
                raise ValueError(f"layer {idx} of the source is not a link")
            dst.copyparams(src, copy_persistent)

    def __repr__(self) -> str:
        lines = []
        for index, layer in enumerate(self._layers):
            for line in f"({index}): {_layer_repr(layer)},".splitlines():
                lines.append(f"  {line}\n")
        body = "\n" + "".join(lines) if lines else ""
        return f"{type(self).__name__}({body})"
