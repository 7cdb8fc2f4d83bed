"""The convolutional networks of the tutorial: LeNet5, a small VGG and ResNet.

Every model takes a batch of images of shape ``(N, C, H, W)`` and returns
unnormalised class scores (logits) of shape ``(N, n_classes)``. The tutorial's
models return ``F.softmax`` of the scores when ``chainer.config.train`` is
off; here that is :func:`predict`, because :class:`L.Classifier`
applies ``F.softmax_cross_entropy`` to what the model returns, and a softmax
in front of it would make the validation loss wrong.

The first convolution and the first fully-connected layer of each model are
built with ``None`` as their input size, so the same classes work on
Fashion-MNIST (1x28x28) and CIFAR-10 (3x32x32): the sizes are fixed by the
first batch.
"""

import chainer
import chainer.functions as F
import chainer.links as L


def predict(model, x):
    """Returns class probabilities, computed in test mode without a graph.

    Args:
        model (~chainer.Link): One of the models below.
        x (numpy.ndarray): Images of shape ``(N, C, H, W)``, on the model's
            device.

    Returns:
        ~chainer.Variable: Probabilities of shape ``(N, n_classes)``.
    """
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        return F.softmax(model(x))


class LeNet5(chainer.Chain):
    """LeNet5 in the simplified form of the tutorial: three convolutions.

    Args:
        n_classes (int): Number of output classes.
    """

    def __init__(self, n_classes=10):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(
                in_channels=None, out_channels=6, ksize=5, stride=1
            )
            self.conv2 = L.Convolution2D(
                in_channels=6, out_channels=16, ksize=5, stride=1
            )
            self.conv3 = L.Convolution2D(
                in_channels=16, out_channels=120, ksize=4, stride=1
            )
            self.fc4 = L.Linear(None, 84)
            self.fc5 = L.Linear(84, n_classes)

    def forward(self, x):
        h = F.sigmoid(self.conv1(x))
        h = F.max_pooling_2d(h, 2, 2)
        h = F.sigmoid(self.conv2(h))
        h = F.max_pooling_2d(h, 2, 2)
        h = F.sigmoid(self.conv3(h))
        h = F.sigmoid(self.fc4(h))
        return self.fc5(h)


class VGGBlock(chainer.Chain):
    """Two or three 3x3 convolutions with ReLU, then a 2x2 max pooling.

    The last block of a VGG also holds the fully-connected head.

    Args:
        n_channels (int): Output channels of each convolution.
        n_convs (int): Number of convolutions, 2 or 3.
        fc (bool): If ``True``, the block ends with the classifier head.
        n_units (int): Width of the two hidden fully-connected layers.
        n_classes (int): Number of output classes.
    """

    def __init__(self, n_channels, n_convs=2, fc=False, n_units=4096, n_classes=10):
        super().__init__()
        w = chainer.initializers.HeNormal()
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, n_channels, 3, 1, 1, initialW=w)
            self.conv2 = L.Convolution2D(n_channels, n_channels, 3, 1, 1, initialW=w)
            if n_convs == 3:
                self.conv3 = L.Convolution2D(
                    n_channels, n_channels, 3, 1, 1, initialW=w
                )
            if fc:
                self.fc4 = L.Linear(None, n_units, initialW=w)
                self.fc5 = L.Linear(n_units, n_units, initialW=w)
                self.fc6 = L.Linear(n_units, n_classes, initialW=w)
        self.n_convs = n_convs
        self.fc = fc

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.relu(self.conv2(h))
        if self.n_convs == 3:
            h = F.relu(self.conv3(h))
        h = F.max_pooling_2d(h, 2, 2)
        if self.fc:
            h = F.dropout(F.relu(self.fc4(h)))
            h = F.dropout(F.relu(self.fc5(h)))
            h = self.fc6(h)
        return h


class VGG(chainer.ChainList):
    """A narrow VGG: the tutorial's VGG16 with three blocks instead of five.

    The blocks have 16, 32 and 64 channels (VGG16: 64 to 512) and the head
    has 256 hidden units (VGG16: 4096), so that it trains on a CPU.

    Args:
        n_classes (int): Number of output classes.
    """

    def __init__(self, n_classes=10):
        super().__init__(
            VGGBlock(16),
            VGGBlock(32),
            VGGBlock(64, 3, fc=True, n_units=256, n_classes=n_classes),
        )

    def forward(self, x):
        for f in self.children():
            x = f(x)
        return x


class BottleNeck(chainer.Chain):
    """A residual unit: 1x1, 3x3 and 1x1 convolutions with batch normalization.

    Args:
        n_in (int): Input channels.
        n_mid (int): Channels of the inner 3x3 convolution.
        n_out (int): Output channels.
        stride (int): Stride of the first convolution (and the shortcut).
        proj (bool): If ``True``, the shortcut is a 1x1 convolution that
            matches the input to the output's channels and size.
    """

    def __init__(self, n_in, n_mid, n_out, stride=1, proj=False):
        super().__init__()
        w = chainer.initializers.HeNormal()
        with self.init_scope():
            self.conv1x1a = L.Convolution2D(
                n_in, n_mid, 1, stride, 0, initialW=w, nobias=True
            )
            self.conv3x3b = L.Convolution2D(
                n_mid, n_mid, 3, 1, 1, initialW=w, nobias=True
            )
            self.conv1x1c = L.Convolution2D(
                n_mid, n_out, 1, 1, 0, initialW=w, nobias=True
            )
            self.bn_a = L.BatchNormalization(n_mid)
            self.bn_b = L.BatchNormalization(n_mid)
            self.bn_c = L.BatchNormalization(n_out)
            if proj:
                self.conv1x1r = L.Convolution2D(
                    n_in, n_out, 1, stride, 0, initialW=w, nobias=True
                )
                self.bn_r = L.BatchNormalization(n_out)
        self.proj = proj

    def forward(self, x):
        h = F.relu(self.bn_a(self.conv1x1a(x)))
        h = F.relu(self.bn_b(self.conv3x3b(h)))
        h = self.bn_c(self.conv1x1c(h))
        if self.proj:
            x = self.bn_r(self.conv1x1r(x))
        return F.relu(h + x)


class ResBlock(chainer.ChainList):
    """A stage of ``n_layers`` bottleneck units; the first one projects.

    Args:
        n_layers (int): Number of units.
        n_in (int): Input channels.
        n_mid (int): Inner channels of each unit.
        n_out (int): Output channels.
        stride (int): Stride of the first unit.
    """

    def __init__(self, n_layers, n_in, n_mid, n_out, stride=2):
        super().__init__()
        self.add_link(BottleNeck(n_in, n_mid, n_out, stride, True))
        for _ in range(n_layers - 1):
            self.add_link(BottleNeck(n_out, n_mid, n_out))

    def forward(self, x):
        for f in self.children():
            x = f(x)
        return x


class ResNet(chainer.Chain):
    """The tutorial's ResNet152 with fewer units per stage and fewer channels.

    ResNet152 has ``n_blocks=[3, 8, 36, 3]`` and ``width=64``; the defaults
    here (one unit per stage, width 16) give a 14-layer network with the
    same structure that trains on a CPU.

    Args:
        n_blocks (sequence of int): Units in each of the four stages.
        width (int): Channels of the first convolution; the stages have
            ``width`` to ``8 * width`` inner channels and four times as many
            output channels.
        n_classes (int): Number of output classes.
    """

    def __init__(self, n_blocks=(1, 1, 1, 1), width=16, n_classes=10):
        super().__init__()
        w = chainer.initializers.HeNormal()
        c = width
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, c, 7, 2, 3, initialW=w, nobias=True)
            self.bn1 = L.BatchNormalization(c)
            self.res2 = ResBlock(n_blocks[0], c, c, 4 * c, 1)
            self.res3 = ResBlock(n_blocks[1], 4 * c, 2 * c, 8 * c)
            self.res4 = ResBlock(n_blocks[2], 8 * c, 4 * c, 16 * c)
            self.res5 = ResBlock(n_blocks[3], 16 * c, 8 * c, 32 * c)
            self.fc6 = L.Linear(32 * c, n_classes)

    def forward(self, x):
        h = self.bn1(self.conv1(x))
        h = F.max_pooling_2d(F.relu(h), 2, 2)
        h = self.res2(h)
        h = self.res3(h)
        h = self.res4(h)
        h = self.res5(h)
        # Global average pooling: the window is the whole feature map.
        h = F.average_pooling_2d(h, h.shape[2:], stride=1)
        return self.fc6(h)


ARCHS = {"lenet5": LeNet5, "vgg": VGG, "resnet": ResNet}
