"""Protobuf wire-format reader and the part of ``caffe.proto`` CaffeFunction reads.

The protobuf library is not a dependency: a ``.caffemodel`` is decoded here
from the wire format (varints, fixed 32/64-bit words, length-delimited
fields, packed repeated scalars) against a schema written below for the
subset of Caffe's ``NetParameter`` that :class:`CaffeFunction` needs, for both
the current ``layer`` field (``LayerParameter``) and the legacy ``layers``
field (``V1LayerParameter``). Unknown fields are skipped. Packed float blobs
become NumPy arrays viewing the file's bytes, so large models are not copied
while parsing.
"""

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


class DecodeError(ValueError):
    """The bytes are not a valid encoding of the expected message."""


class _Field:
    __slots__ = ("default", "kind", "name", "repeated", "schema")

    def __init__(self, name, kind, repeated=False, default=None, schema=None):
        self.name = name
        self.kind = kind
        self.repeated = repeated
        self.default = default
        self.schema = schema


class Schema:
    """Field numbers of one message type mapped to names, kinds and defaults."""

    def __init__(self, name, fields):
        self.name = name
        self.by_number = dict(fields)
        self.by_name = {field.name: field for field in self.by_number.values()}

    def parse(self, data):
        """Decodes a serialized message of this type from bytes."""
        view = memoryview(data).cast("B")
        return _parse(view, 0, len(view), self)


def optional(name, kind, default=None):
    """An optional scalar field (``kind`` as in caffe.proto) or message field."""
    if isinstance(kind, Schema):
        return _Field(name, "message", schema=kind)
    if default is None:
        default = {"string": "", "bytes": b"", "bool": False}.get(kind, 0)
    return _Field(name, kind, default=default)


def repeated(name, kind):
    """A repeated scalar (packed or not) or message field."""
    if isinstance(kind, Schema):
        return _Field(name, "message", repeated=True, schema=kind)
    return _Field(name, kind, repeated=True)


class Message:
    """A decoded message: fields are attributes, absent ones read as defaults."""

    __slots__ = ("_schema", "_values")

    def __init__(self, schema):
        self._schema = schema
        self._values = {}

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            pass
        field = self._schema.by_name.get(name)
        if field is None:
            raise AttributeError(f"{self._schema.name} has no field {name!r}")
        if field.repeated:
            if field.kind in _ARRAY_DTYPES:
                return numpy.empty(0, _ARRAY_DTYPES[field.kind])
            return []
        if field.kind == "message":
            return Message(field.schema)
        return field.default

    def has_field(self, name):
        """Whether the field was present in the encoded message."""
        return name in self._values

    def __repr__(self):
        return f"<{self._schema.name} {sorted(self._values)}>"


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


def _signed(value):
    # Negative int32/int64 values are sent as the 64-bit two's complement.
    return value - (1 << 64) if value >= 1 << 63 else value


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


def _decode_scalar(field, value):
    kind = field.kind
    if kind == "bool":
        return bool(value)
    if kind in _SIGNED_KINDS:
        return _signed(value)
    return value


def _packed_varints(buf, pos, end, field):
    values = []
    while pos < end:
        value, pos = _read_varint(buf, pos)
        values.append(_decode_scalar(field, value))
    if pos != end:
        raise DecodeError(f"packed field {field.name!r} overruns its length")
    return values


def _append(values, field, items):
    # Array fields collect chunks; _parse concatenates them once at the end.
    chunks = values.get(field.name)
    if chunks is None:
        values[field.name] = chunks = []
    elif isinstance(chunks, numpy.ndarray):
        values[field.name] = chunks = [chunks]
    if field.kind in _ARRAY_DTYPES:
        chunks.append(items)
    else:
        chunks.extend(items)


def _parse_length_delimited(buf, pos, end, field, values):
    kind = field.kind
    if kind == "message":
        if field.repeated:
            values.setdefault(field.name, []).append(
                _parse(buf, pos, end, field.schema)
            )
        else:
            target = values.get(field.name)
            values[field.name] = _parse(buf, pos, end, field.schema, target)
    elif kind in ("string", "bytes"):
        raw = bytes(buf[pos:end])
        if kind == "string":
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DecodeError(f"field {field.name!r} is not UTF-8") from exc
        if field.repeated:
            values.setdefault(field.name, []).append(raw)
        else:
            values[field.name] = raw
    elif field.repeated and kind in _ARRAY_DTYPES:
        dtype = _ARRAY_DTYPES[kind]
        if (end - pos) % dtype.itemsize:
            raise DecodeError(f"packed field {field.name!r} has a partial element")
        _append(values, field, numpy.frombuffer(buf[pos:end], dtype))
    elif field.repeated and kind in _VARINT_KINDS:
        _append(values, field, _packed_varints(buf, pos, end, field))
    else:
        raise DecodeError(f"field {field.name!r} ({kind}) cannot be length-delimited")


def _parse(buf, pos, end, schema, message=None):
    if message is None:
        message = Message(schema)
    values = message._values
    fields = schema.by_number
    fields_by_name = schema.by_name
    while pos < end:
        key, pos = _read_varint(buf, pos)
        number = key >> 3
        wire_type = key & 7
        field = fields.get(number)
        if field is None:
            pos = _skip(buf, pos, end, wire_type, number)
            continue
        if wire_type == _LENGTH:
            size, pos = _read_varint(buf, pos)
            stop = pos + size
            if stop > end:
                raise DecodeError(f"field {field.name!r} runs past its message")
            _parse_length_delimited(buf, pos, stop, field, values)
            pos = stop
            continue
        if wire_type == _VARINT and field.kind in _VARINT_KINDS:
            raw, pos = _read_varint(buf, pos)
            value = _decode_scalar(field, raw)
        elif (wire_type == _FIXED32 and field.kind == "float") or (
            wire_type == _FIXED64 and field.kind == "double"
        ):
            dtype = _ARRAY_DTYPES[field.kind]
            stop = pos + dtype.itemsize
            if stop > end:
                raise DecodeError(f"{schema.name}.{field.name} is truncated")
            value = numpy.frombuffer(buf[pos:stop], dtype)
            pos = stop
        else:
            raise DecodeError(
                f"{schema.name}.{field.name}: wire type {wire_type} does not "
                f"match a field of kind {field.kind}"
            )
        if pos > end:
            raise DecodeError(f"{schema.name}.{field.name} is truncated")
        if field.repeated:
            _append(values, field, value if field.kind in _ARRAY_DTYPES else [value])
        elif field.kind in _ARRAY_DTYPES:
            values[field.name] = float(value[0])
        else:
            values[field.name] = value
    if pos != end:
        raise DecodeError(f"{schema.name} overruns its length")
    for name, value in values.items():
        if type(value) is list and fields_by_name[name].kind in _ARRAY_DTYPES:
            values[name] = value[0] if len(value) == 1 else numpy.concatenate(value)
    return message


# --- the subset of caffe.proto (field numbers are Caffe's) ---------------------

BLOB_SHAPE = Schema("BlobShape", {1: repeated("dim", "int64")})

BLOB_PROTO = Schema(
    "BlobProto",
    {
        7: optional("shape", BLOB_SHAPE),
        5: repeated("data", "float"),
        6: repeated("diff", "float"),
        8: repeated("double_data", "double"),
        9: repeated("double_diff", "double"),
        1: optional("num", "int32"),
        2: optional("channels", "int32"),
        3: optional("height", "int32"),
        4: optional("width", "int32"),
    },
)

BATCH_NORM_PARAMETER = Schema(
    "BatchNormParameter",
    {
        1: optional("use_global_stats", "bool"),
        2: optional("moving_average_fraction", "float", 0.999),
        3: optional("eps", "float", 1e-5),
    },
)

CONCAT_PARAMETER = Schema(
    "ConcatParameter",
    {2: optional("axis", "int32", 1), 1: optional("concat_dim", "uint32", 1)},
)

CONVOLUTION_PARAMETER = Schema(
    "ConvolutionParameter",
    {
        1: optional("num_output", "uint32"),
        2: optional("bias_term", "bool", True),
        3: repeated("pad", "uint32"),
        4: repeated("kernel_size", "uint32"),
        6: repeated("stride", "uint32"),
        18: repeated("dilation", "uint32"),
        9: optional("pad_h", "uint32"),
        10: optional("pad_w", "uint32"),
        11: optional("kernel_h", "uint32"),
        12: optional("kernel_w", "uint32"),
        13: optional("stride_h", "uint32"),
        14: optional("stride_w", "uint32"),
        5: optional("group", "uint32", 1),
        15: optional("engine", "enum"),
        16: optional("axis", "int32", 1),
    },
)

DROPOUT_PARAMETER = Schema(
    "DropoutParameter", {1: optional("dropout_ratio", "float", 0.5)}
)

ELTWISE_PARAMETER = Schema(
    "EltwiseParameter",
    {
        1: optional("operation", "enum", 1),  # SUM
        2: repeated("coeff", "float"),
        3: optional("stable_prod_grad", "bool", True),
    },
)

INNER_PRODUCT_PARAMETER = Schema(
    "InnerProductParameter",
    {
        1: optional("num_output", "uint32"),
        2: optional("bias_term", "bool", True),
        5: optional("axis", "int32", 1),
        6: optional("transpose", "bool"),
    },
)

LRN_PARAMETER = Schema(
    "LRNParameter",
    {
        1: optional("local_size", "uint32", 5),
        2: optional("alpha", "float", 1.0),
        3: optional("beta", "float", 0.75),
        4: optional("norm_region", "enum"),
        5: optional("k", "float", 1.0),
    },
)

POOLING_PARAMETER = Schema(
    "PoolingParameter",
    {
        1: optional("pool", "enum"),
        4: optional("pad", "uint32"),
        9: optional("pad_h", "uint32"),
        10: optional("pad_w", "uint32"),
        2: optional("kernel_size", "uint32"),
        5: optional("kernel_h", "uint32"),
        6: optional("kernel_w", "uint32"),
        3: optional("stride", "uint32", 1),
        7: optional("stride_h", "uint32"),
        8: optional("stride_w", "uint32"),
        11: optional("engine", "enum"),
        12: optional("global_pooling", "bool"),
    },
)

RELU_PARAMETER = Schema(
    "ReLUParameter",
    {1: optional("negative_slope", "float", 0.0), 2: optional("engine", "enum")},
)

RESHAPE_PARAMETER = Schema(
    "ReshapeParameter",
    {
        1: optional("shape", BLOB_SHAPE),
        2: optional("axis", "int32", 0),
        3: optional("num_axes", "int32", -1),
    },
)

SCALE_PARAMETER = Schema(
    "ScaleParameter",
    {
        1: optional("axis", "int32", 1),
        2: optional("num_axes", "int32", 1),
        4: optional("bias_term", "bool"),
    },
)

SLICE_PARAMETER = Schema(
    "SliceParameter",
    {
        3: optional("axis", "int32", 1),
        2: repeated("slice_point", "uint32"),
        1: optional("slice_dim", "uint32", 1),
    },
)

SOFTMAX_PARAMETER = Schema(
    "SoftmaxParameter",
    {1: optional("engine", "enum"), 2: optional("axis", "int32", 1)},
)

ENGINE_PARAMETER = Schema("EngineParameter", {1: optional("engine", "enum")})

LAYER_PARAMETER = Schema(
    "LayerParameter",
    {
        1: optional("name", "string"),
        2: optional("type", "string"),
        3: repeated("bottom", "string"),
        4: repeated("top", "string"),
        7: repeated("blobs", BLOB_PROTO),
        139: optional("batch_norm_param", BATCH_NORM_PARAMETER),
        104: optional("concat_param", CONCAT_PARAMETER),
        106: optional("convolution_param", CONVOLUTION_PARAMETER),
        108: optional("dropout_param", DROPOUT_PARAMETER),
        110: optional("eltwise_param", ELTWISE_PARAMETER),
        117: optional("inner_product_param", INNER_PRODUCT_PARAMETER),
        118: optional("lrn_param", LRN_PARAMETER),
        121: optional("pooling_param", POOLING_PARAMETER),
        123: optional("relu_param", RELU_PARAMETER),
        133: optional("reshape_param", RESHAPE_PARAMETER),
        142: optional("scale_param", SCALE_PARAMETER),
        124: optional("sigmoid_param", ENGINE_PARAMETER),
        125: optional("softmax_param", SOFTMAX_PARAMETER),
        126: optional("slice_param", SLICE_PARAMETER),
        127: optional("tanh_param", ENGINE_PARAMETER),
    },
)

V1_LAYER_PARAMETER = Schema(
    "V1LayerParameter",
    {
        4: optional("name", "string"),
        5: optional("type", "enum"),
        2: repeated("bottom", "string"),
        3: repeated("top", "string"),
        6: repeated("blobs", BLOB_PROTO),
        9: optional("concat_param", CONCAT_PARAMETER),
        10: optional("convolution_param", CONVOLUTION_PARAMETER),
        12: optional("dropout_param", DROPOUT_PARAMETER),
        24: optional("eltwise_param", ELTWISE_PARAMETER),
        17: optional("inner_product_param", INNER_PRODUCT_PARAMETER),
        18: optional("lrn_param", LRN_PARAMETER),
        19: optional("pooling_param", POOLING_PARAMETER),
        30: optional("relu_param", RELU_PARAMETER),
        38: optional("sigmoid_param", ENGINE_PARAMETER),
        39: optional("softmax_param", SOFTMAX_PARAMETER),
        31: optional("slice_param", SLICE_PARAMETER),
        37: optional("tanh_param", ENGINE_PARAMETER),
    },
)

# V1LayerParameter.LayerType values of the layers CaffeFunction emulates or
# skips, mapped to the type strings of the current format.
V1_LAYER_TYPES = {
    3: "Concat",
    4: "Convolution",
    5: "Data",
    39: "Deconvolution",
    6: "Dropout",
    25: "Eltwise",
    14: "InnerProduct",
    15: "LRN",
    17: "Pooling",
    18: "ReLU",
    19: "Sigmoid",
    20: "Softmax",
    21: "SoftmaxWithLoss",
    22: "Split",
    33: "Slice",
    23: "TanH",
}

NET_PARAMETER = Schema(
    "NetParameter",
    {
        1: optional("name", "string"),
        3: repeated("input", "string"),
        100: repeated("layer", LAYER_PARAMETER),
        2: repeated("layers", V1_LAYER_PARAMETER),
    },
)
