"""The generator and the discriminator of the DCGAN example.

Both follow the DCGAN guidelines: strided (de)convolutions instead of
pooling, batch normalization, ReLU in the generator and leaky ReLU in the
discriminator. They work on 3x32x32 images (CIFAR-10) and on 1x28x28 images
(Fashion-MNIST): the generator starts from a 4x4 map and its first
upsampling goes to a quarter of the image size (8x8 or 7x7), and the
discriminator's last layer takes its input size from the first batch.
"""

import numpy

import chainer
import chainer.functions as F
import chainer.links as L


def add_noise(device, h, sigma=0.2):
    """Adds Gaussian noise to ``h`` in training mode, which steadies a GAN.

    Args:
        device (~chainer.backend.Device): Device the arrays live on.
        h (~chainer.Variable): Activations.
        sigma (float): Standard deviation of the noise.

    Returns:
        ~chainer.Variable: ``h`` plus noise, or ``h`` itself in test mode.
    """
    if not chainer.config.train:
        return h
    xp = device.xp
    return h + sigma * xp.random.randn(*h.shape).astype(h.dtype)


class Generator(chainer.Chain):
    """Maps a vector of ``n_hidden`` uniform noise values to an image.

    Args:
        n_hidden (int): Size of the noise vector ``z``.
        bottom_width (int): Side of the first feature map (4 in the paper).
        ch (int): Channels of the first feature map; each upsampling halves
            them.
        wscale (float): Standard deviation of the initial weights.
        out_channels (int): Channels of the images (3 for RGB, 1 for gray).
        size (int): Side of the images, a multiple of 4 (32 or 28).
    """

    def __init__(
        self, n_hidden, bottom_width=4, ch=512, wscale=0.02, out_channels=3, size=32
    ):
        super().__init__()
        # A deconvolution with stride 2 and pad 1 maps side s to 2 * s - 4 + k.
        # The first one goes to size / 4 (k = 4 takes 4 to 8 for CIFAR-10,
        # k = 3 takes 4 to 7 for Fashion-MNIST); the next two double it.
        k1 = size // 4 - 2 * bottom_width + 4
        if size % 4 or k1 < 1:
            raise ValueError(f"no {size}x{size} images from a {bottom_width}-wide map")
        self.n_hidden = n_hidden
        self.ch = ch
        self.bottom_width = bottom_width
        with self.init_scope():
            w = chainer.initializers.Normal(wscale)
            self.l0 = L.Linear(n_hidden, bottom_width * bottom_width * ch, initialW=w)
            self.dc1 = L.Deconvolution2D(ch, ch // 2, k1, 2, 1, initialW=w)
            self.dc2 = L.Deconvolution2D(ch // 2, ch // 4, 4, 2, 1, initialW=w)
            self.dc3 = L.Deconvolution2D(ch // 4, ch // 8, 4, 2, 1, initialW=w)
            self.dc4 = L.Deconvolution2D(ch // 8, out_channels, 3, 1, 1, initialW=w)
            self.bn0 = L.BatchNormalization(bottom_width * bottom_width * ch)
            self.bn1 = L.BatchNormalization(ch // 2)
            self.bn2 = L.BatchNormalization(ch // 4)
            self.bn3 = L.BatchNormalization(ch // 8)

    def make_hidden(self, batchsize):
        """Draws a batch of noise vectors on the CPU.

        Args:
            batchsize (int): Number of vectors.

        Returns:
            numpy.ndarray: Shape ``(batchsize, n_hidden, 1, 1)``, values in
            ``[-1, 1)``, of the default dtype (``chainer.get_dtype()``).
        """
        dtype = chainer.get_dtype()
        shape = (batchsize, self.n_hidden, 1, 1)
        return numpy.random.uniform(-1, 1, shape).astype(dtype)

    def forward(self, z):
        h = F.reshape(
            F.relu(self.bn0(self.l0(z))),
            (len(z), self.ch, self.bottom_width, self.bottom_width),
        )
        h = F.relu(self.bn1(self.dc1(h)))
        h = F.relu(self.bn2(self.dc2(h)))
        h = F.relu(self.bn3(self.dc3(h)))
        return F.sigmoid(self.dc4(h))


class Discriminator(chainer.Chain):
    """Scores images: large for real ones, small for generated ones.

    Args:
        ch (int): Channels of the last feature map; the first has ``ch // 8``.
        wscale (float): Standard deviation of the initial weights.
        in_channels (int): Channels of the images.
    """

    def __init__(self, ch=512, wscale=0.02, in_channels=3):
        super().__init__()
        w = chainer.initializers.Normal(wscale)
        with self.init_scope():
            self.c0_0 = L.Convolution2D(in_channels, ch // 8, 3, 1, 1, initialW=w)
            self.c0_1 = L.Convolution2D(ch // 8, ch // 4, 4, 2, 1, initialW=w)
            self.c1_0 = L.Convolution2D(ch // 4, ch // 4, 3, 1, 1, initialW=w)
            self.c1_1 = L.Convolution2D(ch // 4, ch // 2, 4, 2, 1, initialW=w)
            self.c2_0 = L.Convolution2D(ch // 2, ch // 2, 3, 1, 1, initialW=w)
            self.c2_1 = L.Convolution2D(ch // 2, ch // 1, 4, 2, 1, initialW=w)
            self.c3_0 = L.Convolution2D(ch // 1, ch // 1, 3, 1, 1, initialW=w)
            # 4x4 (32x32 images) or 3x3 (28x28) maps: the input size is
            # taken from the first batch.
            self.l4 = L.Linear(None, 1, initialW=w)
            self.bn0_1 = L.BatchNormalization(ch // 4, use_gamma=False)
            self.bn1_0 = L.BatchNormalization(ch // 4, use_gamma=False)
            self.bn1_1 = L.BatchNormalization(ch // 2, use_gamma=False)
            self.bn2_0 = L.BatchNormalization(ch // 2, use_gamma=False)
            self.bn2_1 = L.BatchNormalization(ch // 1, use_gamma=False)
            self.bn3_0 = L.BatchNormalization(ch // 1, use_gamma=False)

    def forward(self, x):
        device = self.device
        h = add_noise(device, x)
        h = F.leaky_relu(add_noise(device, self.c0_0(h)))
        h = F.leaky_relu(add_noise(device, self.bn0_1(self.c0_1(h))))
        h = F.leaky_relu(add_noise(device, self.bn1_0(self.c1_0(h))))
        h = F.leaky_relu(add_noise(device, self.bn1_1(self.c1_1(h))))
        h = F.leaky_relu(add_noise(device, self.bn2_0(self.c2_0(h))))
        h = F.leaky_relu(add_noise(device, self.bn2_1(self.c2_1(h))))
        h = F.leaky_relu(add_noise(device, self.bn3_0(self.c3_0(h))))
        return self.l4(h)
