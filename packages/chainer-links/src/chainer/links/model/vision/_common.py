"""What the pretrained vision models share: weights, preprocessing, extraction.

The models never download weights. ``pretrained_model`` may be None (random
initialization), a local ``.npz`` file, a local ``.caffemodel`` file
(converted through :class:`~chainer.links.caffe.CaffeFunction`), or
``'auto'``: the converted ``.npz`` in
``<dataset root>/pfnet/chainer/models/``, made on first use from the
caffemodel placed there.
"""

import collections
import os
import sys

import numpy

import chainer
from chainer import link
from chainer import variable
from chainer.dataset import convert
from chainer.dataset import download
from chainer.functions.array import reshape
from chainer.functions.math import average
from chainer.serializers import npz

MODELS_DIRECTORY = "pfnet/chainer/models/"


# -- weights ------------------------------------------------------------------


def load_pretrained(model, pretrained_model, name, url, transfer):
    """Loads weights into ``model`` as its ``pretrained_model`` argument says.

    Args:
        model (~chainer.Link): The freshly built model.
        pretrained_model: None (nothing to load), ``'auto'``, or a path to a
            ``.npz`` or ``.caffemodel`` file.
        name (str): File name, without extension, of the weights in the
            models directory (used by ``'auto'``): ``name + '.npz'`` holds
            the converted weights, ``name + '.caffemodel'`` the original
            Caffe weights.
        url (str): Where the Caffe weights are published (for the error).
        transfer (callable): ``transfer(caffe_function, model)`` copies the
            weights of a loaded caffemodel into the model.
    """
    if not pretrained_model:
        return
    if isinstance(pretrained_model, str) and pretrained_model == "auto":
        _load_auto(model, name + ".npz", name + ".caffemodel", url, transfer)
        return
    if not isinstance(pretrained_model, (str, os.PathLike)):
        raise TypeError(
            "pretrained_model must be None, 'auto' or a path to a .npz or "
            f".caffemodel file, not {type(pretrained_model).__name__}"
        )
    if os.fspath(pretrained_model).endswith(".caffemodel"):
        load_caffemodel(model, pretrained_model, transfer)
    else:
        npz.load_npz(pretrained_model, model)


def load_caffemodel(model, path, transfer):
    """Copies the weights of a ``.caffemodel`` file into ``model``."""
    # Imported here: only conversions need the Caffe reader.
    from chainer.links.caffe import caffe_function

    sys.stderr.write("Now loading caffemodel (usually it may take few minutes)\n")
    sys.stderr.flush()
    transfer(caffe_function.CaffeFunction(path), model)


def save_converted(model, path_npz):
    """Saves converted weights the way Chainer does (uncompressed npz)."""
    npz.save_npz(path_npz, model, compression=False)


def _load_auto(model, npz_name, caffemodel_name, url, transfer):
    root = download.get_dataset_directory(MODELS_DIRECTORY)
    path_npz = os.path.join(root, npz_name)
    if os.path.exists(path_npz):
        npz.load_npz(path_npz, model)
        return
    path_caffemodel = os.path.join(root, caffemodel_name)
    if not os.path.exists(path_caffemodel):
        raise OSError(
            f"The pretrained weights of {type(model).__name__} do not exist: "
            f"neither {path_npz} nor {path_caffemodel} is there. This "
            "implementation never downloads model weights. Please download "
            f"the caffemodel from '{url}' and place it on {path_caffemodel} "
            "(it is converted to the .npz on first use), or pass the path of "
            "a weights file as pretrained_model."
        )

    def create(path):
        load_caffemodel(model, path_caffemodel, transfer)
        save_converted(model, path)
        return model

    def load(path):
        npz.load_npz(path, model)
        return model

    download.cache_or_load_file(path_npz, create, load)


def caffe_layer(caffemodel, name):
    """The child link ``name`` of a CaffeFunction, or a clear error."""
    try:
        return caffemodel[name]
    except AttributeError:
        raise ValueError(
            f"the caffemodel has no parameterized layer named {name!r}: is it "
            "the model this architecture was published with?"
        ) from None


def copy_layer(caffemodel, name, dst):
    """Copies the weight and bias of the Caffe layer ``name`` into ``dst``."""
    src = caffe_layer(caffemodel, name)
    dst.W.array[...] = src.W.array
    dst.b.array[...] = src.b.array


# -- images -------------------------------------------------------------------


def prepare_image(image, size, mean):
    """Resizes an RGB image, turns it into BGR CHW floats and subtracts ``mean``.

    Args:
        image (PIL.Image or numpy.ndarray): The image. An array has shape
            ``(H, W)``, ``(H, W, C)`` or ``(C, H, W)`` with RGB(A) channels;
            it is converted to ``uint8`` first.
        size (pair of ints or None): ``(width, height)`` of the output, as
            Pillow's ``resize`` takes it; None keeps the size.
        mean (sequence of 3 floats): BGR mean pixel.

    Returns:
        numpy.ndarray: ``(3, height, width)`` array of ``chainer.get_dtype()``.
    """
    dtype = chainer.get_dtype()
    Image = _pil_image()
    if isinstance(image, numpy.ndarray):
        if image.ndim == 3:
            if image.shape[0] == 1:
                image = image[0, :, :]
            elif image.shape[0] == 3:
                image = image.transpose((1, 2, 0))
        image = image.astype(numpy.uint8)
        if Image is not None:
            image = Image.fromarray(image)
        else:
            image = _rgb(image)
            if size:
                image = _resize(image, size)
    elif Image is None:
        raise ImportError(
            f"got a {type(image).__name__} image: images other than "
            "numpy.ndarray need Pillow (pip install Pillow). The actual "
            f"import error is: {_pil_state['error']}"
        )
    if Image is not None:
        image = image.convert("RGB")
        if size:
            image = image.resize(size)
    image = numpy.asarray(image, dtype=dtype)
    image = image[:, :, ::-1]
    image -= numpy.array(mean, dtype=dtype)
    return image.transpose((2, 0, 1))


_pil_state = {}


def _pil_image():
    # Pillow is optional (arrays work without it) and imported on first use.
    if "module" not in _pil_state:
        try:
            from PIL import Image
        except ImportError as exc:
            Image = None
            _pil_state["error"] = exc
        _pil_state["module"] = Image
    return _pil_state["module"]


def _rgb(image):
    if image.ndim == 2:
        return numpy.repeat(image[:, :, None], 3, axis=2)
    if image.ndim == 3 and image.shape[2] in (3, 4):
        return image[:, :, :3]
    raise ValueError(
        "an image array must have shape (H, W), (H, W, 3), (H, W, 4), "
        f"(1, H, W) or (3, H, W); got {image.shape}"
    )


def _bicubic(x):
    # Pillow's bicubic kernel (a = -0.5).
    x = numpy.abs(x)
    a = -0.5
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return numpy.where(x < 1, near, numpy.where(x < 2, far, 0.0))


def _resample_taps(in_size, out_size):
    # Pillow's resampling coefficients: the kernel widens when shrinking
    # (antialiasing), and each output pixel's weights sum to one. Returns the
    # input index and weight of every tap, (out_size, taps) each; windows
    # shorter than the longest are padded with zero weights.
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = 2.0 * filterscale
    centers = (numpy.arange(out_size) + 0.5) * scale
    lo = numpy.maximum(numpy.trunc(centers - support + 0.5), 0).astype(numpy.intp)
    hi = numpy.minimum(numpy.trunc(centers + support + 0.5), in_size).astype(numpy.intp)
    index = lo[:, None] + numpy.arange((hi - lo).max())
    weights = _bicubic((index - centers[:, None] + 0.5) / filterscale)
    weights[index >= hi[:, None]] = 0
    weights /= weights.sum(axis=1, keepdims=True)
    return numpy.minimum(index, in_size - 1), weights


def _to_uint8(x):
    return numpy.clip(numpy.floor(x + 0.5), 0, 255).astype(numpy.uint8)


def _resize(image, size):
    """Bicubic resize of an (H, W, 3) uint8 array with Pillow's filter.

    Like Pillow, the rows are resampled first, rounded to 8 bits, then the
    columns. Results match Pillow's to within one level when one axis is
    resized; when both are, recent Pillow versions sometimes resample the
    columns first, which differs where the intermediate image is clipped
    (sharp edges), as results of different Pillow versions do.
    """
    width, height = size
    if image.shape[1] != width:
        image = _resample_rows(image.swapaxes(0, 1), width).swapaxes(0, 1)
    if image.shape[0] != height:
        image = _resample_rows(image, height)
    return image


def _resample_rows(image, out_size):
    # Resamples axis 0: gathering whole rows keeps the memory access linear.
    index, weights = _resample_taps(image.shape[0], out_size)
    taps = numpy.take(image, index, axis=0).astype(numpy.float32)
    out = numpy.einsum("otwc,ot->owc", taps, weights.astype(numpy.float32))
    return _to_uint8(out)


def ten_crops(images, crop_dims):
    """Crops the four corners and the center of each image, and their mirrors.

    Args:
        images (numpy.ndarray): ``(N, C, H, W)`` images.
        crop_dims (pair of ints): ``(height, width)`` of the crops.

    Returns:
        numpy.ndarray: ``(10 * N, C, height, width)``: for each image, the
        five crops and then their left-right mirrors.
    """
    n, channels, src_h, src_w = images.shape
    dst_h, dst_w = crop_dims
    corners = (
        (0, 0),
        (0, src_w - dst_w),
        (src_h - dst_h, 0),
        (src_h - dst_h, src_w - dst_w),
        (int(src_h / 2.0 - dst_h / 2.0), int(src_w / 2.0 - dst_w / 2.0)),
    )
    crops = numpy.empty((n, 10, channels, dst_h, dst_w), dtype=images.dtype)
    for i, (top, left) in enumerate(corners):
        crops[:, i] = images[:, :, top : top + dst_h, left : left + dst_w]
    crops[:, 5:] = crops[:, :5, :, :, ::-1]
    return crops.reshape((n * 10, channels, dst_h, dst_w))


# -- the models' shared interface ---------------------------------------------


def check_kwargs(kwargs):
    """Rejects the ``test``/``volatile`` arguments of old versions."""
    if not kwargs:
        return
    for name in ("test", "volatile"):
        if name in kwargs:
            raise ValueError(
                f"{name} argument is not supported anymore. Use chainer.using_config"
            )
    raise TypeError("got unexpected keyword argument(s): " + ", ".join(sorted(kwargs)))


class PretrainedModel(link.Chain):
    """Base of the vision models: layers by name, extraction and prediction.

    A subclass defines the ``functions`` property (an ordered mapping from
    layer names to the callables that compute each from the previous one),
    ``_prepare`` (its image preprocessing), ``_extract_layers`` (the default
    of :meth:`extract`), and ``_branches`` (layers computed from an earlier
    layer instead of the previous one, mapped to that layer).
    """

    _extract_layers = ("pool5",)
    _branches = {}

    @property
    def functions(self):
        """collections.OrderedDict: Layer names mapped to lists of callables."""
        return collections.OrderedDict()

    @property
    def available_layers(self):
        """list of str: Names of the layers :meth:`forward` can return."""
        return list(self.functions.keys())

    @staticmethod
    def _prepare(image, size):
        return image

    def forward(self, x, layers=None, **kwargs):
        """Computes the activations of the requested layers.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): ``(N, 3, H, W)`` batch of
                preprocessed images (see ``prepare``).
            layers (list of str): Names of the layers to return; see
                :attr:`available_layers`. Default: ``['prob']``.

        Returns:
            dict: Each requested layer name mapped to its
            :class:`~chainer.Variable`.
        """
        check_kwargs(kwargs)
        if layers is None:
            layers = ["prob"]
        elif isinstance(layers, str):
            raise TypeError(f"layers must be a list of layer names, not {layers!r}")
        shape = x.shape
        if len(shape) != 4 or shape[1] != 3:
            raise ValueError(
                f"{type(self).__name__} takes a batch of 3-channel images of "
                f"shape (N, 3, H, W); got shape {shape}"
            )
        functions = self.functions
        targets = set(layers)
        unknown = targets.difference(functions)
        if unknown:
            raise ValueError(
                f"unknown layer(s) {sorted(unknown)}; the layers of "
                f"{type(self).__name__} are {list(functions)}"
            )
        branches = self._branches
        sources = set(branches.values())
        saved = {}
        activations = {}
        h = x
        for key, funcs in functions.items():
            if not targets:
                break
            if key in branches:
                h = saved[branches[key]]
            for func in funcs:
                h = func(h)
            if key in targets:
                activations[key] = h
                targets.remove(key)
            if key in sources:
                saved[key] = h
        return activations

    def extract(self, images, layers=None, size=(224, 224), **kwargs):
        """Extracts the feature maps of given images.

        The images are preprocessed with the model's ``prepare`` and run
        through :meth:`forward`. Unlike :meth:`predict`, this method does not
        change ``chainer.config.train`` nor ``enable_backprop``: to extract
        features without building a graph for training, call it as::

            with chainer.using_config('train', False), \\
                    chainer.using_config('enable_backprop', False):
                feature = model.extract([image])

        Args:
            images (iterable of PIL.Image or numpy.ndarray): Input images
                (arrays work without Pillow; see ``prepare``).
            layers (list of str): The names of the layers to return.
                Default: the model's feature layer (``'fc7'`` for VGG,
                ``'pool5'`` for ResNet and GoogLeNet).
            size (pair of ints): ``(width, height)`` the images are resized
                to; None keeps their size.

        Returns:
            dict: Each requested layer name mapped to its
            :class:`~chainer.Variable`.
        """
        check_kwargs(kwargs)
        if layers is None:
            layers = list(self._extract_layers)
        x = convert.concat_examples([self._prepare(img, size=size) for img in images])
        x = variable.Variable(self.xp.asarray(x))
        return self(x, layers=layers)

    def predict(self, images, oversample=True):
        """Computes the class probabilities of given images.

        Images are resized to 256x256; with ``oversample`` the probabilities
        of ten 224x224 crops (the corners, the center and their mirrors) are
        averaged, otherwise only the center crop is used. Runs in test mode
        without building a graph.

        Args:
            images (iterable of PIL.Image or numpy.ndarray): Input images.
            oversample (bool): Whether to average over ten crops.

        Returns:
            ~chainer.Variable: ``(N, 1000)`` class probabilities.
        """
        x = convert.concat_examples(
            [self._prepare(img, size=(256, 256)) for img in images]
        )
        x = ten_crops(x, (224, 224)) if oversample else x[:, :, 16:240, 16:240]
        with chainer.no_backprop_mode(), chainer.using_config("train", False):
            x = variable.Variable(self.xp.asarray(x))
            y = self(x, layers=["prob"])["prob"]
            if oversample:
                n = len(y) // 10
                y = reshape.reshape(y, (n, 10, *y.shape[1:]))
                y = average.average(y, axis=1)
        return y
