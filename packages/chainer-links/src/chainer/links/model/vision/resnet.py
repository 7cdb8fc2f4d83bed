"""Deep residual networks (He et al., 2016) with the weights of MSRA's Caffe models."""

import collections

from chainer import initializers
from chainer import link
from chainer.functions.activation import relu
from chainer.functions.activation import softmax
from chainer.functions.array import reshape
from chainer.functions.pooling import average_pooling_2d
from chainer.functions.pooling import max_pooling_2d
from chainer.links.connection import convolution_2d
from chainer.links.connection import linear
from chainer.links.model.vision import _common
from chainer.links.normalization import batch_normalization

# Whether prepare() can run. Chainer sets it when Pillow imports; ours resizes
# arrays itself and needs Pillow only for PIL images, so it is always True.
available = True

_URL = "https://github.com/KaimingHe/deep-residual-networks"

# Bottlenecks per stage, and the Caffe names of the blocks after the first
# one of stages 3 and 4 (stages 2 and 5 use letters in all three models).
_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}


def _caffe_block_names(n_layers, stage, count):
    if n_layers == 50 or stage in (2, 5):
        return [f"{stage}{chr(ord('a') + i)}" for i in range(count)]
    return [f"{stage}a"] + [f"{stage}b{i}" for i in range(1, count)]


def _max_pooling_2d(x):
    return max_pooling_2d.max_pooling_2d(x, ksize=3, stride=2)


def _global_average_pooling_2d(x):
    n, channels, rows, cols = x.shape
    h = average_pooling_2d.average_pooling_2d(x, (rows, cols), stride=1)
    return reshape.reshape(h, (n, channels))


class ResNetLayers(_common.PretrainedModel):
    """A pre-trained CNN model provided by MSRA.

    ResNet-50, -101 or -152 (the architectures of the paper): a 7x7
    convolution with batch normalization, max pooling, four stages of
    bottleneck blocks (:class:`BuildingBlock` ``res2`` ... ``res5``), global
    average pooling and a fully connected layer. The weights of `the
    original caffemodels <https://github.com/KaimingHe/deep-residual-networks>`_
    load into it. They are not downloadable without a form, and this class
    never downloads: place ``ResNet-{50,101,152}-model.caffemodel`` in
    ``$CHAINER_DATASET_ROOT/pfnet/chainer/models/`` (``'auto'`` converts it
    to ``ResNet-*-model.npz`` there on first use), or pass its path.

    The input is a batch of BGR images with the mean pixel subtracted
    (:func:`prepare`), usually ``(3, 224, 224)``; any size from 32x32 works
    as the pooling before ``fc6`` is global.

    Args:
        pretrained_model (str): ``'auto'`` (``ResNet-{n}-model``), a path to
            an ``.npz`` of the weights, a path to a ``.caffemodel``
            (converted while loading), or None/empty for random
            initialization (``HeNormal`` convolutions, as in the paper).
            When weights are loaded, convolutions start as zeros, which is
            faster than sampling.
        n_layers (int): 50, 101 or 152.
        downsample_fb (bool): If True, the stride 2 of the first bottleneck
            of a stage is on its 3x3 convolution (Facebook's ResNet);
            otherwise on its first 1x1 convolution (the original MSRA
            ResNet, which the caffemodels are).

    Attributes:
        available_layers (list of str): The layers :meth:`forward` can
            return: ``conv1``, ``pool1``, ``res2`` ... ``res5``, ``pool5``,
            ``fc6`` and ``prob``.
    """

    _extract_layers = ("pool5",)

    def __init__(self, pretrained_model, n_layers, downsample_fb=False):
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(
                "The n_layers argument should be either 50, 101, or 152, "
                f"but {n_layers} was given."
            )
        if pretrained_model:
            initialW = initializers.Zero()
        else:
            initialW = initializers.HeNormal(scale=1.0)
        blocks = _BLOCKS[n_layers]
        self._n_layers = n_layers
        with self.init_scope():
            self.conv1 = convolution_2d.Convolution2D(3, 64, 7, 2, 3, initialW=initialW)
            self.bn1 = batch_normalization.BatchNormalization(64)
            self.res2 = BuildingBlock(
                blocks[0], 64, 64, 256, 1, initialW, downsample_fb
            )
            self.res3 = BuildingBlock(
                blocks[1], 256, 128, 512, 2, initialW, downsample_fb
            )
            self.res4 = BuildingBlock(
                blocks[2], 512, 256, 1024, 2, initialW, downsample_fb
            )
            self.res5 = BuildingBlock(
                blocks[3], 1024, 512, 2048, 2, initialW, downsample_fb
            )
            self.fc6 = linear.Linear(2048, 1000)
        name = f"ResNet-{n_layers}-model"
        _common.load_pretrained(self, pretrained_model, name, _URL, _transfer)

    @property
    def functions(self):
        """collections.OrderedDict: Layer names mapped to lists of callables."""
        return collections.OrderedDict(
            [
                ("conv1", [self.conv1, self.bn1, relu.relu]),
                ("pool1", [_max_pooling_2d]),
                ("res2", [self.res2]),
                ("res3", [self.res3]),
                ("res4", [self.res4]),
                ("res5", [self.res5]),
                ("pool5", [_global_average_pooling_2d]),
                ("fc6", [self.fc6]),
                ("prob", [softmax.softmax]),
            ]
        )

    @staticmethod
    def _prepare(image, size=(224, 224)):
        return prepare(image, size)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz, n_layers=50):
        """Converts a pre-trained caffemodel to a chainer model.

        Args:
            path_caffemodel (str): Path of the pre-trained caffemodel.
            path_npz (str): Path of the converted chainer model.
            n_layers (int): 50, 101 or 152.
        """
        model = ResNetLayers(path_caffemodel, n_layers)
        _common.save_converted(model, path_npz)


class ResNet50Layers(ResNetLayers):
    """A pre-trained CNN model with 50 layers provided by MSRA.

    See :class:`ResNetLayers`; ``'auto'`` reads ``ResNet-50-model.npz`` (or
    converts ``ResNet-50-model.caffemodel``) in the models directory.

    Args:
        pretrained_model (str): ``'auto'``, a path to an ``.npz`` or
            ``.caffemodel`` file, or None for random initialization.
        downsample_fb (bool): Stride on the 3x3 convolutions (see
            :class:`ResNetLayers`).
    """

    def __init__(self, pretrained_model="auto", downsample_fb=False):
        super().__init__(pretrained_model, 50, downsample_fb)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz):
        """Converts ``ResNet-50-model.caffemodel`` to an npz of this model.

        Args:
            path_caffemodel (str): Path of the pre-trained caffemodel.
            path_npz (str): Path of the converted chainer model.
        """
        ResNetLayers.convert_caffemodel_to_npz(path_caffemodel, path_npz, 50)


class ResNet101Layers(ResNetLayers):
    """A pre-trained CNN model with 101 layers provided by MSRA.

    See :class:`ResNetLayers`; ``'auto'`` reads ``ResNet-101-model.npz`` (or
    converts ``ResNet-101-model.caffemodel``) in the models directory.

    Args:
        pretrained_model (str): ``'auto'``, a path to an ``.npz`` or
            ``.caffemodel`` file, or None for random initialization.
        downsample_fb (bool): Stride on the 3x3 convolutions (see
            :class:`ResNetLayers`).
    """

    def __init__(self, pretrained_model="auto", downsample_fb=False):
        super().__init__(pretrained_model, 101, downsample_fb)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz):
        """Converts ``ResNet-101-model.caffemodel`` to an npz of this model.

        Args:
            path_caffemodel (str): Path of the pre-trained caffemodel.
            path_npz (str): Path of the converted chainer model.
        """
        ResNetLayers.convert_caffemodel_to_npz(path_caffemodel, path_npz, 101)


class ResNet152Layers(ResNetLayers):
    """A pre-trained CNN model with 152 layers provided by MSRA.

    See :class:`ResNetLayers`; ``'auto'`` reads ``ResNet-152-model.npz`` (or
    converts ``ResNet-152-model.caffemodel``) in the models directory.

    Args:
        pretrained_model (str): ``'auto'``, a path to an ``.npz`` or
            ``.caffemodel`` file, or None for random initialization.
        downsample_fb (bool): Stride on the 3x3 convolutions (see
            :class:`ResNetLayers`).
    """

    def __init__(self, pretrained_model="auto", downsample_fb=False):
        super().__init__(pretrained_model, 152, downsample_fb)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz):
        """Converts ``ResNet-152-model.caffemodel`` to an npz of this model.

        Args:
            path_caffemodel (str): Path of the pre-trained caffemodel.
            path_npz (str): Path of the converted chainer model.
        """
        ResNetLayers.convert_caffemodel_to_npz(path_caffemodel, path_npz, 152)


def prepare(image, size=(224, 224)):
    """Converts the given image to the numpy array for ResNets.

    Call it before ``forward``: the pre-trained ResNets need the image
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
    # NOTE: the mean pixel of ResNet's training set differs slightly from
    # VGG's.
    return _common.prepare_image(image, size, (103.063, 115.903, 123.152))


class BuildingBlock(link.Chain):
    """A stage of bottlenecks: one :class:`BottleneckA`, then :class:`BottleneckB`.

    The children are named ``a``, ``b1``, ``b2``, ...

    Args:
        n_layer (int): Number of bottlenecks.
        in_channels (int): Number of channels of the input.
        mid_channels (int): Number of channels inside the bottlenecks.
        out_channels (int): Number of channels of the output.
        stride (int or tuple of ints): Stride of the first bottleneck.
        initialW (initializer): Initializer of the convolution weights.
        downsample_fb (bool): If True, the stride is on the 3x3 convolution
            (Facebook's ResNet); otherwise on the first 1x1 convolution
            (MSRA's).
    """

    def __init__(
        self,
        n_layer,
        in_channels,
        mid_channels,
        out_channels,
        stride,
        initialW=None,
        downsample_fb=False,
    ):
        super().__init__()
        with self.init_scope():
            self.a = BottleneckA(
                in_channels,
                mid_channels,
                out_channels,
                stride,
                initialW,
                downsample_fb,
            )
            self._forward = ["a"]
            for i in range(1, n_layer):
                name = f"b{i}"
                setattr(self, name, BottleneckB(out_channels, mid_channels, initialW))
                self._forward.append(name)

    def forward(self, x):
        """Applies the bottlenecks in order.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): ``(N, in_channels, H, W)``.

        Returns:
            ~chainer.Variable: ``(N, out_channels, H', W')`` where the size is
            divided by ``stride``.
        """
        for name in self._forward:
            x = getattr(self, name)(x)
        return x


class BottleneckA(link.Chain):
    """A bottleneck that changes the size: its shortcut is a 1x1 convolution.

    ``relu(bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x)))))))) + bn4(conv4(x)))``
    with 1x1, 3x3 and 1x1 convolutions (no biases) and a strided 1x1
    projection shortcut.

    Args:
        in_channels (int): Number of channels of the input.
        mid_channels (int): Number of channels of the 3x3 convolution.
        out_channels (int): Number of channels of the output.
        stride (int or tuple of ints): Stride of the block.
        initialW (initializer): Initializer of the convolution weights.
        downsample_fb (bool): If True, the stride is on the 3x3 convolution;
            otherwise on the first 1x1 convolution.
    """

    def __init__(
        self,
        in_channels,
        mid_channels,
        out_channels,
        stride=2,
        initialW=None,
        downsample_fb=False,
    ):
        super().__init__()
        # MSRA's ResNet strides the first 1x1 convolution, Facebook's the 3x3.
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        with self.init_scope():
            self.conv1 = convolution_2d.Convolution2D(
                in_channels,
                mid_channels,
                1,
                stride_1x1,
                0,
                initialW=initialW,
                nobias=True,
            )
            self.bn1 = batch_normalization.BatchNormalization(mid_channels)
            self.conv2 = convolution_2d.Convolution2D(
                mid_channels,
                mid_channels,
                3,
                stride_3x3,
                1,
                initialW=initialW,
                nobias=True,
            )
            self.bn2 = batch_normalization.BatchNormalization(mid_channels)
            self.conv3 = convolution_2d.Convolution2D(
                mid_channels, out_channels, 1, 1, 0, initialW=initialW, nobias=True
            )
            self.bn3 = batch_normalization.BatchNormalization(out_channels)
            self.conv4 = convolution_2d.Convolution2D(
                in_channels,
                out_channels,
                1,
                stride,
                0,
                initialW=initialW,
                nobias=True,
            )
            self.bn4 = batch_normalization.BatchNormalization(out_channels)

    def forward(self, x):
        """Computes the block.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): ``(N, in_channels, H, W)``.

        Returns:
            ~chainer.Variable: ``(N, out_channels, H', W')``.
        """
        h1 = relu.relu(self.bn1(self.conv1(x)))
        h1 = relu.relu(self.bn2(self.conv2(h1)))
        h1 = self.bn3(self.conv3(h1))
        h2 = self.bn4(self.conv4(x))
        return relu.relu(h1 + h2)


class BottleneckB(link.Chain):
    """A bottleneck that keeps the size: its shortcut is the identity.

    ``relu(bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x)))))))) + x)`` with 1x1,
    3x3 and 1x1 convolutions without biases.

    Args:
        in_channels (int): Number of channels of the input and the output.
        mid_channels (int): Number of channels of the 3x3 convolution.
        initialW (initializer): Initializer of the convolution weights.
    """

    def __init__(self, in_channels, mid_channels, initialW=None):
        super().__init__()
        with self.init_scope():
            self.conv1 = convolution_2d.Convolution2D(
                in_channels, mid_channels, 1, 1, 0, initialW=initialW, nobias=True
            )
            self.bn1 = batch_normalization.BatchNormalization(mid_channels)
            self.conv2 = convolution_2d.Convolution2D(
                mid_channels, mid_channels, 3, 1, 1, initialW=initialW, nobias=True
            )
            self.bn2 = batch_normalization.BatchNormalization(mid_channels)
            self.conv3 = convolution_2d.Convolution2D(
                mid_channels, in_channels, 1, 1, 0, initialW=initialW, nobias=True
            )
            self.bn3 = batch_normalization.BatchNormalization(in_channels)

    def forward(self, x):
        """Computes the block.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): ``(N, in_channels, H, W)``.

        Returns:
            ~chainer.Variable: Same shape as ``x``.
        """
        h = relu.relu(self.bn1(self.conv1(x)))
        h = relu.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return relu.relu(h + x)


# -- conversion of MSRA's caffemodels ------------------------------------------


def _transfer_bn(caffemodel, bn, bn_name, scale_name):
    src_bn = _common.caffe_layer(caffemodel, bn_name)
    src_scale = _common.caffe_layer(caffemodel, scale_name)
    bn.avg_mean[...] = src_bn.avg_mean
    bn.avg_var[...] = src_bn.avg_var
    bn.gamma.array[...] = src_scale.W.array
    bn.beta.array[...] = src_scale.bias.b.array


def _transfer_components(caffemodel, conv, bn, block, branch):
    src = _common.caffe_layer(caffemodel, f"res{block}_branch{branch}")
    conv.W.array[...] = src.W.array
    _transfer_bn(
        caffemodel, bn, f"bn{block}_branch{branch}", f"scale{block}_branch{branch}"
    )


def _transfer(caffemodel, model):
    _common.copy_layer(caffemodel, "conv1", model.conv1)
    _transfer_bn(caffemodel, model.bn1, "bn_conv1", "scale_conv1")
    blocks = _BLOCKS[model._n_layers]
    for stage, count in enumerate(blocks, 2):
        building_block = getattr(model, f"res{stage}")
        names = _caffe_block_names(model._n_layers, stage, count)
        for i, block in enumerate(names):
            dst = building_block.a if i == 0 else getattr(building_block, f"b{i}")
            _transfer_components(caffemodel, dst.conv1, dst.bn1, block, "2a")
            _transfer_components(caffemodel, dst.conv2, dst.bn2, block, "2b")
            _transfer_components(caffemodel, dst.conv3, dst.bn3, block, "2c")
            if i == 0:
                _transfer_components(caffemodel, dst.conv4, dst.bn4, block, "1")
    _common.copy_layer(caffemodel, "fc1000", model.fc6)
