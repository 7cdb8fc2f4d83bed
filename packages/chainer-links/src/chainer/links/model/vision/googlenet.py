"""GoogLeNet (Szegedy et al., 2015) with the weights of BVLC's Caffe model."""

import collections
import functools

from chainer import initializers
from chainer.functions.activation import relu
from chainer.functions.activation import softmax
from chainer.functions.noise import dropout
from chainer.functions.normalization import local_response_normalization
from chainer.functions.pooling import average_pooling_2d
from chainer.functions.pooling import max_pooling_2d
from chainer.links.connection import convolution_2d
from chainer.links.connection import inception
from chainer.links.connection import linear
from chainer.links.model.vision import _common

# Whether prepare() can run. Chainer sets it when Pillow imports; ours resizes
# arrays itself and needs Pillow only for PIL images, so it is always True.
available = True

_URL = "http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel"

# (name, in_channels, out1, proj3, out3, proj5, out5, proj_pool)
_INCEPTIONS = (
    ("3a", 192, 64, 96, 128, 16, 32, 32),
    ("3b", 256, 128, 128, 192, 32, 96, 64),
    ("4a", 480, 192, 96, 208, 16, 48, 64),
    ("4b", 512, 160, 112, 224, 24, 64, 64),
    ("4c", 512, 128, 128, 256, 24, 64, 64),
    ("4d", 512, 112, 144, 288, 32, 64, 64),
    ("4e", 528, 256, 160, 320, 32, 128, 128),
    ("5a", 832, 256, 160, 320, 32, 128, 128),
    ("5b", 832, 384, 192, 384, 48, 128, 128),
)


def _max_pooling_2d(x):
    return max_pooling_2d.max_pooling_2d(x, ksize=3, stride=2)


def _local_response_normalization(x):
    return local_response_normalization.local_response_normalization(
        x, n=5, k=1, alpha=1e-4 / 5
    )


def _average_pooling_2d_k5(x):
    return average_pooling_2d.average_pooling_2d(x, ksize=5, stride=3)


def _average_pooling_2d_k7(x):
    return average_pooling_2d.average_pooling_2d(x, ksize=7, stride=1)


def _dropout(x):
    return dropout.dropout(x, ratio=0.4)


class GoogLeNet(_common.PretrainedModel):
    """A pre-trained GoogLeNet model provided by BVLC.

    The architecture of the paper: convolutions with local response
    normalization, nine :class:`~chainer.links.Inception` modules
    (``inc3a`` ... ``inc5b``), average pooling and the classifier
    ``loss3_fc``, plus the two auxiliary classifiers (``loss1_*`` after
    ``inception_4a``, ``loss2_*`` after ``inception_4d``). The weights of
    `BVLC's caffemodel
    <https://github.com/BVLC/caffe/tree/master/models/bvlc_googlenet>`_ load
    into it. Weights are never downloaded: with ``pretrained_model='auto'``
    the converted ``bvlc_googlenet.npz`` is read from
    ``$CHAINER_DATASET_ROOT/pfnet/chainer/models/``; if only
    ``bvlc_googlenet.caffemodel`` is there, it is converted on first use.

    The input is a batch of ``(3, 224, 224)`` BGR images with the mean pixel
    subtracted (:func:`prepare`): ``pool5`` averages a 7x7 map.

    Args:
        pretrained_model (str): ``'auto'``, a path to an ``.npz`` of the
            weights, a path to the original ``.caffemodel`` (converted while
            loading), or None/empty for random initialization (``LeCunUniform``
            weights, as BVLC's Xavier filler). When weights are loaded,
            parameters start as zeros, which is faster than sampling.

    Attributes:
        available_layers (list of str): The layers :meth:`forward` can
            return: ``conv1``, ``pool1``, ``conv2_reduce``, ``conv2``,
            ``pool2``, ``inception_3a`` ... ``inception_5b``, ``pool3`` ...
            ``pool5``, ``loss3_fc``, ``prob``, ``loss1_fc2`` and ``loss2_fc2``.
    """

    _extract_layers = ("pool5",)
    # The auxiliary classifiers start from earlier inception outputs.
    _branches = {"loss1_fc2": "inception_4a", "loss2_fc2": "inception_4d"}

    def __init__(self, pretrained_model="auto"):
        super().__init__()
        if pretrained_model:
            initialW = initializers.Zero()
            conv_init = initialW
        else:
            initialW = initializers.LeCunUniform(scale=1.0)
            conv_init = None
        kwargs = {"initialW": initialW}
        with self.init_scope():
            self.conv1 = convolution_2d.Convolution2D(
                3, 64, 7, stride=2, pad=3, **kwargs
            )
            self.conv2_reduce = convolution_2d.Convolution2D(64, 64, 1, **kwargs)
            self.conv2 = convolution_2d.Convolution2D(
                64, 192, 3, stride=1, pad=1, **kwargs
            )
            for name, *sizes in _INCEPTIONS:
                module = inception.Inception(*sizes, conv_init=conv_init)
                setattr(self, "inc" + name, module)
            self.loss3_fc = linear.Linear(1024, 1000, **kwargs)

            self.loss1_conv = convolution_2d.Convolution2D(512, 128, 1, **kwargs)
            self.loss1_fc1 = linear.Linear(2048, 1024, **kwargs)
            self.loss1_fc2 = linear.Linear(1024, 1000, **kwargs)

            self.loss2_conv = convolution_2d.Convolution2D(528, 128, 1, **kwargs)
            self.loss2_fc1 = linear.Linear(2048, 1024, **kwargs)
            self.loss2_fc2 = linear.Linear(1024, 1000, **kwargs)
        _common.load_pretrained(
            self, pretrained_model, "bvlc_googlenet", _URL, _transfer
        )

    @property
    def functions(self):
        """collections.OrderedDict: Layer names mapped to lists of callables."""
        return collections.OrderedDict(
            [
                ("conv1", [self.conv1, relu.relu]),
                ("pool1", [_max_pooling_2d, _local_response_normalization]),
                ("conv2_reduce", [self.conv2_reduce, relu.relu]),
                ("conv2", [self.conv2, relu.relu, _local_response_normalization]),
                ("pool2", [_max_pooling_2d]),
                ("inception_3a", [self.inc3a]),
                ("inception_3b", [self.inc3b]),
                ("pool3", [_max_pooling_2d]),
                ("inception_4a", [self.inc4a]),
                ("inception_4b", [self.inc4b]),
                ("inception_4c", [self.inc4c]),
                ("inception_4d", [self.inc4d]),
                ("inception_4e", [self.inc4e]),
                ("pool4", [_max_pooling_2d]),
                ("inception_5a", [self.inc5a]),
                ("inception_5b", [self.inc5b]),
                ("pool5", [_average_pooling_2d_k7]),
                ("loss3_fc", [_dropout, self.loss3_fc]),
                ("prob", [softmax.softmax]),
                # The auxiliary outputs are rarely used: after 'prob' they
                # are skipped unless requested.
                (
                    "loss1_fc2",
                    [
                        _average_pooling_2d_k5,
                        self.loss1_conv,
                        relu.relu,
                        self.loss1_fc1,
                        relu.relu,
                        self.loss1_fc2,
                    ],
                ),
                (
                    "loss2_fc2",
                    [
                        _average_pooling_2d_k5,
                        self.loss2_conv,
                        relu.relu,
                        self.loss2_fc1,
                        relu.relu,
                        self.loss2_fc2,
                    ],
                ),
            ]
        )

    @staticmethod
    def _prepare(image, size=(224, 224)):
        return prepare(image, size)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz):
        """Converts a pre-trained caffemodel to a chainer model.

        Args:
            path_caffemodel (str): Path of the pre-trained caffemodel.
            path_npz (str): Path of the converted chainer model.
        """
        model = GoogLeNet(pretrained_model=path_caffemodel)
        _common.save_converted(model, path_npz)


def prepare(image, size=(224, 224)):
    """Converts the given image to the numpy array for GoogLeNet.

    Call it before ``forward``: the pre-trained GoogLeNet needs the image
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
    return _common.prepare_image(image, size, (104.0, 117.0, 123.0))


def _transfer(caffemodel, model):
    copy = functools.partial(_common.copy_layer, caffemodel)
    copy("conv1/7x7_s2", model.conv1)
    copy("conv2/3x3_reduce", model.conv2_reduce)
    copy("conv2/3x3", model.conv2)
    for name, *_ in _INCEPTIONS:
        module = getattr(model, "inc" + name)
        prefix = f"inception_{name}/"
        copy(prefix + "1x1", module.conv1)
        copy(prefix + "3x3_reduce", module.proj3)
        copy(prefix + "3x3", module.conv3)
        copy(prefix + "5x5_reduce", module.proj5)
        copy(prefix + "5x5", module.conv5)
        copy(prefix + "pool_proj", module.projp)
    for i in (1, 2):
        copy(f"loss{i}/conv", getattr(model, f"loss{i}_conv"))
        copy(f"loss{i}/fc", getattr(model, f"loss{i}_fc1"))
        copy(f"loss{i}/classifier", getattr(model, f"loss{i}_fc2"))
    copy("loss3/classifier", model.loss3_fc)
