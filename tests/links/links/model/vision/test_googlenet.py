import os

import numpy
import pytest

import chainer
from chainer import functions as F
from chainer import links as L
from chainer import testing
from chainer.links.model.vision import googlenet
from chainer.serializers import npz

_LAYERS = [
    "conv1", "pool1", "conv2_reduce", "conv2", "pool2", "inception_3a",
    "inception_3b", "pool3", "inception_4a", "inception_4b", "inception_4c",
    "inception_4d", "inception_4e", "pool4", "inception_5a", "inception_5b",
    "pool5", "loss3_fc", "prob", "loss1_fc2", "loss2_fc2",
]  # fmt: skip

# Shapes for a 32x32 input, up to the last layer that a small input reaches.
_SMALL_SHAPES = {
    "conv1": (2, 64, 16, 16),
    "pool1": (2, 64, 8, 8),
    "conv2_reduce": (2, 64, 8, 8),
    "conv2": (2, 192, 8, 8),
    "pool2": (2, 192, 4, 4),
    "inception_3a": (2, 256, 4, 4),
    "inception_3b": (2, 480, 4, 4),
    "pool3": (2, 480, 2, 2),
    "inception_4a": (2, 512, 2, 2),
    "inception_4d": (2, 528, 2, 2),
    "inception_4e": (2, 832, 2, 2),
    "pool4": (2, 832, 1, 1),
    "inception_5b": (2, 1024, 1, 1),
}


@pytest.fixture(scope="module")
def model():
    return L.GoogLeNet(pretrained_model=None)


def _parameter_layers(model):
    """The Caffe layers of BVLC GoogLeNet's weights, from a model's values."""
    layers = []

    def add(name, link):
        layers.append((name, "Convolution", [link.W.array, link.b.array]))

    add("conv1/7x7_s2", model.conv1)
    add("conv2/3x3_reduce", model.conv2_reduce)
    add("conv2/3x3", model.conv2)
    for name in ("3a", "3b", "4a", "4b", "4c", "4d", "4e", "5a", "5b"):
        inc = getattr(model, "inc" + name)
        for suffix, child in (
            ("1x1", inc.conv1),
            ("3x3_reduce", inc.proj3),
            ("3x3", inc.conv3),
            ("5x5_reduce", inc.proj5),
            ("5x5", inc.conv5),
            ("pool_proj", inc.projp),
        ):
            add(f"inception_{name}/{suffix}", child)
    for i in (1, 2):
        add(f"loss{i}/conv", getattr(model, f"loss{i}_conv"))
        for suffix, child in (("fc", "fc1"), ("classifier", "fc2")):
            link = getattr(model, f"loss{i}_{child}")
            layers.append(
                (f"loss{i}/{suffix}", "InnerProduct", [link.W.array, link.b.array])
            )
    fc = model.loss3_fc
    layers.append(("loss3/classifier", "InnerProduct", [fc.W.array, fc.b.array]))
    return layers


def test_available_layers(model):
    assert model.available_layers == _LAYERS
    assert list(model.functions) == _LAYERS
    assert isinstance(model.inc3a, L.Inception)
    assert model.loss3_fc.W.shape == (1000, 1024)


def test_random_initialization(model):
    # LeCunUniform: U(-sqrt(3 / fan_in), sqrt(3 / fan_in)).
    bound = numpy.sqrt(3.0 / (3 * 7 * 7))
    W = model.conv1.W.array
    assert W.shape == (64, 3, 7, 7)
    assert numpy.abs(W).max() <= bound
    assert numpy.abs(W).max() > 0.9 * bound
    numpy.testing.assert_array_equal(model.conv1.b.array, 0)


def test_forward_small_input(model):
    x = numpy.random.uniform(-1, 1, (2, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        out = model(x, layers=list(_SMALL_SHAPES))
    assert {k: v.shape for k, v in out.items()} == _SMALL_SHAPES
    expected = F.relu(model.conv1(x))
    testing.assert_allclose(out["conv1"].array, expected.array)
    # forward stops after the last requested layer.
    with chainer.using_config("train", False):
        only = model(x, layers=["pool2"])
    assert list(only) == ["pool2"]
    testing.assert_allclose(only["pool2"].array, out["pool2"].array)


def test_backward_reaches_parameters(model):
    x = numpy.random.uniform(-1, 1, (1, 3, 32, 32)).astype(numpy.float32)
    model.cleargrads()
    h = model(x, layers=["inception_3a"])["inception_3a"]
    F.sum(h).backward()
    assert model.conv1.W.grad is not None
    assert model.inc3a.conv1.W.grad is not None
    assert model.inc3b.conv1.W.grad is None
    model.cleargrads()


def test_bad_inputs(model):
    x = numpy.zeros((1, 3, 32, 32), numpy.float32)
    with pytest.raises(ValueError, match="unknown layer"):
        model(x, layers=["fc7"])
    with pytest.raises(TypeError, match="list of layer names"):
        model(x, layers="pool1")
    with pytest.raises(ValueError, match=r"\(N, 3, H, W\)"):
        model(numpy.zeros((1, 1, 32, 32), numpy.float32), layers=["conv1"])
    with pytest.raises(ValueError, match="test argument is not supported"):
        model(x, layers=["conv1"], test=True)


def test_extract(model):
    images = [
        numpy.random.randint(0, 256, (40, 30, 3)).astype(numpy.uint8) for _ in range(2)
    ]
    with chainer.using_config("train", False):
        out = model.extract(images, layers=["pool2"], size=(32, 32))
        x = numpy.stack([googlenet.prepare(img, size=(32, 32)) for img in images])
        expected = model(x, layers=["pool2"])["pool2"]
    assert list(out) == ["pool2"]
    testing.assert_allclose(out["pool2"].array, expected.array)


def test_prepare():
    image = numpy.full((8, 6, 3), 200, numpy.uint8)
    out = googlenet.prepare(image, size=None)
    assert out.shape == (3, 8, 6)
    numpy.testing.assert_allclose(out[:, 0, 0], [200 - 104.0, 200 - 117.0, 200 - 123.0])
    assert googlenet.prepare(image).shape == (3, 224, 224)


def test_npz_round_trip(model, tmp_path, assert_same_state):
    path = str(tmp_path / "googlenet.npz")
    npz.save_npz(path, model, compression=False)
    loaded = L.GoogLeNet(pretrained_model=path)
    assert_same_state(model, loaded)


def test_caffemodel(model, tmp_path, write_caffemodel, assert_same_state):
    path = write_caffemodel(
        tmp_path / "bvlc_googlenet.caffemodel", _parameter_layers(model)
    )
    converted = L.GoogLeNet(pretrained_model=path)
    assert_same_state(model, converted)
    path_npz = str(tmp_path / "converted.npz")
    L.GoogLeNet.convert_caffemodel_to_npz(path, path_npz)
    loaded = L.GoogLeNet(pretrained_model=path_npz)
    assert_same_state(model, loaded)


def test_auto(model, dataset_root, write_caffemodel, assert_same_state):
    with pytest.raises(OSError, match="never downloads") as info:
        L.GoogLeNet()
    assert str(dataset_root / "bvlc_googlenet.caffemodel") in str(info.value)
    caffemodel = write_caffemodel(
        dataset_root / "bvlc_googlenet.caffemodel", _parameter_layers(model)
    )
    converted = L.GoogLeNet()
    assert_same_state(model, converted)
    # The conversion is cached next to the caffemodel and used from now on.
    assert (dataset_root / "bvlc_googlenet.npz").exists()
    os.remove(caffemodel)
    assert_same_state(model, L.GoogLeNet(pretrained_model="auto"))


def test_caffemodel_of_another_network(tmp_path, write_caffemodel):
    path = write_caffemodel(
        tmp_path / "other.caffemodel",
        [("conv1", "Convolution", [numpy.zeros((2, 3, 3, 3)), numpy.zeros(2)])],
    )
    with pytest.raises(ValueError, match="no parameterized layer named 'conv1/7x7_s2'"):
        L.GoogLeNet(pretrained_model=path)


@pytest.mark.slow
def test_full_size_forward_and_predict(model):
    image = numpy.random.randint(0, 256, (300, 280, 3)).astype(numpy.uint8)
    x = googlenet.prepare(image, size=(256, 256))[None]
    crops = numpy.concatenate(
        [
            x[:, :, :224, :224],
            x[:, :, :224, 32:],
            x[:, :, 32:, :224],
            x[:, :, 32:, 32:],
            x[:, :, 16:240, 16:240],
        ]
    )
    crops = numpy.concatenate([crops, crops[:, :, :, ::-1]])
    names = ["inception_4a", "pool5", "prob", "loss1_fc2", "loss2_fc2"]
    with chainer.using_config("train", False):
        out = model(crops, layers=names)
        # The auxiliary classifiers start from inception_4a (and 4d).
        h = out["inception_4a"]
        for func in model.functions["loss1_fc2"]:
            h = func(h)
    assert out["pool5"].shape == (10, 1024, 1, 1)
    testing.assert_allclose(out["prob"].array.sum(axis=1), numpy.ones(10), rtol=1e-5)
    assert out["loss2_fc2"].shape == (10, 1000)
    testing.assert_allclose(out["loss1_fc2"].array, h.array)

    center = model.predict([image], oversample=False)
    assert center.shape == (1, 1000)
    assert center.creator is None
    prob = out["prob"].array
    testing.assert_allclose(center.array[0], prob[4], atol=1e-6, rtol=1e-4)
    ten = model.predict([image])
    assert ten.shape == (1, 1000)
    testing.assert_allclose(ten.array[0], prob.mean(axis=0), atol=1e-6, rtol=1e-4)


def test_available_flag_means_prepare_runs():
    # Chainer's flag guards prepare(); ours needs no Pillow for arrays.
    assert googlenet.available is True
    image = numpy.zeros((5, 7, 3), numpy.uint8)
    assert googlenet.prepare(image, size=(4, 4)).shape == (3, 4, 4)
