"""Runs examples/dcgan/train_dcgan.py on tiny synthetic image sets."""

import math
import pathlib
import struct
import zlib

import numpy
import pytest

import chainer

SCRIPT = "dcgan/train_dcgan.py"
# Narrow networks, 40 images in batches of 10: 4 iterations per epoch.
TINY = ["--ch", "16", "--batchsize", "10", "--train-size", "0"]
TINY += ["--snapshot_interval", "4", "--display_interval", "2"]


def make_images(n, channels, size, seed=0):
    """Images in [0, 255]: a bright square on a dark background."""
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(0, 40, (n, channels, size, size)).astype(numpy.float32)
    x[:, :, size // 4 : 3 * size // 4, size // 4 : 3 * size // 4] += 200
    return x


@pytest.fixture
def fake_data(monkeypatch):
    """Replaces both dataset getters; returns the list of getter calls."""
    calls = []

    def fashion_mnist(withlabel=True, ndim=1, scale=1.0, **kwargs):
        calls.append(("fashion-mnist", withlabel, ndim, scale))
        return make_images(40, 1, 28), make_images(10, 1, 28, 1)

    def cifar10(withlabel=True, ndim=3, scale=1.0, **kwargs):
        calls.append(("cifar10", withlabel, ndim, scale))
        return make_images(40, 3, 32), make_images(10, 3, 32, 1)

    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", fashion_mnist)
    monkeypatch.setattr(chainer.datasets, "get_cifar10", cifar10)
    return calls


def read_png(path):
    """Decodes an 8-bit, non-interlaced gray or RGB PNG with filter type 0."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, pos = {}, 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(tag + body), tag
        chunks[tag] = chunks.get(tag, b"") + body
        pos += 12 + length
    width, height, depth, color, _, _, _ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8
    channels = {0: 1, 2: 3}[color]
    raw = numpy.frombuffer(zlib.decompress(chunks[b"IDAT"]), numpy.uint8)
    rows = raw.reshape(height, 1 + width * channels)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


def test_trains_and_writes_snapshots_and_previews(
    load_example, read_log, fake_data, capsys
):
    script = load_example(SCRIPT)
    log = script.main([*TINY, "--epoch", "2", "--out", "out"])

    assert fake_data == [("fashion-mnist", False, 3, 255.0)]
    assert log == read_log("out")
    assert [entry["iteration"] for entry in log] == [2, 4, 6, 8]
    for entry in log:
        assert math.isfinite(entry["gen/loss"])
        assert math.isfinite(entry["dis/loss"])
    out = pathlib.Path("out")
    for it in (4, 8):
        for name in ("snapshot_iter_{}", "gen_iter_{}", "dis_iter_{}"):
            assert (out / name.format(it)).is_file(), name.format(it)
        image = read_png(out / "preview" / f"image{it:08d}.png")
        assert image.shape == (280, 280, 1)  # 10x10 images of 28x28
    printed = capsys.readouterr().out
    assert "gen/loss" in printed
    assert "# n_hidden: 100" in printed

    # A saved generator loads into a fresh one and makes images in [0, 1].
    net = load_example("dcgan/net.py")
    gen = net.Generator(n_hidden=100, ch=16, out_channels=1, size=28)
    chainer.serializers.load_npz(out / "gen_iter_8", gen)
    with chainer.using_config("train", False):
        x = gen(gen.make_hidden(3)).array
    assert x.shape == (3, 1, 28, 28)
    assert 0 <= x.min() <= x.max() <= 1


def test_cifar10_shapes(load_example, read_log, fake_data):
    script = load_example(SCRIPT)
    script.main([*TINY, "--dataset", "cifar10", "--epoch", "1", "--out", "out"])
    assert fake_data == [("cifar10", False, 3, 255.0)]
    assert read_png("out/preview/image00000004.png").shape == (320, 320, 3)


def test_resume_continues_from_snapshot(load_example, read_log, fake_data):
    script = load_example(SCRIPT)
    script.main([*TINY, "--epoch", "1", "--out", "out"])
    first = read_log("out")
    resumed = ["--resume", "out/snapshot_iter_4"]
    script.main([*TINY, "--epoch", "2", "--out", "out", *resumed])

    log = read_log("out")
    assert log[: len(first)] == first
    assert [entry["iteration"] for entry in log] == [2, 4, 6, 8]
    assert pathlib.Path("out/preview/image00000008.png").is_file()


def test_discriminator_learns_against_a_fixed_generator(load_example):
    # A GAN's two losses chase each other, so neither has to fall during a
    # run. With the generator frozen (alpha=0), the discriminator alone
    # minimises its loss, which must then fall well below log(4), the loss
    # of a discriminator that cannot tell real from fake.
    net = load_example("dcgan/net.py")
    updater = load_example("dcgan/updater.py")
    numpy.random.seed(0)
    gen = net.Generator(n_hidden=10, ch=16, out_channels=1, size=28)
    dis = net.Discriminator(ch=16, in_channels=1)
    opt_gen = chainer.optimizers.Adam(alpha=0)
    opt_gen.setup(gen)
    opt_dis = chainer.optimizers.Adam(alpha=0.005, beta1=0.5)
    opt_dis.setup(dis)
    train_iter = chainer.iterators.SerialIterator(make_images(40, 1, 28), 20)
    gan = updater.DCGANUpdater(
        models=(gen, dis),
        iterator=train_iter,
        optimizer={"gen": opt_gen, "dis": opt_dis},
        device=chainer.get_device("@numpy"),
    )
    losses = []
    for _ in range(15):
        reporter = chainer.Reporter()
        reporter.add_observer("dis", dis)
        reporter.add_observer("gen", gen)
        observation = {}
        with reporter.scope(observation):
            gan.update()
        losses.append(float(observation["dis/loss"].array))
    assert abs(losses[0] - math.log(4)) < 0.3
    assert max(losses[-3:]) < 0.25 * losses[0]


def test_image_dir(load_example, read_log, monkeypatch, tmp_path):
    pytest.importorskip("PIL", reason="ImageDataset reads images with Pillow")
    visualize = load_example("dcgan/visualize.py")
    image_dir = tmp_path / "images"
    image_dir.mkdir()
    for i, image in enumerate(make_images(20, 3, 32)):
        pixels = image.transpose(1, 2, 0).astype(numpy.uint8)
        visualize.write_png(str(image_dir / f"{i}.png"), pixels)
    script = load_example(SCRIPT)
    argv = [*TINY, "--image_dir", str(image_dir), "--epoch", "2", "--out", "o"]
    script.main(argv)
    assert read_log("o")[-1]["iteration"] == 4
    assert read_png("o/preview/image00000004.png").shape == (320, 320, 3)


def test_missing_data_exits_with_apt_hint(load_example, monkeypatch):
    def missing(**kwargs):
        raise OSError("Fashion-MNIST: cannot find or download train-images")

    monkeypatch.setattr(chainer.datasets, "get_fashion_mnist", missing)
    script = load_example(SCRIPT)
    with pytest.raises(SystemExit) as e:
        script.main([])
    message = str(e.value.code)
    assert "cannot find or download" in message
    assert "sudo apt-get install dataset-fashion-mnist" in message


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--dataset", "mnist"], "invalid choice: 'mnist'"),
        (["--ch", "12"], "--ch must be a positive multiple of 8"),
        (["--image_dir", "no/such/dir"], "no such directory"),
        (["--device", "@nonsense"], "--device @nonsense"),
        (["--resume", "no/such.npz"], "no such file: no/such.npz"),
    ],
)
def test_bad_arguments_are_reported(load_example, capsys, argv, expected):
    script = load_example(SCRIPT)
    with pytest.raises(SystemExit) as e:
        script.main(argv)
    assert e.value.code == 2
    assert expected in capsys.readouterr().err


def test_help(run_script):
    result = run_script(SCRIPT, "--help")
    assert result.returncode == 0, result.stderr
    for flag in ("--device", "--epoch", "--batchsize", "--out", "--resume"):
        assert flag in result.stdout
    for flag in ("--n_hidden", "--snapshot_interval", "--dataset", "--image_dir"):
        assert flag in result.stdout
