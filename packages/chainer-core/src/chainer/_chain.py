"""``Chain`` and ``ChainList``, public as ``chainer.link.Chain``/``ChainList``."""

from __future__ import annotations

import collections.abc
from collections.abc import Iterator
from typing import Any

from chainer import link as link_module
from chainer import variable

Link = link_module.Link


def _indented_entries(entries) -> str:
    # Nested repr in Chainer's layout: one "(name): child," line per entry.
    lines = []
    for key, child in entries:
        for line in f"({key}): {child!r},".splitlines():
            lines.append(f"  {line}\n")
    return "\n" + "".join(lines) if lines else ""


def _child_of(link, key, expected_type):
    if not isinstance(link, expected_type):
        raise TypeError(
            f"source must be a {expected_type.__name__}, got {type(link).__name__}"
        )
    if isinstance(key, str):
        child = link.__dict__.get(key)
        if key not in link._children or child is None:
            raise ValueError(f"the source link has no child link named {key!r}")
        return child
    if key >= len(link._children):
        raise ValueError(
            f"the source link has {len(link._children)} child links, not {key + 1}"
        )
    return link._children[key]


class Chain(Link):
    """Composable link with object-like interface.

    A chain holds child links as attributes. Links assigned inside
    :meth:`~Link.init_scope` (or added with :meth:`add_link`) are registered
    as children: they take part in parameter collection, serialization,
    copying and device transfer. The hierarchy is a tree whose nodes are
    addressed by UNIX-like paths such as ``'/predictor/l1'``.

    Example:
        >>> import chainer
        >>> class Block(chainer.Link):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(0, (2, 2))
        >>> class Model(chainer.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l1 = Block()
        ...             self.l2 = Block()
        >>> [path for path, _ in Model().namedparams()]
        ['/l1/W', '/l2/W']

    Args:
        links: Child links (old style); the keywords are their names.
    """

    __module__ = "chainer.link"

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self._children: set[str] = set()
        for name, link in links.items():
            self.add_link(name, link)

    def __getitem__(self, name: str) -> Any:
        """Equivalent to ``getattr(self, name)``."""
        return getattr(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._within_init_scope and isinstance(value, Link):
            if hasattr(self, name):
                raise AttributeError(
                    f"cannot register a new link {name}: attribute exists"
                )
            value.name = name
            self._children.add(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._children.discard(name)
        super().__delattr__(name)

    def add_link(self, name: str, link: Link) -> None:
        """Registers a child link to this chain.

        Args:
            name (str): Name of the child link, also the attribute name.
            link (Link): The link object to be registered.

        Raises:
            AttributeError: An attribute named ``name`` already exists.
            TypeError: ``link`` is not a :class:`Link`.
        """
        if not isinstance(name, str):
            raise TypeError(f"link name must be a str, got {type(name).__name__}")
        if name in self.__dict__:
            raise AttributeError(f"cannot register a new link {name}: attribute exists")
        if not isinstance(link, Link):
            raise TypeError(
                f"cannot register a non-link object as a child: {name!r} is "
                f"{type(link).__name__}"
            )
        with self.init_scope():
            setattr(self, name, link)

    def _named_children(self):
        d = self.__dict__
        for name in sorted(self._children):
            yield name, d[name]

    def children(self) -> Iterator[Link]:
        for _, child in self._named_children():
            yield child

    def params(self, include_uninit: bool = True) -> Iterator[variable.Parameter]:
        yield from super().params(include_uninit)
        for child in self.children():
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Any]]:
        yield from super().namedparams(include_uninit)
        for name, child in self._named_children():
            prefix = "/" + name
            for path, param in child.namedparams(include_uninit):
                yield prefix + path, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        if not skipself:
            yield self
        for child in self.children():
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        if not skipself:
            yield "/", self
        for name, child in self._named_children():
            prefix = "/" + name
            yield prefix, child
            for path, link in child.namedlinks(True):
                yield prefix + path, link

    def copy(self, mode: str = "share") -> Chain:
        ret = super().copy(mode)
        if mode == "share":
            ret._children = set(self._children)
            d = ret.__dict__
            for name in ret._children:
                copied = d[name].copy(mode)
                copied.name = name
                d[name] = copied
        return ret

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        for name, child in self._named_children():
            child.copyparams(_child_of(link, name, Chain), copy_persistent)

    def addgrads(self, link: Link) -> None:
        super().addgrads(link)
        for name, child in self._named_children():
            child.addgrads(_child_of(link, name, Chain))

    def serialize(self, serializer) -> None:
        super().serialize(serializer)
        for name, child in self._named_children():
            child.serialize(serializer[name])

    def device_resident_accept(self, visitor) -> None:
        super().device_resident_accept(visitor)
        for child in self.children():
            child.device_resident_accept(visitor)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_indented_entries(self._named_children())})"


class ChainList(Link, collections.abc.MutableSequence):
    """Composable link with list-like interface.

    Child links are indexed by non-negative integers in registration order;
    their names are their indices (``'/0/W'``). Useful for an arbitrary number
    of children, e.g. an arbitrarily deep perceptron.

    Example:
        >>> import chainer
        >>> class Block(chainer.Link):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(0, (2, 2))
        >>> layers = chainer.ChainList(Block(), Block())
        >>> len(layers), [path for path, _ in layers.namedparams()]
        (2, ['/0/W', '/1/W'])

    Args:
        links: Initial child links.
    """

    __module__ = "chainer.link"

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self._children: list[Link] = []
        for link in links:
            self.add_link(link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._within_init_scope and isinstance(value, Link):
            raise TypeError(
                "cannot register a new link within a "
                '"with chainlist.init_scope():" block; use add_link()'
            )
        super().__setattr__(name, value)

    def __getitem__(self, index):
        """Returns the child at given index (or a list of them for a slice).

        Args:
            index (int or slice): Index of the child in the list.

        Returns:
            Link: The ``index``-th child link.
        """
        return self._children[index]

    def __setitem__(self, index, value) -> None:
        """Replaces the child at ``index`` (or the children of a slice).

        Args:
            index (int or slice): Position(s) to replace.
            value: A link, or an iterable of links for a slice.
        """
        if isinstance(index, slice):
            links = list(value)
            for link in links:
                self._check_link(link)
            self._children[index] = links
            self._rename_children()
        elif isinstance(index, int):
            self._check_link(value)
            self._children[index] = value
            value.name = str(index % len(self._children))
        else:
            raise TypeError(
                "ChainList indices must be integers or slices, not "
                f"{type(index).__name__}"
            )

    def __delitem__(self, index) -> None:
        """Removes the child at ``index`` (or the children of a slice)."""
        del self._children[index]
        self._rename_children()

    def __iter__(self) -> Iterator[Link]:
        return iter(self._children)

    def __len__(self) -> int:
        return len(self._children)

    @staticmethod
    def _check_link(link) -> None:
        if not isinstance(link, Link):
            raise TypeError(
                f"cannot register a non-link object as a child: got "
                f"{type(link).__name__}"
            )

    def add_link(self, link: Link) -> None:
        """Registers a child link at the end of the list.

        Args:
            link (Link): The link object to be registered; its ``name``
                becomes its index.

        Raises:
            TypeError: ``link`` is not a :class:`Link`.
        """
        self._check_link(link)
        link.name = str(len(self._children))
        self._children.append(link)

    def append(self, link: Link) -> None:
        """Registers a child link at the end of the list (same as :meth:`add_link`).

        Args:
            link (Link): The link object to be registered.
        """
        self.add_link(link)

    def insert(self, index: int, link: Link) -> None:
        """Inserts a child link at the given index.

        Args:
            index (int): The position of the list where the new link is
                inserted (as for :meth:`list.insert`).
            link (Link): The link to be inserted.

        Raises:
            TypeError: ``link`` is not a :class:`Link`.
        """
        self._check_link(link)
        self._children.insert(index, link)
        self._rename_children()

    def _rename_children(self) -> None:
        for i, child in enumerate(self._children):
            child.name = str(i)

    def children(self) -> Iterator[Link]:
        yield from self._children

    def params(self, include_uninit: bool = True) -> Iterator[variable.Parameter]:
        yield from super().params(include_uninit)
        for child in self._children:
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Any]]:
        yield from super().namedparams(include_uninit)
        for idx, child in enumerate(self._children):
            prefix = f"/{idx}"
            for path, param in child.namedparams(include_uninit):
                yield prefix + path, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        if not skipself:
            yield self
        for child in self._children:
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        if not skipself:
            yield "/", self
        for idx, child in enumerate(self._children):
            prefix = f"/{idx}"
            yield prefix, child
            for path, link in child.namedlinks(True):
                yield prefix + path, link

    def copy(self, mode: str = "share") -> ChainList:
        ret = super().copy(mode)
        if mode == "share":
            children = [child.copy(mode) for child in self._children]
            ret._children = children
            ret._rename_children()
        return ret

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        for idx, child in enumerate(self._children):
            child.copyparams(_child_of(link, idx, ChainList), copy_persistent)

    def addgrads(self, link: Link) -> None:
        super().addgrads(link)
        for idx, child in enumerate(self._children):
            child.addgrads(_child_of(link, idx, ChainList))

    def serialize(self, serializer) -> None:
        super().serialize(serializer)
        for idx, child in enumerate(self._children):
            child.serialize(serializer[str(idx)])

    def device_resident_accept(self, visitor) -> None:
        super().device_resident_accept(visitor)
        for child in self._children:
            child.device_resident_accept(visitor)

    def __repr__(self) -> str:
        entries = enumerate(self._children)
        return f"{type(self).__name__}({_indented_entries(entries)})"
