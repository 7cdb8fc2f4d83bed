"""Fixtures of the vision model tests: a private dataset root and caffemodels."""

import numpy
import pytest

from chainer.dataset import download
from chainer.serializers import npz


@pytest.fixture
def dataset_root(tmp_path):
    """A fresh dataset root; returns the models directory inside it."""
    root = tmp_path / "dataset"
    download.set_dataset_root(str(root))
    try:
        yield root / "pfnet" / "chainer" / "models"
    finally:
        download.set_dataset_root(None)


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _vint(number, value):
    return _varint(number << 3) + _varint(int(value))


def _length(number, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _blob(array, legacy):
    """The chunks of an encoded BlobProto (the data is not copied)."""
    array = numpy.ascontiguousarray(array, "<f4")
    if legacy:
        dims = (1,) * (4 - array.ndim) + array.shape
        head = b"".join(_vint(i, d) for i, d in enumerate(dims, 1))
    else:
        dims = b"".join(_varint(d) for d in array.shape)
        head = _length(7, _length(1, dims))
    data = memoryview(array).cast("B")
    return [head, _varint(5 << 3 | 2), _varint(len(data)), data]


def _field(number, chunks):
    size = sum(len(chunk) for chunk in chunks)
    return [_varint(number << 3 | 2), _varint(size), *chunks]


# Type (V2 name, V1 enum) and the field number of the parameter message that
# holds bias_term (V2, V1).
_TYPES = {
    "Convolution": (4, 106, 10),
    "InnerProduct": (14, 117, 17),
    "BatchNorm": (None, 139, None),
    "Scale": (None, 142, None),
}
_BIAS_TERM_FIELD = {"Convolution": 2, "InnerProduct": 2, "Scale": 4}


def _layer(name, kind, blobs, v1):
    v1_type, param_field, v1_param_field = _TYPES[kind]
    chunks = []
    if v1:
        chunks += [_length(4, name), _vint(5, v1_type)]
        chunks += [_length(2, "bottom"), _length(3, name)]
    else:
        chunks += [_length(1, name), _length(2, kind)]
        chunks += [_length(3, "bottom"), _length(4, name)]
    for blob in blobs:
        chunks += _field(6 if v1 else 7, _blob(blob, v1))
    if kind in _BIAS_TERM_FIELD:
        bias_term = _vint(_BIAS_TERM_FIELD[kind], len(blobs) == 2)
        chunks.append(_length(v1_param_field if v1 else param_field, bias_term))
    return _field(2 if v1 else 100, chunks)


@pytest.fixture
def write_caffemodel():
    """``write(path, layers, v1=False)`` writes a caffemodel of parameter layers.

    ``layers`` is a list of ``(name, type, blobs)``; the type is one of
    Convolution, InnerProduct, BatchNorm and Scale, and a Convolution,
    InnerProduct or Scale has a bias when it is given two blobs.
    """

    def write(path, layers, v1=False):
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            f.write(_length(1, "net"))
            for name, kind, blobs in layers:
                f.writelines(_layer(name, kind, blobs, v1))
        return str(path)

    return write


def _state(link):
    serializer = npz.DictionarySerializer()
    serializer.save(link)
    return serializer.target


@pytest.fixture
def assert_same_state():
    """``check(a, b)``: the links have equal parameters and persistent values."""

    def check(a, b):
        state_a = _state(a)
        state_b = _state(b)
        assert state_a.keys() == state_b.keys()
        different = [
            key
            for key, value in state_a.items()
            if not numpy.array_equal(value, state_b[key])
        ]
        assert not different

    return check
