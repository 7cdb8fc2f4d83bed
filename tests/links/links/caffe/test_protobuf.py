import struct

import numpy
import pytest

from chainer.links.caffe import _protobuf
from chainer.links.caffe.protobuf3 import caffe_pb2


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number, wire_type):
    return _varint(number << 3 | wire_type)


def _vint(number, value):
    return _key(number, 0) + _varint(value)


def _length(number, payload):
    return _key(number, 2) + _varint(len(payload)) + payload


def _f32(number, value):
    return _key(number, 5) + struct.pack("<f", value)


def _f64(number, value):
    return _key(number, 1) + struct.pack("<d", value)


_INNER = _protobuf.message_class(
    "Inner",
    {1: _protobuf.optional("n", "int32"), 2: _protobuf.repeated("xs", "float")},
)
_OUTER = _protobuf.message_class(
    "Outer",
    {
        1: _protobuf.optional("name", "string"),
        2: _protobuf.optional("flag", "bool", True),
        3: _protobuf.optional("inner", _INNER),
        4: _protobuf.repeated("items", _INNER),
        5: _protobuf.repeated("dims", "int64"),
        6: _protobuf.optional("ratio", "float", 0.5),
        7: _protobuf.repeated("ds", "double"),
        8: _protobuf.optional("count", "uint32", 7),
        9: _protobuf.repeated("names", "string"),
    },
)


def _parse(data):
    return _OUTER.FromString(data)


def test_defaults_for_absent_fields():
    msg = _parse(b"")
    assert msg.name == ""
    assert msg.flag is True
    assert msg.ratio == 0.5
    assert msg.count == 7
    assert msg.dims == []
    assert msg.names == []
    assert numpy.asarray(msg.ds).shape == (0,)
    assert numpy.asarray(msg.ds).dtype == numpy.float64
    assert msg.inner.n == 0
    assert not msg.HasField("inner")
    with pytest.raises(AttributeError, match="no field"):
        _ = msg.missing


def test_scalars_strings_and_messages():
    inner = _vint(1, -3) + _length(2, numpy.arange(4, dtype="<f4").tobytes())
    data = (
        _length(1, b"conv1/7x7")
        + _vint(2, 0)
        + _length(3, inner)
        + _length(4, _vint(1, 1))
        + _length(4, _vint(1, 2))
        + _f32(6, 0.25)
        + _vint(8, 300)
        + _length(9, b"a")
        + _length(9, b"b")
    )
    msg = _parse(data)
    assert msg.name == "conv1/7x7"
    assert msg.flag is False
    assert msg.inner.n == -3
    numpy.testing.assert_array_equal(msg.inner.xs, [0, 1, 2, 3])
    assert numpy.asarray(msg.inner.xs).dtype == numpy.float32
    assert [item.n for item in msg.items] == [1, 2]
    assert msg.ratio == 0.25
    assert msg.count == 300
    assert msg.names == ["a", "b"]
    assert msg.HasField("inner")
    assert msg.HasField("ratio")


def test_packed_and_unpacked_repeated_scalars():
    packed = _length(5, _varint(2) + _varint(300) + _varint(5))
    unpacked = _vint(5, 7)
    doubles = _f64(7, 1.5) + _length(7, struct.pack("<2d", 2.5, 3.5)) + _f64(7, 4.5)
    msg = _parse(packed + unpacked + doubles)
    assert msg.dims == [2, 300, 5, 7]
    numpy.testing.assert_array_equal(msg.ds, [1.5, 2.5, 3.5, 4.5])


def test_floats_are_views_of_the_input():
    payload = numpy.arange(1000, dtype="<f4").tobytes()
    data = _length(3, _length(2, payload))
    msg = _parse(data)
    xs = numpy.asarray(msg.inner.xs)
    assert xs.base is not None
    numpy.testing.assert_array_equal(xs, numpy.arange(1000))


def test_non_repeated_message_fields_merge():
    data = _length(3, _vint(1, 4)) + _length(3, _length(2, struct.pack("<f", 2.0)))
    msg = _parse(data)
    assert msg.inner.n == 4
    numpy.testing.assert_array_equal(msg.inner.xs, [2.0])


def test_unknown_fields_are_skipped():
    group = _key(51, 3) + _vint(1, 5) + _length(2, b"xy") + _key(51, 4)
    unknown = (
        _vint(40, 123456789)
        + _f64(41, 1.0)
        + _f32(42, 1.0)
        + _length(43, b"\x00" * 10)
        + group
    )
    msg = _parse(unknown + _length(1, b"ok"))
    assert msg.name == "ok"
    # Unknown fields are written back.
    assert msg.SerializeToString() == _length(1, b"ok") + unknown


@pytest.mark.parametrize(
    "data",
    [
        _length(1, b"abc")[:-1],  # truncated string
        _key(1, 2) + b"\xff",  # truncated length varint
        b"\xff" * 11,  # overlong varint
        _key(6, 5) + b"\x00\x00",  # truncated float
        _vint(1, 3),  # wire type mismatch: string field as varint
        _key(40, 6),  # invalid wire type
        _length(3, _length(2, b"\x00\x00\x00")),  # partial packed float
        _key(51, 3) + _vint(1, 5),  # unterminated group
        _length(1, b"\xff\xfe"),  # string not UTF-8
    ],
)
def test_malformed_input_raises(data):
    with pytest.raises(_protobuf.DecodeError):
        _parse(data)


def test_caffe_schema_reads_a_layer():
    shape = _length(7, _length(1, _varint(2) + _varint(3)))
    blob = shape + _length(5, numpy.ones(6, "<f4").tobytes())
    conv = _vint(1, 2) + _length(4, _varint(3)) + _vint(5, 1)
    layer = (
        _length(1, b"conv")
        + _length(2, b"Convolution")
        + _length(3, b"data")
        + _length(4, b"conv")
        + _length(7, blob)
        + _length(106, conv)
    )
    net = caffe_pb2.NetParameter.FromString(_length(1, b"net") + _length(100, layer))
    (parsed,) = net.layer
    assert parsed.name == "conv"
    assert parsed.type == "Convolution"
    assert parsed.bottom == ["data"]
    assert parsed.blobs[0].shape.dim == [2, 3]
    assert parsed.convolution_param.kernel_size == [3]
    assert parsed.convolution_param.bias_term is True
    assert parsed.convolution_param.stride == []
    assert net.layers == []
