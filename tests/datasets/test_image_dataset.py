import multiprocessing
import pickle
import sys
import threading
import zipfile

import numpy
import pytest

import chainer
from chainer import dataset
from chainer import datasets

Image = pytest.importorskip("PIL.Image", reason="the image datasets need Pillow")


@pytest.fixture
def images(tmp_path):
    """Writes a few small images; returns {relative path: pixel array (H, W[, C])}."""
    folder = tmp_path / "images"
    (folder / "sub dir").mkdir(parents=True)
    rng = numpy.random.RandomState(0)
    arrays = {
        "grey.png": rng.randint(0, 256, (4, 5)).astype(numpy.uint8),
        "rgb.png": rng.randint(0, 256, (3, 2, 3)).astype(numpy.uint8),
        "sub dir/rgba.png": rng.randint(0, 256, (2, 2, 4)).astype(numpy.uint8),
        "photo.jpg": numpy.full((8, 8, 3), 120, dtype=numpy.uint8),
    }
    for name, array in arrays.items():
        Image.fromarray(array).save(folder / name)
    return folder, arrays


def _chw(array):
    return array[None] if array.ndim == 2 else array.transpose(2, 0, 1)


def test_image_dataset_shapes_and_values(images):
    folder, arrays = images
    names = ["grey.png", "rgb.png", "sub dir/rgba.png"]
    ds = datasets.ImageDataset(names, root=str(folder))
    assert len(ds) == 3
    for i, name in enumerate(names):
        image = ds[i]
        assert image.dtype == numpy.float32
        numpy.testing.assert_array_equal(image, _chw(arrays[name]))
    assert ds[0].shape == (1, 4, 5)
    assert ds[1].shape == (3, 3, 2)
    assert ds[-1].shape == (4, 2, 2)
    assert [x.shape for x in ds[:2]] == [(1, 4, 5), (3, 3, 2)]


def test_jpeg(images):
    folder, _ = images
    image = datasets.ImageDataset(["photo.jpg"], root=folder)[0]
    assert image.shape == (3, 8, 8)
    assert abs(float(image.mean()) - 120) < 3


def test_dtype(images):
    folder, arrays = images
    with chainer.using_config("dtype", numpy.float16):
        ds = datasets.ImageDataset(["rgb.png"], root=folder)
    assert ds[0].dtype == numpy.float16
    ds = datasets.ImageDataset(["rgb.png"], root=folder, dtype=numpy.uint8)
    assert ds[0].dtype == numpy.uint8
    numpy.testing.assert_array_equal(ds[0], _chw(arrays["rgb.png"]))


def test_image_dataset_from_path_file(images, tmp_path):
    folder, arrays = images
    listing = tmp_path / "list.txt"
    listing.write_text("rgb.png\n\n  sub dir/rgba.png  \n")
    ds = datasets.ImageDataset(str(listing), root=folder)
    assert len(ds) == 2
    numpy.testing.assert_array_equal(ds[1], _chw(arrays["sub dir/rgba.png"]))


def test_missing_and_bad_images(images):
    folder, _ = images
    (folder / "bad.png").write_bytes(b"not an image")
    ds = datasets.ImageDataset(["nothing.png", "bad.png"], root=folder)
    with pytest.raises(FileNotFoundError):
        ds[0]
    with pytest.raises(Exception) as info:
        ds[1]
    assert any("bad.png" in note for note in info.value.__notes__)
    with pytest.raises(TypeError, match="paths must be a list of image paths"):
        datasets.ImageDataset(3)


def test_labeled_image_dataset(images):
    folder, arrays = images
    ds = datasets.LabeledImageDataset([("grey.png", 3), ("rgb.png", 7)], root=folder)
    image, label = ds[1]
    numpy.testing.assert_array_equal(image, _chw(arrays["rgb.png"]))
    assert label.dtype == numpy.int32
    assert label.shape == ()
    assert int(label) == 7
    ds = datasets.LabeledImageDataset(
        [("grey.png", 3)], root=folder, dtype=numpy.float64, label_dtype=numpy.int64
    )
    image, label = ds[0]
    assert (image.dtype, label.dtype) == (numpy.float64, numpy.int64)


def test_labeled_image_dataset_from_file(images, tmp_path):
    folder, arrays = images
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("grey.png 0\n\nsub dir/rgba.png 2\n")
    ds = datasets.LabeledImageDataset(str(pairs), root=str(folder))
    assert len(ds) == 2
    image, label = ds[1]
    numpy.testing.assert_array_equal(image, _chw(arrays["sub dir/rgba.png"]))
    assert int(label) == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("grey.png 0\nrgb.png\n", "invalid format at line 2 in file"),
        ("grey.png zero\n", "invalid label at line 1 .*'zero' is not an integer"),
    ],
)
def test_labeled_image_dataset_bad_file(tmp_path, content, message):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text(content)
    with pytest.raises(ValueError, match=message):
        datasets.LabeledImageDataset(str(pairs))


def test_labeled_batch_converts(images):
    folder, _ = images
    ds = datasets.LabeledImageDataset([("rgb.png", 1), ("rgb.png", 2)], root=folder)
    x, t = dataset.concat_examples(ds[:])
    assert x.shape == (2, 3, 3, 2)
    numpy.testing.assert_array_equal(t, [1, 2])


@pytest.fixture
def archive(images, tmp_path):
    folder, arrays = images
    path = tmp_path / "images.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("empty dir/", b"")
        for name in arrays:
            z.write(folder / name, name)
    return str(path), arrays


def test_zipped_image_dataset(archive):
    path, arrays = archive
    ds = datasets.ZippedImageDataset(path)
    assert len(ds) == len(arrays)  # the directory entry is no example
    for i, name in enumerate(arrays):
        if name.endswith(".png"):
            numpy.testing.assert_array_equal(ds[i], _chw(arrays[name]))
    numpy.testing.assert_array_equal(ds["rgb.png"], _chw(arrays["rgb.png"]))
    assert ds[-1].shape == (3, 8, 8)
    with pytest.raises(KeyError, match="missing.png"):
        ds["missing.png"]
    ds.close()
    assert ds[0].shape == (1, 4, 5)  # reopened on demand
    ds.close()


def test_zipped_image_dataset_bad_archive(tmp_path):
    path = tmp_path / "bad.zip"
    path.write_bytes(b"not a zip")
    with pytest.raises(zipfile.BadZipFile, match="bad.zip"):
        datasets.ZippedImageDataset(str(path))


def test_zipped_threads(archive):
    path, arrays = archive
    ds = datasets.ZippedImageDataset(path)
    expected = [_chw(arrays[name]) for name in arrays]
    errors = []

    def read():
        try:
            for _ in range(20):
                for i in range(3):  # the PNGs (the JPEG is lossy)
                    numpy.testing.assert_array_equal(ds[i], expected[i])
        except Exception as e:  # reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ds.close()
    assert errors == []


def _read_shapes(ds, queue):
    queue.put([ds[i % len(ds)].shape for i in range(200)])


def test_zipped_forked_child(archive):
    path, _ = archive
    ds = datasets.ZippedImageDataset(path)
    shapes = [x.shape for x in ds]  # the archive is open before the fork
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_read_shapes, args=(ds, queue))
    child.start()
    mine = [ds[i % len(ds)].shape for i in range(200)]
    theirs = queue.get(timeout=60)
    child.join(timeout=60)
    ds.close()
    assert child.exitcode == 0
    assert mine == theirs == [shapes[i % len(shapes)] for i in range(200)]


def test_zipped_pickle(archive):
    path, arrays = archive
    ds = datasets.ZippedImageDataset(path, dtype=numpy.uint8)
    ds[0]
    clone = pickle.loads(pickle.dumps(ds))
    numpy.testing.assert_array_equal(clone[1], _chw(arrays["rgb.png"]))
    assert clone[1].dtype == numpy.uint8
    ds.close()
    clone.close()


def test_multi_zipped(archive, tmp_path):
    path, arrays = archive
    second = tmp_path / "second.zip"
    with zipfile.ZipFile(second, "w") as z:
        z.writestr("x/one.png", _png(numpy.zeros((2, 3), numpy.uint8)))
    ds = datasets.MultiZippedImageDataset([path, str(second)])
    assert len(ds) == len(arrays) + 1
    assert ds[len(arrays)].shape == (1, 2, 3)
    assert ds[-1].shape == (1, 2, 3)
    numpy.testing.assert_array_equal(ds[1], _chw(arrays["rgb.png"]))
    ds.close()
    with pytest.raises(TypeError, match="list of zip file paths"):
        datasets.MultiZippedImageDataset(path)
    assert len(datasets.MultiZippedImageDataset([])) == 0


def _png(array):
    import io

    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format="PNG")
    return buffer.getvalue()


def test_labeled_zipped(archive, tmp_path):
    path, arrays = archive
    labels = tmp_path / "labels.txt"
    labels.write_text("rgb.png 4\nsub dir/rgba.png 1\n")
    ds = datasets.LabeledZippedImageDataset(path, str(labels), label_dtype=numpy.int64)
    assert len(ds) == 2
    image, label = ds[0]
    numpy.testing.assert_array_equal(image, _chw(arrays["rgb.png"]))
    assert image.dtype == numpy.float32
    assert label.dtype == numpy.int64
    assert int(label) == 4
    assert ds[-1][0].shape == (4, 2, 2)
    ds.close()


def test_labeled_zipped_unknown_member(archive, tmp_path):
    path, _ = archive
    labels = tmp_path / "labels.txt"
    labels.write_text("rgb.png 4\nnot-there.png 1\n")
    with pytest.raises(
        ValueError, match="names 'not-there.png', which is not an image"
    ):
        datasets.LabeledZippedImageDataset(path, str(labels))


def test_without_pillow(monkeypatch, images, archive):
    folder, _ = images
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    message = r"pip install 'chainer-datasets\[image\]'"
    with pytest.raises(ImportError, match=message):
        datasets.ImageDataset(["rgb.png"], root=folder)
    with pytest.raises(ImportError, match=message):
        datasets.LabeledImageDataset([("rgb.png", 0)], root=folder)
    with pytest.raises(ImportError, match=message):
        datasets.ZippedImageDataset(archive[0])


def test_multi_zipped_get_example_bounds(archive):
    path, arrays = archive
    ds = datasets.MultiZippedImageDataset([path, path])
    assert ds.get_example(-1).shape == (3, 8, 8)
    with pytest.raises(IndexError, match="out of range for MultiZippedImageDataset"):
        ds.get_example(2 * len(arrays))
    ds.close()
