"""A trainer extension that saves a grid of generated images as a PNG file."""

import os
import struct
import zlib

import numpy

import chainer
from chainer import Variable


def write_png(path, image):
    """Writes an 8-bit gray or RGB image as a PNG file, atomically.

    A PNG file is a signature and three chunks: the header, the
    zlib-compressed rows (each prefixed with filter type 0, "none") and the
    end marker. The file is written next to ``path`` and renamed over it, so
    a reader never sees half an image.

    Args:
        path (str): Where to write the file.
        image (numpy.ndarray): ``uint8`` array of shape ``(H, W)`` (gray) or
            ``(H, W, 3)`` (RGB).
    """
    height, width = image.shape[:2]
    color_type = 0 if image.ndim == 2 else 2
    rows = image.reshape(height, -1)
    raw = numpy.hstack([numpy.zeros((height, 1), numpy.uint8), rows]).tobytes()

    def chunk(tag, data):
        crc = zlib.crc32(tag + data)
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    png = b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(raw, 9)),
            chunk(b"IEND", b""),
        ]
    )
    # A temporary name of our own (not tempfile's, which is private to the
    # user) so that the image gets the usual permissions.
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(png)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def tile_images(x, rows, cols):
    """Arranges a batch of images in [0, 1] into one ``uint8`` grid image.

    Args:
        x (numpy.ndarray): Images of shape ``(rows * cols, C, H, W)``.
        rows (int): Rows of the grid.
        cols (int): Columns of the grid.

    Returns:
        numpy.ndarray: ``(rows * H, cols * W)`` if ``C == 1``, else
        ``(rows * H, cols * W, C)``.
    """
    x = numpy.asarray(numpy.clip(x * 255, 0, 255), dtype=numpy.uint8)
    _, channels, height, width = x.shape
    x = x.reshape(rows, cols, channels, height, width)
    x = x.transpose(0, 3, 1, 4, 2).reshape(rows * height, cols * width, channels)
    return x[:, :, 0] if channels == 1 else x


def out_generated_image(gen, dis, rows, cols, seed, dst):
    """Makes an extension that saves ``rows x cols`` generated images.

    The noise comes from a fixed seed, so successive grids show how the same
    inputs change as the generator learns. The training's own random state is
    left as it was. Each grid goes to
    ``dst/preview/image<iteration, 8 digits>.png``.

    Args:
        gen (~chainer.Link): The generator.
        dis (~chainer.Link): The discriminator (unused; kept for the
            signature of Chainer's example).
        rows (int): Rows of the grid.
        cols (int): Columns of the grid.
        seed (int): Seed of the noise vectors.
        dst (str): Output directory.

    Returns:
        The extension, a function of the trainer.
    """

    @chainer.training.make_extension()
    def make_image(trainer):
        state = numpy.random.get_state()
        numpy.random.seed(seed)
        z = gen.make_hidden(rows * cols)
        numpy.random.set_state(state)
        z = Variable(gen.device.send(z))
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            x = gen(z)
        x = chainer.get_device("@numpy").send(x.array)

        preview_dir = os.path.join(dst, "preview")
        os.makedirs(preview_dir, exist_ok=True)
        name = f"image{trainer.updater.iteration:08d}.png"
        write_png(os.path.join(preview_dir, name), tile_images(x, rows, cols))

    return make_image
