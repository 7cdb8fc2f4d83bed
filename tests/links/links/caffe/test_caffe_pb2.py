import copy
import pickle

import numpy
import pytest

from chainer.links.caffe.caffe_function import caffe_pb
from chainer.links.caffe.protobuf3 import caffe_pb2


def _net():
    net = caffe_pb2.NetParameter(name="tiny")
    layer = net.layer.add()
    layer.name = "conv1"
    layer.type = "Convolution"
    layer.bottom.append("data")
    layer.top.extend(["conv1"])
    layer.convolution_param.num_output = 2
    layer.convolution_param.kernel_size.append(3)
    blob = layer.blobs.add()
    blob.shape.dim[:] = [2, 1, 3, 3]
    blob.data[:] = numpy.arange(18, dtype=numpy.float64)
    layer.phase = caffe_pb2.TEST
    return net


def test_caffe_function_uses_this_module():
    assert caffe_pb is caffe_pb2


def test_round_trip_through_the_wire_format():
    net = _net()
    data = net.SerializeToString()
    other = caffe_pb2.NetParameter()
    assert other.ParseFromString(data) == len(data)
    assert other == net
    layer = other.layer[0]
    assert layer.bottom == ["data"]
    assert layer.convolution_param.kernel_size == [3]
    assert layer.blobs[0].shape.dim == [2, 1, 3, 3]
    numpy.testing.assert_array_equal(layer.blobs[0].data, numpy.arange(18))
    assert layer.phase == caffe_pb2.TEST
    assert other.ByteSize() == len(data)


def test_packed_blob_data_is_encoded_as_float32_words():
    blob = caffe_pb2.BlobProto()
    blob.data.extend(numpy.array([1.0, 2.0], numpy.float32))
    # field 5, length-delimited, 8 bytes of two little-endian floats.
    assert (
        blob.SerializeToString() == b"\x2a\x08" + numpy.array([1, 2], "<f4").tobytes()
    )


def test_sub_message_presence():
    layer = caffe_pb2.LayerParameter()
    assert layer.pooling_param.pool == caffe_pb2.PoolingParameter.MAX
    assert not layer.HasField("pooling_param")
    layer.pooling_param.kernel_size = 2
    assert layer.HasField("pooling_param")
    assert layer.pooling_param.HasField("kernel_size")
    assert not layer.pooling_param.HasField("stride")
    assert layer.pooling_param.stride == 1  # caffe.proto's default
    layer.ClearField("pooling_param")
    assert not layer.HasField("pooling_param")
    with pytest.raises(ValueError, match='no "nope" field'):
        layer.HasField("nope")


def test_copy_and_merge():
    net = _net()
    copied = caffe_pb2.NetParameter()
    copied.CopyFrom(net)
    assert copied == net
    copied.layer[0].name = "changed"
    assert net.layer[0].name == "conv1"
    merged = caffe_pb2.NetParameter(name="other")
    merged.MergeFrom(net)
    assert merged.name == "tiny"
    assert len(merged.layer) == 1
    assert copy.deepcopy(net) == net
    assert pickle.loads(pickle.dumps(net)) == net


def test_repeated_message_append_stores_a_copy():
    net = caffe_pb2.NetParameter()
    layer = caffe_pb2.LayerParameter(name="a")
    net.layer.append(layer)
    layer.name = "b"
    assert net.layer[0].name == "a"
    with pytest.raises(TypeError, match="cannot be assigned"):
        net.layer[0] = layer
    with pytest.raises(TypeError, match="LayerParameter"):
        net.layer.append(caffe_pb2.BlobProto())


def test_type_checks():
    layer = caffe_pb2.LayerParameter()
    with pytest.raises(TypeError, match="expects a str"):
        layer.name = 3
    with pytest.raises(TypeError, match="expects an integer"):
        layer.convolution_param.num_output = 1.5
    with pytest.raises(ValueError, match="out of range"):
        layer.convolution_param.num_output = -1
    with pytest.raises(ValueError, match="unknown value 7"):
        layer.pooling_param.pool = 7
    with pytest.raises(AttributeError, match="repeated field"):
        layer.bottom = ["x"]
    with pytest.raises(AttributeError, match="composite field"):
        layer.pooling_param = caffe_pb2.PoolingParameter()
    with pytest.raises(AttributeError, match="no field"):
        layer.no_such_field = 1
    layer.pooling_param.pool = "AVE"  # enum values by name
    assert layer.pooling_param.pool == caffe_pb2.PoolingParameter.AVE


def test_float_fields_hold_float32_values():
    param = caffe_pb2.LRNParameter(alpha=0.1)
    assert param.alpha == float(numpy.float32(0.1))


def test_enums():
    assert caffe_pb2.Phase.Name(caffe_pb2.TRAIN) == "TRAIN"
    assert caffe_pb2.EltwiseParameter.EltwiseOp.Value("MAX") == 2
    assert caffe_pb2.V1LayerParameter.CONVOLUTION == 4
    assert caffe_pb2.EltwiseParameter().operation == caffe_pb2.EltwiseParameter.SUM


def test_text_format():
    net = caffe_pb2.NetParameter(name="tiny")
    layer = net.layer.add(name="pool", type="Pooling")
    layer.pooling_param.pool = caffe_pb2.PoolingParameter.AVE
    layer.pooling_param.kernel_size = 3
    layer.batch_norm_param.eps = 1e-5
    layer.batch_norm_param.use_global_stats = True
    assert str(net) == (
        'name: "tiny"\n'
        "layer {\n"
        '  name: "pool"\n'
        '  type: "Pooling"\n'
        "  pooling_param {\n"
        "    pool: AVE\n"
        "    kernel_size: 3\n"
        "  }\n"
        "  batch_norm_param {\n"
        "    use_global_stats: true\n"
        "    eps: 1e-05\n"
        "  }\n"
        "}\n"
    )


def test_malformed_data_raises_decode_error():
    with pytest.raises(caffe_pb2.DecodeError):
        caffe_pb2.NetParameter.FromString(b"\x0a\x05ab")


def test_constructor_takes_nested_values():
    net = caffe_pb2.NetParameter(
        name="n",
        input=["data"],
        layer=[{"name": "fc", "type": "InnerProduct", "bottom": ["data"]}],
        state={"phase": caffe_pb2.TRAIN},
    )
    assert net.layer[0].bottom == ["data"]
    assert net.HasField("state")
    assert net.state.phase == caffe_pb2.TRAIN
    with pytest.raises(ValueError, match='no "nope" field'):
        caffe_pb2.NetParameter(nope=1)
