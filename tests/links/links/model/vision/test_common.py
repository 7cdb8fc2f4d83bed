import importlib.util

import numpy
import pytest

import chainer
from chainer.links.model.vision import _common

_MEAN = (10.0, 20.0, 30.0)
_HAS_PILLOW = importlib.util.find_spec("PIL") is not None


def _image(h=5, w=7, seed=0):
    return numpy.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(numpy.uint8)


def test_prepare_without_resize():
    image = _image()
    out = _common.prepare_image(image, None, _MEAN)
    assert out.shape == (3, 5, 7)
    assert out.dtype == numpy.float32
    # RGB -> BGR, mean subtracted, CHW.
    expected = image[:, :, ::-1].astype(numpy.float32) - numpy.array(_MEAN, "f")
    numpy.testing.assert_array_equal(out, expected.transpose(2, 0, 1))


def test_prepare_array_layouts():
    image = _image()
    hwc = _common.prepare_image(image, None, _MEAN)
    chw = _common.prepare_image(image.transpose(2, 0, 1), None, _MEAN)
    numpy.testing.assert_array_equal(chw, hwc)
    rgba = numpy.concatenate([image, numpy.full((5, 7, 1), 9, numpy.uint8)], axis=2)
    numpy.testing.assert_array_equal(_common.prepare_image(rgba, None, _MEAN), hwc)
    gray = image[:, :, 0]
    out = _common.prepare_image(gray, None, _MEAN)
    expected = (
        gray.astype(numpy.float32)[None] - numpy.array(_MEAN, "f")[::-1, None, None]
    )
    numpy.testing.assert_array_equal(out, expected[::-1])
    out1 = _common.prepare_image(gray[None], None, _MEAN)
    numpy.testing.assert_array_equal(out1, out)
    # Float arrays are converted to uint8 first, as Chainer does.
    numpy.testing.assert_array_equal(
        _common.prepare_image(image.astype(numpy.float64) + 0.7, None, _MEAN), hwc
    )


def test_prepare_dtype_follows_config():
    with chainer.using_config("dtype", numpy.float64):
        out = _common.prepare_image(_image(), None, _MEAN)
    assert out.dtype == numpy.float64


@pytest.mark.skipif(_HAS_PILLOW, reason="Pillow is installed")
def test_prepare_bad_shapes_without_pillow():
    with pytest.raises(ValueError, match="image array must have shape"):
        _common.prepare_image(numpy.zeros((4, 4, 2)), None, _MEAN)
    with pytest.raises(ValueError, match="image array must have shape"):
        _common.prepare_image(numpy.zeros((2, 4, 4, 3)), None, _MEAN)


@pytest.mark.skipif(_HAS_PILLOW, reason="Pillow is installed")
def test_non_array_images_need_pillow():
    with pytest.raises(ImportError, match="need Pillow"):
        _common.prepare_image([[1, 2], [3, 4]], None, _MEAN)


@pytest.mark.parametrize(
    ("in_hw", "size"),
    [
        ((5, 7), (7, 5)),
        ((10, 12), (24, 20)),
        ((300, 260), (224, 224)),
        ((3, 40), (9, 9)),
    ],
)
def test_resize_shapes_and_constant_images(in_hw, size):
    image = numpy.full((*in_hw, 3), 77, numpy.uint8)
    out = _common._resize(image, size)
    assert out.shape == (size[1], size[0], 3)
    assert out.dtype == numpy.uint8
    # The weights of each output pixel sum to one.
    numpy.testing.assert_array_equal(out, 77)


def test_resize_identity_and_smoothness():
    image = _image(8, 8)
    numpy.testing.assert_array_equal(_common._resize(image, (8, 8)), image)
    # A linear ramp stays a ramp when upscaled (bicubic reproduces lines).
    ramp = numpy.repeat(
        numpy.arange(0, 200, 20, dtype=numpy.uint8)[None, :, None], 3, 2
    )
    ramp = numpy.repeat(ramp, 4, axis=0)
    out = _common._resize(ramp, (20, 4)).astype(int)[0, 3:-3, 0]
    assert numpy.all(numpy.diff(out) >= 0)


@pytest.mark.parametrize(
    ("in_hw", "size"),
    [((5, 7), (12, 7)), ((64, 48), (20, 64)), ((300, 260), (260, 224))],
)
def test_resize_one_axis_matches_pillow(in_hw, size):
    Image = pytest.importorskip("PIL.Image")
    image = _image(*in_hw, seed=3)
    expected = numpy.asarray(Image.fromarray(image).resize(size))
    out = _common._resize(image, size)
    assert out.shape == expected.shape
    assert numpy.abs(out.astype(int) - expected.astype(int)).max() <= 1


@pytest.mark.parametrize(
    ("in_hw", "size"),
    [((5, 7), (12, 9)), ((64, 48), (20, 30)), ((300, 260), (224, 224))],
)
def test_resize_smooth_image_matches_pillow(in_hw, size):
    Image = pytest.importorskip("PIL.Image")
    y, x = numpy.mgrid[0 : in_hw[0], 0 : in_hw[1]] / max(in_hw)
    image = numpy.stack(
        [128 + 100 * numpy.sin(3 * x + 2 * y), 200 * x * y, 255 * x], axis=2
    ).astype(numpy.uint8)
    expected = numpy.asarray(Image.fromarray(image).resize(size))
    out = _common._resize(image, size)
    assert out.shape == expected.shape
    assert numpy.abs(out.astype(int) - expected.astype(int)).max() <= 2


def test_prepare_pil_images():
    Image = pytest.importorskip("PIL.Image")
    image = _image(20, 30)
    expected = _common.prepare_image(image, (10, 8), _MEAN)
    assert expected.shape == (3, 8, 10)
    out = _common.prepare_image(Image.fromarray(image), (10, 8), _MEAN)
    numpy.testing.assert_array_equal(out, expected)
    gray = Image.fromarray(image[:, :, 0])
    out = _common.prepare_image(gray, None, _MEAN)
    numpy.testing.assert_array_equal(
        out, _common.prepare_image(image[:, :, 0], None, _MEAN)
    )


def test_ten_crops():
    images = numpy.arange(2 * 1 * 4 * 5, dtype=numpy.float32).reshape(2, 1, 4, 5)
    crops = _common.ten_crops(images, (2, 3))
    assert crops.shape == (20, 1, 2, 3)
    for n in range(2):
        img = images[n, 0]
        expected = [
            img[0:2, 0:3],
            img[0:2, 2:5],
            img[2:4, 0:3],
            img[2:4, 2:5],
            img[1:3, 1:4],
        ]
        for i, crop in enumerate(expected):
            numpy.testing.assert_array_equal(crops[10 * n + i, 0], crop)
            numpy.testing.assert_array_equal(crops[10 * n + 5 + i, 0], crop[:, ::-1])


def test_check_kwargs():
    _common.check_kwargs({})
    with pytest.raises(ValueError, match="test argument is not supported"):
        _common.check_kwargs({"test": True})
    with pytest.raises(ValueError, match="volatile argument"):
        _common.check_kwargs({"volatile": True})
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        _common.check_kwargs({"foo": 1})


def test_load_pretrained_rejects_other_types():
    with pytest.raises(TypeError, match="pretrained_model must be"):
        _common.load_pretrained(None, 3, "a", "url", None)
