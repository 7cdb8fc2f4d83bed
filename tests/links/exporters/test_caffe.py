import os

import numpy
import pytest

import chainer
from chainer import functions as F
from chainer import links as L
from chainer import testing
from chainer.exporters import caffe
from chainer.links.caffe import CaffeFunction
from chainer.links.caffe.protobuf3 import caffe_pb2


def _x(*shape):
    return numpy.random.RandomState(0).uniform(-1, 1, shape).astype(numpy.float32)


def _round_trip(model, x, tmp_path):
    caffe.export(model, [chainer.Variable(x)], str(tmp_path), True, "net")
    imported = CaffeFunction(str(tmp_path / caffe.CAFFEMODEL_NAME))
    with chainer.using_config("train", False):
        expected = model(x)
        (actual,) = imported(inputs={"data": x}, outputs=[imported.layers[-1][0]])
    testing.assert_allclose(actual.array, expected.array, atol=1e-5, rtol=1e-4)
    return imported


class _Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 4, 3, pad=1)
            self.group = L.Convolution2D(4, 4, 1, groups=2)
            self.bn = L.BatchNormalization(4)
            self.deconv = L.Deconvolution2D(8, 2, 2, stride=2)
            self.fc = L.Linear(None, 5)
        rng = numpy.random.RandomState(1)
        self.bn.avg_mean[...] = rng.uniform(-1, 1, 4)
        self.bn.avg_var[...] = rng.uniform(0.5, 1.5, 4)
        self.bn.gamma.array[...] = rng.uniform(0.5, 1.5, 4)
        self.bn.beta.array[...] = rng.uniform(-1, 1, 4)

    def forward(self, x):
        h = F.relu(self.bn(self.group(self.conv(x))))
        h = F.local_response_normalization(h)
        h = F.max_pooling_2d(h, 2)
        h = F.concat([h, F.sigmoid(h)], axis=1)
        h = F.leaky_relu(self.deconv(h), slope=0.2)
        h = F.average_pooling_2d(F.tanh(h) + h, 2)
        h = F.dropout(h)
        return F.softmax(self.fc(F.reshape(h, (len(h), -1))))


def test_export_and_reimport_match(tmp_path):
    imported = _round_trip(_Net(), _x(2, 3, 8, 8), tmp_path)
    kinds = [type(imported[name]).__name__ for name, _, _ in imported.layers
             if name in imported._children]  # fmt: skip
    assert "BatchNormalization" in kinds
    assert "Scale" in kinds


def test_files_and_their_content(tmp_path):
    caffe.export(_Net(), [_x(1, 3, 8, 8)], str(tmp_path), graph_name="my net")
    assert sorted(os.listdir(tmp_path)) == [
        caffe.CAFFEMODEL_NAME,
        caffe.PROTOTXT_NAME,
    ]
    text = (tmp_path / caffe.PROTOTXT_NAME).read_text()
    assert text.startswith('name: "my net"\nlayer {\n  name: "data"\n  type: "Input"')
    assert "blobs" not in text
    net = caffe_pb2.NetParameter.FromString(
        (tmp_path / caffe.CAFFEMODEL_NAME).read_bytes()
    )
    assert net.name == "my net"
    assert list(net.layer[0].input_param.shape[0].dim) == [1, 3, 8, 8]
    conv = net.layer[1]
    assert conv.type == "Convolution"
    assert conv.phase == caffe_pb2.TEST
    assert list(conv.blobs[0].shape.dim) == [4, 3, 3, 3]
    # Every layer reads blobs made by earlier layers.
    tops = {"data"}
    for layer in net.layer[1:]:
        assert set(layer.bottom) <= tops
        tops.update(layer.top)


def test_export_params_false_writes_the_prototxt_only(tmp_path):
    caffe.export(_Net(), [_x(1, 3, 8, 8)], str(tmp_path), export_params=False)
    assert os.listdir(tmp_path) == [caffe.PROTOTXT_NAME]


def test_no_directory_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    caffe.export(_Net(), [_x(1, 3, 8, 8)])
    assert os.listdir(tmp_path) == []


def test_files_are_replaced_atomically(tmp_path):
    (tmp_path / caffe.PROTOTXT_NAME).write_text("old")
    caffe.export(_Net(), [_x(1, 3, 8, 8)], str(tmp_path))
    assert (tmp_path / caffe.PROTOTXT_NAME).read_text().startswith('name: "Graph"')
    assert sorted(os.listdir(tmp_path)) == [
        caffe.CAFFEMODEL_NAME,
        caffe.PROTOTXT_NAME,
    ]


def test_unsupported_functions_raise():
    class Model(chainer.Chain):
        def forward(self, x):
            return F.exp(x)

    with pytest.raises(ValueError, match="cannot export Exp"):
        caffe.export(Model(), [_x(1, 3)])


def test_pooling_that_caffe_cannot_reproduce_raises():
    class Model(chainer.Chain):
        def forward(self, x):
            return F.max_pooling_2d(x, 2, cover_all=False)

    with pytest.raises(ValueError, match="output size"):
        caffe.export(Model(), [_x(1, 1, 5, 5)])


def test_bad_arguments():
    with pytest.raises(TypeError, match="list or tuple"):
        caffe.export(_Net(), _x(1, 3, 8, 8))

    class ReturnsArray(chainer.Chain):
        def forward(self, x):
            return x.array

    with pytest.raises(TypeError, match="must return a Variable"):
        caffe.export(ReturnsArray(), [_x(1, 3)])
