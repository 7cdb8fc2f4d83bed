"""VGG16 and VGG19 (Simonyan and Zisserman, 2014) with their Caffe weights."""

import collections

from chainer import initializers
from chainer.functions.activation import relu
from chainer.functions.activation import softmax
from chainer.functions.noise import dropout
from chainer.functions.pooling import max_pooling_2d
from chainer.links.connection import convolution_2d
from chainer.links.connection import linear
from chainer.links.model.vision import _common

# Whether prepare() can run. Chainer sets it when Pillow imports; ours resizes
# arrays itself and needs Pillow only for PIL images, so it is always True.
available = True

_URL = "https://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/"

# Convolutions of each block: (name, out_channels) for VGG16; VGG19 adds a
# fourth convolution to blocks 3, 4 and 5.
_BLOCKS16 = (
    (("conv1_1", 64), ("conv1_2", 64)),
    (("conv2_1", 128), ("conv2_2", 128)),
    (("conv3_1", 256), ("conv3_2", 256), ("conv3_3", 256)),
    (("conv4_1", 512), ("conv4_2", 512), ("conv4_3", 512)),
    (("conv5_1", 512), ("conv5_2", 512), ("conv5_3", 512)),
)
_FC_NAMES = ("fc6", "fc7", "fc8")


def _blocks(n_layers):
    if n_layers == 16:
        return _BLOCKS16
    return tuple(
        (*block, (f"conv{i}_4", block[-1][1])) if i >= 3 else block
        for i, block in enumerate(_BLOCKS16, 1)
    )


def _max_pooling_2d(x):
    return max_pooling_2d.max_pooling_2d(x, ksize=2)


class VGGLayers(_common.PretrainedModel):
    """A pre-trained CNN model provided by VGG team.

    The architecture of VGG16 or VGG19 (the "D" and "E" configurations of
    the paper): blocks of 3x3 convolutions with ReLU, each followed by 2x2
    max pooling, and three fully connected layers. The layers are named as
    in the original Caffe model (``conv1_1`` ... ``conv5_3``, ``fc6`` ...
    ``fc8``), so the weights of `the original caffemodel
    <https://www.robots.ox.ac.uk/~vgg/research/very_deep/>`_ can be loaded.
    Weights are never downloaded: with ``pretrained_model='auto'`` the
    converted ``VGG_ILSVRC_16_layers.npz`` (or ``..._19_layers.npz``) is read
    from ``$CHAINER_DATASET_ROOT/pfnet/chainer/models/``; if only the
    caffemodel of the same name is there, it is converted to that file on
    first use. :meth:`convert_caffemodel_to_npz` converts one explicitly.

    The input is a batch of ``(3, 224, 224)`` BGR images with the mean pixel
    subtracted (:func:`prepare`); the convolutional layers accept other
    sizes too, ``fc6`` needs ``pool5`` to be ``(512, 7, 7)``.

    Args:
        pretrained_model (str): ``'auto'``, a path to an ``.npz`` of the
            weights, a path to the original ``.caffemodel`` (converted while
            loading), or None/empty for random initialization (``Normal(0.01)``
            weights and zero biases, as in the paper). When weights are
            loaded, parameters start as zeros, which is faster than sampling.
        n_layers (int): 16 or 19.

    Attributes:
        available_layers (list of str): The layers :meth:`forward` can
            return: ``conv1_1`` ... ``pool5``, ``fc6``, ``fc7``, ``fc8`` and
            ``prob``.
    """

    _extract_layers = ("fc7",)

    def __init__(self, pretrained_model="auto", n_layers=16):
        super().__init__()
        if n_layers not in (16, 19):
            raise ValueError(
                "The n_layers argument should be either 16 or 19, "
                f"but {n_layers} was given."
            )
        if pretrained_model:
            init = initializers.Zero()
            kwargs = {"initialW": init, "initial_bias": init}
        else:
            kwargs = {
                "initialW": initializers.Normal(0.01),
                "initial_bias": initializers.Zero(),
            }
        self._n_layers = n_layers
        with self.init_scope():
            in_channels = 3
            for block in _blocks(n_layers):
                for name, out_channels in block:
                    conv = convolution_2d.Convolution2D(
                        in_channels, out_channels, 3, 1, 1, **kwargs
                    )
                    setattr(self, name, conv)
                    in_channels = out_channels
            self.fc6 = linear.Linear(512 * 7 * 7, 4096, **kwargs)
            self.fc7 = linear.Linear(4096, 4096, **kwargs)
            self.fc8 = linear.Linear(4096, 1000, **kwargs)
        name = f"VGG_ILSVRC_{n_layers}_layers"
        url = _URL + name + ".caffemodel"
        _common.load_pretrained(self, pretrained_model, name, url, _transfer)

    @property
    def functions(self):
        """collections.OrderedDict: Layer names mapped to lists of callables."""
        functions = collections.OrderedDict()
        for i, block in enumerate(_blocks(self._n_layers), 1):
            for name, _ in block:
                functions[name] = [getattr(self, name), relu.relu]
            functions[f"pool{i}"] = [_max_pooling_2d]
        functions["fc6"] = [self.fc6, relu.relu, dropout.dropout]
        functions["fc7"] = [self.fc7, relu.relu, dropout.dropout]
        functions["fc8"] = [self.fc8]
        functions["prob"] = [softmax.softmax]
        return functions

    @staticmethod
    def _prepare(image, size=(224, 224)):
        return prepare(image, size)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz, n_layers=16):
        """Converts a pre-trained caffemodel to a chainer model.

        Args:
            path_caffemodel (str): Path of the pre-trained caffemodel.
            path_npz (str): Path of the converted chainer model.
            n_layers (int): 16 or 19.
        """
        model = VGGLayers(pretrained_model=path_caffemodel, n_layers=n_layers)
        _common.save_converted(model, path_npz)


class VGG16Layers(VGGLayers):
    """A pre-trained CNN model with 16 layers provided by VGG team.

    See :class:`VGGLayers`; the weights file is ``VGG_ILSVRC_16_layers``.

    Args:
        pretrained_model (str): ``'auto'``, a path to an ``.npz`` or
            ``.caffemodel`` file, or None for random initialization.
    """

    def __init__(self, pretrained_model="auto"):
        super().__init__(pretrained_model, 16)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz):
        """Converts the VGG16 caffemodel to an npz of this model.

        Args:
            path_caffemodel (str): Path of the pre-trained caffemodel.
            path_npz (str): Path of the converted chainer model.
        """
        VGGLayers.convert_caffemodel_to_npz(path_caffemodel, path_npz, 16)


class VGG19Layers(VGGLayers):
    """A pre-trained CNN model with 19 layers provided by VGG team.

    See :class:`VGGLayers`; the weights file is ``VGG_ILSVRC_19_layers``.

    Args:
        pretrained_model (str): ``'auto'``, a path to an ``.npz`` or
            ``.caffemodel`` file, or None for random initialization.
    """

    def __init__(self, pretrained_model="auto"):
        super().__init__(pretrained_model, 19)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz):
        """Converts the VGG19 caffemodel to an npz of this model.

        Args:
            path_caffemodel (str): Path of the pre-trained caffemodel.
            path_npz (str): Path of the converted chainer model.
        """
        VGGLayers.convert_caffemodel_to_npz(path_caffemodel, path_npz, 19)


def prepare(image, size=(224, 224)):
    """Converts the given image to the numpy array for VGG models.

    Call it before ``forward``: the pre-trained VGG model needs the image
    resized, converted from RGB to BGR, with the mean pixel subtracted, and
    in CHW order.

    Args:
        image (PIL.Image or numpy.ndarray): Input image. An array has shape
            ``(height, width)``, ``(height, width, channels)`` or
            ``(channels, height, width)`` with RGB channels. Arrays work
            without Pillow (resized with Pillow's bicubic filter emulated);
            PIL images need it.
        size (pair of ints): Size ``(width, height)`` of converted images.
            If None, the given image is not resized.

    Returns:
        numpy.ndarray: The converted ``(3, height, width)`` array.
    """
    # NOTE: the paper subtracts a mean image; the mean pixel (as the VGG team
    # does) allows arbitrary sizes.
    return _common.prepare_image(image, size, (103.939, 116.779, 123.68))


def _transfer(caffemodel, model):
    names = [name for block in _blocks(model._n_layers) for name, _ in block]
    for name in names + list(_FC_NAMES):
        _common.copy_layer(caffemodel, name, getattr(model, name))
