"""A small protobuf (proto2) runtime: message classes, wire format, text format.

The protobuf library is not a dependency. :func:`message_class` builds
message classes from a schema written in Python (field numbers, kinds and
defaults as in a ``.proto`` file); their instances behave like the classes
``protoc`` generates for Python, for what Caffe's schema uses: scalar,
enum, string/bytes and message fields, optional and repeated (packed or
not), field presence (``HasField``), ``SerializeToString``,
``ParseFromString``, ``CopyFrom``, ``MergeFrom`` and the text format
(``str(message)``). Unknown fields are kept and written back.

Packed ``float``/``double`` fields are stored as NumPy arrays: parsing a
``.caffemodel`` gives arrays viewing the file's bytes (large models are not
copied), and assigning an array to one (``blob.data[:] = W.ravel()``) is
encoded without a Python loop.
"""

import collections.abc
import math
import numbers
import operator
import struct
import weakref

import numpy

_VARINT = 0
_FIXED64 = 1
_LENGTH = 2
_START_GROUP = 3
_END_GROUP = 4
_FIXED32 = 5

_VARINT_KINDS = frozenset(("int32", "int64", "uint32", "uint64", "bool", "enum"))
_SIGNED_KINDS = frozenset(("int32", "int64", "enum"))
_ARRAY_DTYPES = {"float": numpy.dtype("<f4"), "double": numpy.dtype("<f8")}
_INT_RANGES = {
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
    "uint32": (0, (1 << 32) - 1),
    "uint64": (0, (1 << 64) - 1),
    "enum": (-(1 << 31), (1 << 31) - 1),
}
_SCALAR_DEFAULTS = {"string": "", "bytes": b"", "bool": False, "float": 0.0}


class DecodeError(ValueError):
    """The bytes are not a valid encoding of the expected message."""


# -- schema --------------------------------------------------------------------


class EnumType:
    """A protobuf enum: its values are attributes (``EnumType.NAME``).

    Args:
        name (str): Name of the enum type.
        values (dict): Value names mapped to numbers, in declaration order.
    """

    def __init__(self, name, values):
        self.name = name
        self._values = dict(values)
        self._names = {}
        for key, number in self._values.items():
            self._names.setdefault(number, key)
            setattr(self, key, number)

    def Name(self, number):
        """Returns the name of ``number``."""
        try:
            return self._names[number]
        except KeyError:
            raise ValueError(f"enum {self.name} has no value {number!r}") from None

    def Value(self, name):
        """Returns the number of the value named ``name``."""
        try:
            return self._values[name]
        except KeyError:
            raise ValueError(f"enum {self.name} has no value named {name!r}") from None

    def keys(self):
        """Names of the values."""
        return list(self._values)

    def values(self):
        """Numbers of the values."""
        return list(self._values.values())

    def items(self):
        """``(name, number)`` pairs."""
        return list(self._values.items())

    def __contains__(self, number):
        return number in self._names

    def __repr__(self):
        return f"<enum {self.name}>"


class FieldDescriptor:
    """A field of a message type: name, number, kind and default.

    ``kind`` is a scalar type name of ``.proto`` files (``'int32'``,
    ``'float'``, ``'string'``...), ``'enum'`` or ``'message'``.
    """

    __slots__ = (
        "default",
        "enum_type",
        "kind",
        "message_type",
        "name",
        "number",
        "packed",
        "repeated",
    )

    def __init__(
        self,
        name,
        kind,
        number=0,
        *,
        repeated=False,
        default=None,
        packed=False,
        enum_type=None,
        message_type=None,
    ):
        self.name = name
        self.kind = kind
        self.number = number
        self.repeated = repeated
        self.packed = packed
        self.enum_type = enum_type
        self.message_type = message_type
        if default is None and not repeated:
            if kind == "enum":
                default = enum_type.values()[0] if enum_type is not None else 0
            else:
                default = _SCALAR_DEFAULTS.get(kind, 0)
        self.default = default

    def __repr__(self):
        return f"<field {self.name} = {self.number}>"


def optional(name, kind, default=None):
    """An optional field: ``kind`` is a scalar type name, an enum or a message class."""
    if isinstance(kind, EnumType):
        return FieldDescriptor(name, "enum", default=default, enum_type=kind)
    if isinstance(kind, type) and issubclass(kind, Message):
        return FieldDescriptor(name, "message", message_type=kind)
    return FieldDescriptor(name, kind, default=default)


def repeated(name, kind, packed=False):
    """A repeated field (written packed when ``packed`` is True)."""
    if isinstance(kind, EnumType):
        return FieldDescriptor(
            name, "enum", repeated=True, packed=packed, enum_type=kind
        )
    if isinstance(kind, type) and issubclass(kind, Message):
        return FieldDescriptor(name, "message", repeated=True, message_type=kind)
    return FieldDescriptor(name, kind, repeated=True, packed=packed)


class Descriptor:
    """The description of a message type (``Message.DESCRIPTOR``)."""

    def __init__(self, name, fields, enum_types):
        self.name = name
        self.full_name = name
        self.fields = sorted(fields, key=operator.attrgetter("number"))
        self.fields_by_name = {f.name: f for f in self.fields}
        self.fields_by_number = {f.number: f for f in self.fields}
        self.enum_types_by_name = dict(enum_types)

    def __repr__(self):
        return f"<Descriptor {self.name}>"


def message_class(name, fields, enums=(), module=None, doc=None):
    """Builds a message class.

    Args:
        name (str): Name of the message type.
        fields (dict): Field numbers mapped to the results of
            :func:`optional` or :func:`repeated`.
        enums (iterable of EnumType): Enum types nested in the message; they
            and their values become class attributes.
        module (str): ``__module__`` of the class.
        doc (str): Docstring of the class.

    Returns:
        type: A subclass of :class:`Message`.
    """
    descriptors = []
    for number, field in fields.items():
        field.number = number
        descriptors.append(field)
    namespace = {
        "__slots__": (),
        "DESCRIPTOR": Descriptor(name, descriptors, {e.name: e for e in enums}),
        "__doc__": doc or f"The protobuf message ``{name}``.",
    }
    if module is not None:
        namespace["__module__"] = module
    for enum in enums:
        namespace[enum.name] = enum
        for key, number in enum.items():
            namespace[key] = number
    return type(name, (Message,), namespace)


# -- scalar checks -------------------------------------------------------------


def _check_scalar(field, value):
    """Converts ``value`` for ``field`` as protobuf does, or raises."""
    kind = field.kind
    if kind in _INT_RANGES:
        if kind == "enum" and isinstance(value, str) and field.enum_type is not None:
            return field.enum_type.Value(value)
        if isinstance(value, (float, numpy.floating)) or not isinstance(
            value, (numbers.Integral, numpy.integer)
        ):
            raise TypeError(
                f"{value!r} has type {type(value).__name__}, but field "
                f"{field.name!r} expects an integer ({kind})"
            )
        value = operator.index(value)
        low, high = _INT_RANGES[kind]
        if not low <= value <= high:
            raise ValueError(f"value {value} is out of range for {kind} {field.name!r}")
        if (
            kind == "enum"
            and field.enum_type is not None
            and value not in field.enum_type
        ):
            raise ValueError(
                f"unknown value {value} of enum {field.enum_type.name} "
                f"for field {field.name!r}"
            )
        return value
    if kind in _ARRAY_DTYPES:
        if isinstance(value, (bool, numpy.bool_)) or not isinstance(
            value, (numbers.Real, numpy.number)
        ):
            raise TypeError(
                f"{value!r} has type {type(value).__name__}, but field "
                f"{field.name!r} expects a number ({kind})"
            )
        value = float(value)
        if kind == "float" and math.isfinite(value):
            value = float(numpy.float32(value))
        return value
    if kind == "bool":
        if not isinstance(value, (bool, numpy.bool_, numbers.Integral, numpy.integer)):
            raise TypeError(
                f"{value!r} has type {type(value).__name__}, but field "
                f"{field.name!r} expects a bool"
            )
        return bool(value)
    if kind == "string":
        if isinstance(value, bytes):
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(
                    f"bytes given to string field {field.name!r} are not UTF-8"
                ) from None
        if not isinstance(value, str):
            raise TypeError(
                f"{value!r} has type {type(value).__name__}, but field "
                f"{field.name!r} expects a str"
            )
        return value
    if kind == "bytes":
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(
                f"{value!r} has type {type(value).__name__}, but field "
                f"{field.name!r} expects bytes"
            )
        return bytes(value)
    raise TypeError(f"field {field.name!r} has an unsupported kind {kind!r}")


def _as_number_array(field, values):
    """An ndarray of values for a float/double field, or None for non-arrays."""
    if not isinstance(values, numpy.ndarray):
        return None
    if values.dtype.kind not in "biuf":
        raise TypeError(
            f"an array of {values.dtype} cannot be stored in the {field.kind} "
            f"field {field.name!r}"
        )
    return numpy.ascontiguousarray(values.ravel(), dtype=_ARRAY_DTYPES[field.kind])


# -- repeated containers ---------------------------------------------------------


class _Repeated(collections.abc.MutableSequence):
    __slots__ = ("__weakref__", "_field", "_owner")

    def _touch(self):
        owner = self._owner()
        if owner is not None:
            owner._modified()

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return repr(list(self))

    def __hash__(self):
        raise TypeError("unhashable object")


class RepeatedScalarContainer(_Repeated):
    """The list of values of a repeated scalar field.

    It behaves as a list whose elements are checked against the field's
    type. Float and double fields may hold a NumPy array instead of a list
    (``numpy.asarray(container)`` then does not copy).
    """

    __slots__ = ("_array", "_items")

    def __init__(self, owner, field):
        self._owner = weakref.ref(owner)
        self._field = field
        self._items = []
        self._array = None

    # storage
    def _list(self):
        if self._array is not None:
            self._items = self._array.tolist()
            self._array = None
        return self._items

    def _set_array(self, array):
        self._array = array
        self._items = []

    def __array__(self, dtype=None, copy=None):
        if self._array is not None:
            array = self._array
        else:
            kind = self._field.kind
            array = numpy.array(self._items, dtype=_ARRAY_DTYPES.get(kind))
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array.copy() if copy else array

    # sequence protocol
    def __len__(self):
        if self._array is not None:
            return len(self._array)
        return len(self._items)

    def __getitem__(self, index):
        if self._array is not None:
            if isinstance(index, slice):
                return self._array[index].tolist()
            return self._array[index].item()
        return self._items[index]

    def __iter__(self):
        if self._array is not None:
            return iter(self._array.tolist())
        return iter(self._items)

    def __setitem__(self, index, value):
        field = self._field
        if isinstance(index, slice):
            array = (
                _as_number_array(field, value) if field.kind in _ARRAY_DTYPES else None
            )
            if array is not None and index == slice(None):
                self._set_array(array)
            else:
                checked = [_check_scalar(field, v) for v in value]
                self._list()[index] = checked
        else:
            self._list()[index] = _check_scalar(field, value)
        self._touch()

    def __delitem__(self, index):
        del self._list()[index]
        self._touch()

    def insert(self, index, value):
        """Inserts ``value`` before ``index``."""
        self._list().insert(index, _check_scalar(self._field, value))
        self._touch()

    def append(self, value):
        """Appends ``value``."""
        self._list().append(_check_scalar(self._field, value))
        self._touch()

    def extend(self, values):
        """Appends each of ``values`` (an array is appended at once)."""
        field = self._field
        array = _as_number_array(field, values) if field.kind in _ARRAY_DTYPES else None
        if array is not None:
            if len(self) == 0:
                self._set_array(array)
            else:
                self._set_array(numpy.concatenate([numpy.asarray(self), array]))
        else:
            checked = [_check_scalar(field, v) for v in values]
            self._list().extend(checked)
        self._touch()

    def _extend_parsed(self, chunk):
        # Decoded values: already typed; float chunks are arrays.
        if isinstance(chunk, numpy.ndarray):
            if len(self) == 0:
                self._set_array(chunk)
            else:
                self._set_array(numpy.concatenate([numpy.asarray(self), chunk]))
        else:
            self._list().extend(chunk)

    def MergeFrom(self, other):
        """Appends the values of another container."""
        self.extend(numpy.asarray(other) if other._array is not None else list(other))

    def sort(self, *args, **kwargs):
        """Sorts the values in place, as ``list.sort``."""
        self._list().sort(*args, **kwargs)
        self._touch()

    def __eq__(self, other):
        if self is other:
            return True
        if isinstance(other, RepeatedScalarContainer):
            other = list(other)
        elif isinstance(other, numpy.ndarray):
            other = other.tolist()
        elif not isinstance(other, collections.abc.Sequence) or isinstance(
            other, (str, bytes)
        ):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = _Repeated.__hash__


class RepeatedCompositeContainer(_Repeated):
    """The list of messages of a repeated message field.

    New elements are made with :meth:`add`; :meth:`append` and
    :meth:`extend` store copies of the given messages.
    """

    __slots__ = ("_items",)

    def __init__(self, owner, field):
        self._owner = weakref.ref(owner)
        self._field = field
        self._items = []

    def __len__(self):
        return len(self._items)

    def __getitem__(self, index):
        return self._items[index]

    def __iter__(self):
        return iter(self._items)

    def __setitem__(self, index, value):
        raise TypeError(
            f"elements of the repeated message field {self._field.name!r} cannot "
            "be assigned; use add(), append() or CopyFrom() on an element"
        )

    def __delitem__(self, index):
        del self._items[index]
        self._touch()

    def _new(self):
        return self._field.message_type()

    def _checked_copy(self, message):
        cls = self._field.message_type
        if not isinstance(message, cls):
            raise TypeError(
                f"field {self._field.name!r} holds {cls.__name__} messages, "
                f"not {type(message).__name__}"
            )
        copy = cls()
        copy.MergeFrom(message)
        return copy

    def add(self, **kwargs):
        """Appends a new message (fields set from ``kwargs``) and returns it."""
        message = self._field.message_type(**kwargs)
        self._items.append(message)
        self._touch()
        return message

    def insert(self, index, message):
        """Inserts a copy of ``message`` before ``index``."""
        self._items.insert(index, self._checked_copy(message))
        self._touch()

    def append(self, message):
        """Appends a copy of ``message``."""
        self._items.append(self._checked_copy(message))
        self._touch()

    def extend(self, messages):
        """Appends copies of ``messages``."""
        self._items.extend(self._checked_copy(m) for m in messages)
        self._touch()

    def MergeFrom(self, other):
        """Appends copies of the messages of another container."""
        self.extend(list(other))

    def sort(self, key=None, reverse=False):
        """Sorts the messages in place; ``key`` is required."""
        self._items.sort(key=key, reverse=reverse)

    def __eq__(self, other):
        if self is other:
            return True
        if isinstance(other, RepeatedCompositeContainer):
            other = other._items
        elif not isinstance(other, collections.abc.Sequence):
            return NotImplemented
        return self._items == list(other)

    __hash__ = _Repeated.__hash__


# -- messages ------------------------------------------------------------------


class Message:
    """Base class of the message classes made by :func:`message_class`.

    Fields are attributes. Reading an absent scalar field gives its default;
    reading an absent message field gives an empty message that becomes
    present in its parent when one of its fields is set. Repeated fields are
    list-like containers that cannot be assigned as a whole (use
    ``field[:] = values``, ``extend`` or ``add``).
    """

    __slots__ = ("__weakref__", "_has", "_parent", "_unknown", "_values")

    DESCRIPTOR = None

    def __init__(self, **kwargs):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_has", set())
        object.__setattr__(self, "_parent", None)
        object.__setattr__(self, "_unknown", [])
        fields = self.DESCRIPTOR.fields_by_name
        for name, value in kwargs.items():
            field = fields.get(name)
            if field is None:
                raise ValueError(
                    f'Protocol message {self.DESCRIPTOR.name} has no "{name}" field.'
                )
            if value is None:
                continue
            if field.repeated and field.kind == "message":
                container = getattr(self, name)
                for item in value:
                    if isinstance(item, dict):
                        container.add(**item)
                    else:
                        container.append(item)
            elif field.repeated:
                getattr(self, name).extend(value)
            elif field.kind == "message":
                if isinstance(value, dict):
                    getattr(self, name).MergeFrom(field.message_type(**value))
                else:
                    getattr(self, name).CopyFrom(value)
            else:
                setattr(self, name, value)

    # -- attribute access
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        values = self._values
        if name in values:
            return values[name]
        field = self.DESCRIPTOR.fields_by_name.get(name)
        if field is None:
            raise AttributeError(
                f"{self.DESCRIPTOR.name} message has no field {name!r}"
            )
        if field.repeated:
            if field.kind == "message":
                container = RepeatedCompositeContainer(self, field)
            else:
                container = RepeatedScalarContainer(self, field)
            values[name] = container
            return container
        if field.kind == "message":
            child = field.message_type()
            object.__setattr__(child, "_parent", (weakref.ref(self), name))
            values[name] = child
            return child
        return field.default

    def __setattr__(self, name, value):
        field = self.DESCRIPTOR.fields_by_name.get(name)
        if field is None:
            raise AttributeError(
                f'Assignment not allowed (no field "{name}" in protocol message '
                f"{self.DESCRIPTOR.name} object)."
            )
        if field.repeated:
            raise AttributeError(
                f'Assignment not allowed to repeated field "{name}" in protocol '
                "message object: use [:] =, extend() or add()."
            )
        if field.kind == "message":
            raise AttributeError(
                f'Assignment not allowed to composite field "{name}" in protocol '
                "message object: use CopyFrom() or set its fields."
            )
        self._values[name] = _check_scalar(field, value)
        self._modified()

    def _modified(self):
        link = self._parent
        if link is None:
            return
        parent_ref, name = link
        parent = parent_ref()
        if parent is None:
            return
        if name not in parent._has:
            parent._has.add(name)
            parent._modified()

    def _field(self, name):
        field = self.DESCRIPTOR.fields_by_name.get(name)
        if field is None:
            raise ValueError(
                f'Protocol message {self.DESCRIPTOR.name} has no "{name}" field.'
            )
        return field

    # -- protobuf's message API
    def HasField(self, name):
        """Returns whether the optional field ``name`` is set."""
        field = self._field(name)
        if field.repeated:
            raise ValueError(f'Repeated field "{name}" has no presence; use len()')
        if field.kind == "message":
            return name in self._has
        return name in self._values

    def ClearField(self, name):
        """Resets field ``name`` to its default (empty for repeated fields)."""
        self._field(name)
        child = self._values.pop(name, None)
        if isinstance(child, Message):
            object.__setattr__(child, "_parent", None)
        self._has.discard(name)

    def Clear(self):
        """Resets every field."""
        for name in list(self._values):
            self.ClearField(name)
        self._unknown.clear()

    def SetInParent(self):
        """Marks this (possibly empty) sub-message as present in its parent."""
        self._modified()

    def IsInitialized(self):
        """Whether all required fields are set (the schema has none)."""
        return True

    def ListFields(self):
        """``(FieldDescriptor, value)`` of the set fields, by field number."""
        out = []
        values = self._values
        for field in self.DESCRIPTOR.fields:
            value = values.get(field.name)
            if value is None:
                continue
            if field.repeated:
                if len(value):
                    out.append((field, value))
            elif field.kind == "message":
                if field.name in self._has:
                    out.append((field, value))
            else:
                out.append((field, value))
        return out

    def MergeFrom(self, other):
        """Merges the set fields of ``other`` (a message of the same type) in."""
        if not isinstance(other, type(self)):
            raise TypeError(
                f"MergeFrom of {self.DESCRIPTOR.name} needs a message of the same "
                f"type, got {type(other).__name__}"
            )
        for field, value in other.ListFields():
            if field.repeated:
                getattr(self, field.name).MergeFrom(value)
            elif field.kind == "message":
                child = getattr(self, field.name)
                child.MergeFrom(value)
                child.SetInParent()
            else:
                self._values[field.name] = value
        self._unknown.extend(other._unknown)
        self._modified()

    def CopyFrom(self, other):
        """Replaces the content of this message with a copy of ``other``."""
        if other is self:
            return
        if not isinstance(other, type(self)):
            raise TypeError(
                f"CopyFrom of {self.DESCRIPTOR.name} needs a message of the same "
                f"type, got {type(other).__name__}"
            )
        self.Clear()
        self.MergeFrom(other)

    def SerializeToString(self, **kwargs):
        """Returns the message in the binary wire format (bytes)."""
        out = bytearray()
        _encode(self, out)
        return bytes(out)

    SerializePartialToString = SerializeToString

    def ParseFromString(self, data):
        """Replaces the content with the message decoded from ``data``.

        Raises:
            DecodeError: ``data`` is not a valid encoding of the message.
        """
        self.Clear()
        return self.MergeFromString(data)

    def MergeFromString(self, data):
        """Merges the message decoded from ``data`` in; returns its length."""
        view = memoryview(data).cast("B")
        _parse(view, 0, len(view), self)
        self._modified()
        return len(view)

    @classmethod
    def FromString(cls, data):
        """Returns a new message decoded from ``data``."""
        message = cls()
        message.MergeFromString(data)
        return message

    def ByteSize(self):
        """Length of the binary encoding."""
        return len(self.SerializeToString())

    # -- Python protocols
    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, Message):
            return NotImplemented
        if type(other) is not type(self):
            return False
        mine = {f.name: v for f, v in self.ListFields()}
        theirs = {f.name: v for f, v in other.ListFields()}
        if mine.keys() != theirs.keys():
            return False
        return all(mine[name] == theirs[name] for name in mine)

    __hash__ = None

    def __str__(self):
        lines = []
        _text(self, 0, lines)
        return "".join(line + "\n" for line in lines)

    def __repr__(self):
        return str(self)

    def __reduce__(self):
        return type(self).FromString, (self.SerializeToString(),)

    def __deepcopy__(self, memo=None):
        copy = type(self)()
        copy.MergeFrom(self)
        return copy


# -- wire format: encoding ---------------------------------------------------------


def _varint(value, out):
    value &= (1 << 64) - 1
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _encode_scalar(field, value, out):
    kind = field.kind
    if kind in _VARINT_KINDS:
        _varint(int(value), out)
    elif kind == "float":
        out += struct.pack("<f", value)
    elif kind == "double":
        out += struct.pack("<d", value)
    else:
        raw = value.encode("utf-8") if kind == "string" else value
        _varint(len(raw), out)
        out += raw


def _wire_type(kind):
    if kind in _VARINT_KINDS:
        return _VARINT
    if kind == "float":
        return _FIXED32
    if kind == "double":
        return _FIXED64
    return _LENGTH


def _encode(message, out):
    for field, value in message.ListFields():
        number = field.number
        kind = field.kind
        if kind == "message":
            items = value if field.repeated else (value,)
            for item in items:
                payload = item.SerializeToString()
                _varint(number << 3 | _LENGTH, out)
                _varint(len(payload), out)
                out += payload
        elif not field.repeated:
            _varint(number << 3 | _wire_type(kind), out)
            _encode_scalar(field, value, out)
        elif field.packed:
            if kind in _ARRAY_DTYPES:
                payload = numpy.asarray(value, dtype=_ARRAY_DTYPES[kind]).tobytes()
            else:
                buf = bytearray()
                for item in value:
                    _encode_scalar(field, item, buf)
                payload = bytes(buf)
            _varint(number << 3 | _LENGTH, out)
            _varint(len(payload), out)
            out += payload
        else:
            key = bytearray()
            _varint(number << 3 | _wire_type(kind), key)
            for item in value:
                out += key
                _encode_scalar(field, item, out)
    for raw in message._unknown:
        out += raw


# -- wire format: decoding ---------------------------------------------------------


def _read_varint(buf, pos):
    result = 0
    shift = 0
    while True:
        try:
            byte = buf[pos]
        except IndexError:
            raise DecodeError("truncated varint") from None
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise DecodeError("varint longer than 10 bytes")


def _signed(value, kind):
    # Negative int32/int64/enum values are sent as the 64-bit two's complement.
    value = value - (1 << 64) if value >= 1 << 63 else value
    if kind != "int64" and not -(1 << 31) <= value < 1 << 31:
        value = (value + (1 << 31)) % (1 << 32) - (1 << 31)
    return value


def _skip(buf, pos, end, wire_type, number):
    if wire_type == _VARINT:
        return _read_varint(buf, pos)[1]
    if wire_type == _FIXED64:
        pos += 8
    elif wire_type == _FIXED32:
        pos += 4
    elif wire_type == _LENGTH:
        size, pos = _read_varint(buf, pos)
        pos += size
    elif wire_type == _START_GROUP:
        while True:
            if pos >= end:
                raise DecodeError(f"unterminated group (field {number})")
            key, pos = _read_varint(buf, pos)
            if key & 7 == _END_GROUP:
                break
            pos = _skip(buf, pos, end, key & 7, key >> 3)
    else:
        raise DecodeError(f"invalid wire type {wire_type} (field {number})")
    if pos > end:
        raise DecodeError(f"field {number} runs past the end of its message")
    return pos


def _decode_varint_value(kind, value):
    if kind == "bool":
        return bool(value)
    if kind in _SIGNED_KINDS:
        return _signed(value, kind)
    if kind == "uint32":
        return value & 0xFFFFFFFF
    return value


def _container(message, field):
    values = message._values
    container = values.get(field.name)
    if container is None:
        container = getattr(message, field.name)
    return container


def _parse_length_delimited(buf, pos, end, field, message):
    kind = field.kind
    name = field.name
    if kind == "message":
        if field.repeated:
            child = field.message_type()
            _parse(buf, pos, end, child)
            _container(message, field)._items.append(child)
        else:
            child = message._values.get(name)
            if child is None:
                child = getattr(message, name)
            _parse(buf, pos, end, child)
            message._has.add(name)
    elif kind in ("string", "bytes"):
        raw = bytes(buf[pos:end])
        if kind == "string":
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DecodeError(f"field {name!r} is not UTF-8") from exc
        if field.repeated:
            _container(message, field)._items.append(raw)
        else:
            message._values[name] = raw
    elif field.repeated and kind in _ARRAY_DTYPES:
        dtype = _ARRAY_DTYPES[kind]
        if (end - pos) % dtype.itemsize:
            raise DecodeError(f"packed field {name!r} has a partial element")
        _container(message, field)._extend_parsed(numpy.frombuffer(buf[pos:end], dtype))
    elif field.repeated and kind in _VARINT_KINDS:
        items = []
        while pos < end:
            value, pos = _read_varint(buf, pos)
            items.append(_decode_varint_value(kind, value))
        if pos != end:
            raise DecodeError(f"packed field {name!r} overruns its length")
        _container(message, field)._extend_parsed(items)
    else:
        raise DecodeError(f"field {name!r} ({kind}) cannot be length-delimited")


def _parse(buf, pos, end, message):
    fields = message.DESCRIPTOR.fields_by_number
    values = message._values
    type_name = message.DESCRIPTOR.name
    while pos < end:
        start = pos
        key, pos = _read_varint(buf, pos)
        number = key >> 3
        wire_type = key & 7
        field = fields.get(number)
        if field is None:
            pos = _skip(buf, pos, end, wire_type, number)
            message._unknown.append(bytes(buf[start:pos]))
            continue
        if wire_type == _LENGTH:
            size, pos = _read_varint(buf, pos)
            stop = pos + size
            if stop > end:
                raise DecodeError(f"field {field.name!r} runs past its message")
            _parse_length_delimited(buf, pos, stop, field, message)
            pos = stop
            continue
        kind = field.kind
        if wire_type == _VARINT and kind in _VARINT_KINDS:
            raw, pos = _read_varint(buf, pos)
            value = _decode_varint_value(kind, raw)
        elif (wire_type == _FIXED32 and kind == "float") or (
            wire_type == _FIXED64 and kind == "double"
        ):
            dtype = _ARRAY_DTYPES[kind]
            stop = pos + dtype.itemsize
            if stop > end:
                raise DecodeError(f"{type_name}.{field.name} is truncated")
            value = numpy.frombuffer(buf[pos:stop], dtype)
            pos = stop
        else:
            raise DecodeError(
                f"{type_name}.{field.name}: wire type {wire_type} does not "
                f"match a field of kind {kind}"
            )
        if pos > end:
            raise DecodeError(f"{type_name}.{field.name} is truncated")
        if field.repeated:
            _container(message, field)._extend_parsed(
                value if kind in _ARRAY_DTYPES else [value]
            )
        elif kind in _ARRAY_DTYPES:
            values[field.name] = float(value[0])
        else:
            values[field.name] = value
    if pos != end:
        raise DecodeError(f"{type_name} overruns its length")
    return message


# -- text format -------------------------------------------------------------------


def _format_float(value, kind):
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if kind == "double":
        return repr(value)
    # The shortest decimal that reads back as the same float32.
    target = numpy.float32(value)
    for precision in range(6, 10):
        text = f"{value:.{precision}g}"
        if numpy.float32(float(text)) == target:
            break
    return repr(float(text))


def _quote(value):
    raw = value.encode("utf-8") if isinstance(value, str) else value
    out = []
    for byte in raw:
        char = chr(byte)
        if char in "\"'\\":
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _format_scalar(field, value):
    kind = field.kind
    if kind == "bool":
        return "true" if value else "false"
    if kind in _ARRAY_DTYPES:
        return _format_float(value, kind)
    if kind in ("string", "bytes"):
        return _quote(value)
    if kind == "enum" and field.enum_type is not None and value in field.enum_type:
        return field.enum_type.Name(value)
    return str(int(value))


def _text(message, indent, lines):
    pad = " " * indent
    for field, value in message.ListFields():
        name = field.name
        items = value if field.repeated else (value,)
        for item in items:
            if field.kind == "message":
                lines.append(f"{pad}{name} {{")
                _text(item, indent + 2, lines)
                lines.append(f"{pad}}}")
            else:
                lines.append(f"{pad}{name}: {_format_scalar(field, item)}")
