import numpy
import pytest

import chainer
from chainer import functions as F
from chainer import initializer
from chainer import initializers
from chainer import links as L
from chainer import testing
from chainer.links.model.vision import vgg

_CONVS16 = [
    "conv1_1", "conv1_2", "conv2_1", "conv2_2", "conv3_1", "conv3_2", "conv3_3",
    "conv4_1", "conv4_2", "conv4_3", "conv5_1", "conv5_2", "conv5_3",
]  # fmt: skip


def _layers16():
    layers = []
    for name in _CONVS16:
        layers.append(name)
        if name in ("conv1_2", "conv2_2", "conv3_3", "conv4_3", "conv5_3"):
            layers.append(f"pool{name[4]}")
    return [*layers, "fc6", "fc7", "fc8", "prob"]


class _Pattern(initializer.Initializer):
    """Distinct small values per array, much faster than sampling 138M normals."""

    count = 0

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def __call__(self, array):
        _Pattern.count += 1
        array.fill(self.scale * (1 + _Pattern.count / 100) / 10)
        flat = array.reshape(-1)
        flat[1::2] *= -1
        flat[::3] *= 0.5


@pytest.fixture
def fast_init(monkeypatch):
    """Replaces VGG's Normal(0.01) initializer; returns the scales it was given."""
    scales = []

    class Initializers:
        Zero = initializers.Zero

        @staticmethod
        def Normal(scale):
            scales.append(scale)
            return _Pattern(scale)

    monkeypatch.setattr(vgg, "initializers", Initializers)
    return scales


def test_prepare():
    image = numpy.full((8, 6, 3), 200, numpy.uint8)
    out = vgg.prepare(image, size=None)
    assert out.shape == (3, 8, 6)
    testing.assert_allclose(out[:, 0, 0], [200 - 103.939, 200 - 116.779, 200 - 123.68])
    assert vgg.prepare(image).shape == (3, 224, 224)


def test_bad_n_layers():
    with pytest.raises(ValueError, match="either 16 or 19"):
        vgg.VGGLayers(pretrained_model=None, n_layers=11)


def test_auto_without_weights(dataset_root):
    with pytest.raises(OSError, match="never downloads") as info:
        L.VGG16Layers()
    message = str(info.value)
    assert str(dataset_root / "VGG_ILSVRC_16_layers.npz") in message
    assert str(dataset_root / "VGG_ILSVRC_16_layers.caffemodel") in message
    assert "robots.ox.ac.uk" in message


@pytest.mark.slow
def test_vgg16(tmp_path, fast_init, write_caffemodel, assert_same_state):
    model = L.VGG16Layers(pretrained_model=None)
    assert model.available_layers == _layers16()
    assert model.fc6.W.shape == (4096, 512 * 7 * 7)
    # Normal(0.01) weights and zero biases, as in the paper.
    assert fast_init == [0.01]
    numpy.testing.assert_array_equal(model.fc7.b.array, 0)

    x = numpy.random.uniform(-1, 1, (1, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        out = model(x, layers=["conv1_2", "pool1", "pool5"])
        expected = F.max_pooling_2d(F.relu(model.conv1_2(F.relu(model.conv1_1(x)))), 2)
    assert out["pool5"].shape == (1, 512, 1, 1)
    testing.assert_allclose(out["pool1"].array, expected.array)

    image = numpy.random.randint(0, 256, (40, 30, 3)).astype(numpy.uint8)
    with chainer.using_config("train", False):
        small = model.extract([image], layers=["pool5"], size=(32, 32))
        expected = model(vgg.prepare(image, size=(32, 32))[None], layers=["pool5"])
        testing.assert_allclose(small["pool5"].array, expected["pool5"].array)
        # By default, the 224x224 image's fc7 features.
        features = model.extract([image])
    assert list(features) == ["fc7"]
    assert features["fc7"].shape == (1, 4096)

    # The original weights are a legacy-format (V1) caffemodel.
    layers = [
        (n, "Convolution", [model[n].W.array, model[n].b.array]) for n in _CONVS16
    ]
    layers += [
        (n, "InnerProduct", [model[n].W.array, model[n].b.array])
        for n in ("fc6", "fc7", "fc8")
    ]
    path = write_caffemodel(
        tmp_path / "VGG_ILSVRC_16_layers.caffemodel", layers, v1=True
    )
    del layers
    converted = L.VGG16Layers(pretrained_model=path)
    assert_same_state(model, converted)


def test_vgg19(fast_init):
    model = L.VGG19Layers(pretrained_model=None)
    layers = model.available_layers
    assert layers.index("conv3_4") == layers.index("pool3") - 1
    assert layers.index("conv5_4") == layers.index("pool5") - 1
    assert len([name for name in layers if name.startswith("conv")]) == 16
    x = numpy.random.uniform(-1, 1, (1, 3, 32, 32)).astype(numpy.float32)
    with chainer.using_config("train", False):
        out = model(x, layers=["conv4_4", "pool5"])
    assert out["conv4_4"].shape == (1, 512, 4, 4)
    assert out["pool5"].shape == (1, 512, 1, 1)


def test_available_flag_means_prepare_runs():
    # Chainer's flag guards prepare(); ours needs no Pillow for arrays.
    assert vgg.available is True
    image = numpy.zeros((5, 7, 3), numpy.uint8)
    assert vgg.prepare(image, size=(4, 4)).shape == (3, 4, 4)
