import numpy
import pytest

import chainer
from chainer import functions as F
from chainer import links as L
from chainer import testing
from chainer.links.model.vision import resnet
from chainer.serializers import npz

_LAYERS = ["conv1", "pool1", "res2", "res3", "res4", "res5", "pool5", "fc6", "prob"]


@pytest.fixture(scope="module")
def model():
    return L.ResNet50Layers(pretrained_model=None)


def _randomize_statistics(model):
    for _, link in model.namedlinks():
        if isinstance(link, L.BatchNormalization):
            size = link.avg_mean.shape
            link.avg_mean[...] = numpy.random.uniform(-1, 1, size)
            link.avg_var[...] = numpy.random.uniform(0.5, 2, size)
            link.gamma.array[...] = numpy.random.uniform(0.5, 2, size)
            link.beta.array[...] = numpy.random.uniform(-1, 1, size)


def _caffe_names(n_layers, stage, count):
    if n_layers == 50 or stage in (2, 5):
        return [f"{stage}{'abcdefgh'[i]}" for i in range(count)]
    return [f"{stage}a"] + [f"{stage}b{i}" for i in range(1, count)]


def _parameter_layers(model, n_layers=50):
    """The Caffe layers of MSRA's ResNet weights, from a model's values."""
    layers = []

    def add_bn(bn, suffix):
        layers.append(
            (f"bn{suffix}", "BatchNorm", [bn.avg_mean * 4, bn.avg_var * 4, [4.0]])
        )
        layers.append((f"scale{suffix}", "Scale", [bn.gamma.array, bn.beta.array]))

    conv1 = model.conv1
    layers.append(("conv1", "Convolution", [conv1.W.array, conv1.b.array]))
    add_bn(model.bn1, "_conv1")
    for stage, count in enumerate((3, 4, 6, 3), 2):
        block = getattr(model, f"res{stage}")
        for i, name in enumerate(_caffe_names(n_layers, stage, count)):
            bottleneck = block.a if i == 0 else getattr(block, f"b{i}")
            branches = [("2a", 1), ("2b", 2), ("2c", 3)] + (
                [("1", 4)] if i == 0 else []
            )
            for branch, j in branches:
                conv = getattr(bottleneck, f"conv{j}")
                layers.append(
                    (f"res{name}_branch{branch}", "Convolution", [conv.W.array])
                )
                add_bn(getattr(bottleneck, f"bn{j}"), f"{name}_branch{branch}")
    layers.append(("fc1000", "InnerProduct", [model.fc6.W.array, model.fc6.b.array]))
    return layers


def test_available_layers(model):
    assert model.available_layers == _LAYERS
    children = sorted(child.name for child in model.res4.children())
    assert children == ["a", "b1", "b2", "b3", "b4", "b5"]
    assert isinstance(model.res4.a, resnet.BottleneckA)
    assert isinstance(model.res4.b5, resnet.BottleneckB)
    assert model.fc6.W.shape == (1000, 2048)


def test_random_initialization(model):
    W = model.res2.a.conv2.W.array
    assert W.shape == (64, 64, 3, 3)
    # HeNormal: std = sqrt(2 / fan_in).
    testing.assert_allclose(W.std(), numpy.sqrt(2.0 / (64 * 9)), rtol=0.05)
    assert model.res2.a.conv1.b is None
    numpy.testing.assert_array_equal(model.conv1.b.array, 0)


def test_forward_small_input(model):
    x = numpy.random.uniform(-1, 1, (2, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        out = model(x, layers=_LAYERS)
    shapes = {k: v.shape for k, v in out.items()}
    assert shapes == {
        "conv1": (2, 64, 16, 16),
        "pool1": (2, 64, 8, 8),
        "res2": (2, 256, 8, 8),
        "res3": (2, 512, 4, 4),
        "res4": (2, 1024, 2, 2),
        "res5": (2, 2048, 1, 1),
        "pool5": (2, 2048),
        "fc6": (2, 1000),
        "prob": (2, 1000),
    }
    testing.assert_allclose(out["prob"].array.sum(axis=1), [1, 1], rtol=1e-5)
    testing.assert_allclose(
        out["pool5"].array, out["res5"].array.reshape(2, 2048), rtol=1e-6
    )
    with chainer.using_config("train", False):
        expected = F.relu(model.bn1(model.conv1(x)))
    testing.assert_allclose(out["conv1"].array, expected.array)


@pytest.mark.parametrize("downsample_fb", [False, True])
def test_bottleneck_a(downsample_fb):
    block = resnet.BottleneckA(4, 3, 8, stride=2, downsample_fb=downsample_fb)
    strides = (block.conv1.stride, block.conv2.stride, block.conv4.stride)
    if downsample_fb:
        assert strides == ((1, 1), (2, 2), (2, 2))
    else:
        assert strides == ((2, 2), (1, 1), (2, 2))
    x = numpy.random.uniform(-1, 1, (2, 4, 6, 6)).astype(numpy.float32)
    with chainer.using_config("train", False):
        y = block(x)

        def conv_bn(conv, bn, h):
            return bn(conv(h))

        h = F.relu(conv_bn(block.conv1, block.bn1, x))
        h = F.relu(conv_bn(block.conv2, block.bn2, h))
        h = conv_bn(block.conv3, block.bn3, h)
        expected = F.relu(h + conv_bn(block.conv4, block.bn4, x))
    assert y.shape == (2, 8, 3, 3)
    testing.assert_allclose(y.array, expected.array)
    assert block.conv1.b is None


def test_bottleneck_b():
    block = resnet.BottleneckB(8, 3)
    x = numpy.random.uniform(-1, 1, (2, 8, 4, 4)).astype(numpy.float32)
    with chainer.using_config("train", False):
        y = block(x)
        h = F.relu(block.bn1(block.conv1(x)))
        h = F.relu(block.bn2(block.conv2(h)))
        expected = F.relu(block.bn3(block.conv3(h)) + x)
    testing.assert_allclose(y.array, expected.array)


def test_building_block_and_serialization(tmp_path, assert_same_state):
    block = resnet.BuildingBlock(3, 4, 2, 8, 2, downsample_fb=True)
    assert [
        name for name, _ in block.namedlinks(skipself=True) if name.count("/") == 1
    ] == [
        "/a",
        "/b1",
        "/b2",
    ]
    assert block.a.conv2.stride == (2, 2)
    x = numpy.random.uniform(-1, 1, (2, 4, 6, 6)).astype(numpy.float32)
    y = block(x)
    assert y.shape == (2, 8, 3, 3)
    path = str(tmp_path / "block.npz")
    npz.save_npz(path, block)
    other = resnet.BuildingBlock(3, 4, 2, 8, 2, downsample_fb=True)
    npz.load_npz(path, other)
    assert_same_state(block, other)


def test_extract(model):
    images = [numpy.random.randint(0, 256, (20, 24, 3)).astype(numpy.uint8)]
    with chainer.using_config("train", False):
        out = model.extract(images, size=(32, 32))
        x = resnet.prepare(images[0], size=(32, 32))[None]
        expected = model(x, layers=["pool5"])["pool5"]
    assert list(out) == ["pool5"]
    testing.assert_allclose(out["pool5"].array, expected.array)


def test_prepare():
    image = numpy.full((8, 6, 3), 200, numpy.uint8)
    out = resnet.prepare(image, size=None)
    testing.assert_allclose(out[:, 0, 0], [200 - 103.063, 200 - 115.903, 200 - 123.152])
    assert resnet.prepare(image, size=(10, 12)).shape == (3, 12, 10)


def test_bad_arguments(model, dataset_root):
    with pytest.raises(ValueError, match="either 50, 101, or 152"):
        resnet.ResNetLayers(None, 34)
    with pytest.raises(OSError, match="ResNet-50-model.caffemodel") as info:
        L.ResNet50Layers()
    assert str(dataset_root) in str(info.value)
    x = numpy.zeros((1, 3, 32, 32), numpy.float32)
    with pytest.raises(ValueError, match="unknown layer"):
        model(x, layers=["fc7"])


@pytest.mark.slow
def test_caffemodel_auto_and_npz(
    model, dataset_root, write_caffemodel, assert_same_state
):
    _randomize_statistics(model)
    path = write_caffemodel(
        dataset_root / "ResNet-50-model.caffemodel", _parameter_layers(model)
    )
    converted = L.ResNet50Layers()
    assert_same_state(model, converted)
    assert (dataset_root / "ResNet-50-model.npz").exists()
    explicit = L.ResNet50Layers(pretrained_model=path)
    assert_same_state(model, explicit)
    x = numpy.random.uniform(-1, 1, (1, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        expected = model(x)["prob"]
        testing.assert_allclose(converted(x)["prob"].array, expected.array)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cls", "n_layers", "blocks"),
    [(L.ResNet101Layers, 101, (3, 4, 23, 3)), (L.ResNet152Layers, 152, (3, 8, 36, 3))],
)
def test_deeper_resnets(cls, n_layers, blocks, tmp_path):
    deep = cls(pretrained_model=None, downsample_fb=True)
    for stage, count in enumerate(blocks, 2):
        assert len(list(getattr(deep, f"res{stage}").children())) == count
    assert deep.res3.a.conv2.stride == (2, 2)
    x = numpy.random.uniform(-1, 1, (1, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        out = deep(x, layers=["res5", "prob"])
    assert out["res5"].shape == (1, 2048, 1, 1)
    testing.assert_allclose(out["prob"].array.sum(), 1.0, rtol=1e-5)
    # The Caffe names of the blocks of the deeper models: 3a, 3b1, 3b2, ...
    names = resnet._caffe_block_names(n_layers, 4, blocks[2])
    assert names[:3] == ["4a", "4b1", "4b2"]
    assert names[-1] == f"4b{blocks[2] - 1}"
    assert resnet._caffe_block_names(n_layers, 5, 3) == ["5a", "5b", "5c"]


def test_available_flag_means_prepare_runs():
    # Chainer's flag guards prepare(); ours needs no Pillow for arrays.
    assert resnet.available is True
    image = numpy.zeros((5, 7, 3), numpy.uint8)
    assert resnet.prepare(image, size=(4, 4)).shape == (3, 4, 4)
