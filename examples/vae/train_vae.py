"""Trains a variational autoencoder (VAE) on Fashion-MNIST or MNIST.

The encoder maps an image to a Gaussian over a latent code ``z``; a sample of
``z`` (reparameterised, so gradients flow through it) is decoded into the
Bernoulli parameters of every pixel. The loss is the negative ELBO:
``F.bernoulli_nll`` for the reconstruction plus ``beta`` times
``F.gaussian_kl_divergence`` to the prior N(0, I). Training uses a Trainer with
an Evaluator, LogReport, PrintReport, ProgressBar and snapshots. At the end the
script writes PNG grids to ``--out``: train and test images above their
reconstructions, and images decoded from ``z ~ N(0, I)``.

Fashion-MNIST is read offline from Debian's ``dataset-fashion-mnist`` package
(``sudo apt-get install dataset-fashion-mnist``); ``--dataset mnist``
downloads MNIST. Run::

    python train_vae.py                  # Fashion-MNIST, CPU
    python train_vae.py --device @cupy:0 --epoch 50
"""

import argparse
import os

import numpy as np

import chainer
from chainer import training
from chainer.training import extensions

import net

GETTERS = {
    "fashion-mnist": "get_fashion_mnist",
    "mnist": "get_mnist",
}
APT_HINT = (
    "On Debian or Ubuntu, `sudo apt-get install dataset-fashion-mnist` installs "
    "Fashion-MNIST where it is found offline."
)


def save_images(path, rows, title):
    """Writes a grid of 28x28 gray images as a PNG file.

    Args:
        path (str): The file to write.
        rows (list of ndarray): Each of shape ``(n, 784)`` with values in
            ``[0, 1]``, drawn as one row of the grid.
        title (str): The figure's title.
    """
    # Figure without pyplot: no GUI backend and no global figure state.
    from matplotlib.figure import Figure

    images = np.stack(rows).reshape(len(rows), -1, 28, 28)
    n_rows, n_cols = images.shape[:2]
    # Tile into one (n_rows * 28, n_cols * 28) picture: one imshow is fast.
    grid = images.transpose(0, 2, 1, 3).reshape(n_rows * 28, n_cols * 28)
    fig = Figure(figsize=(n_cols, n_rows + 0.4))
    ax = fig.add_subplot()
    ax.imshow(grid, cmap="gray", vmin=0, vmax=1)
    ax.set_axis_off()
    ax.set_title(title)
    fig.savefig(path, bbox_inches="tight")


def write_images(vae, train, test, device, out, seed):
    """Writes the reconstruction and sample grids of the trained model.

    Args:
        vae (net.VAE): The trained model.
        train (ndarray): Training images of shape ``(N, 784)``.
        test (ndarray): Test images.
        device (chainer.backend.Device): The model's device.
        out (str): Output directory.
        seed (int): Seed of the ``z`` drawn for the samples.

    Returns:
        list of str: The files written (none without matplotlib).
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed: no images are written.")
        return []
    cpu = chainer.get_device("@numpy")
    written = []
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        for name, images in (("train", train[:8]), ("test", test[:8])):
            rec = cpu.send(vae.reconstruct(device.send(images)).array)
            path = os.path.join(out, f"{name}_reconstructed.png")
            save_images(path, [images, rec], f"{name}: originals above, VAE below")
            written.append(path)
        z = np.random.RandomState(seed).standard_normal((24, vae.n_latent))
        z = device.send(z.astype(train.dtype))
        samples = cpu.send(vae.decoder(z, probability=True).array)
        path = os.path.join(out, "sampled.png")
        save_images(path, list(samples.reshape(3, 8, -1)), "decoded from z ~ N(0, I)")
        written.append(path)
    return written


def positive_int(text):
    """Argument type of counts such as ``--epoch``: an integer of at least 1."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def main(argv=None):
    """Trains the VAE and writes its images.

    Args:
        argv (list of str): Command-line arguments; ``sys.argv[1:]`` if None.

    Returns:
        dict: The last LogReport entry, and ``'images'``: the PNG files.
    """
    parser = argparse.ArgumentParser(
        description="Chainer example: variational autoencoder on Fashion-MNIST"
    )
    parser.add_argument(
        "--dataset",
        default="fashion-mnist",
        choices=sorted(GETTERS),
        help="data set to learn (default: fashion-mnist)",
    )
    parser.add_argument(
        "--device",
        "-d",
        default="@numpy",
        help="device: @numpy, @cupy:0 or an integer (-1 is the CPU)",
    )
    parser.add_argument(
        "--epoch", "-e", type=positive_int, default=10, help="number of epochs to train"
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=positive_int,
        default=100,
        help="images in each minibatch",
    )
    parser.add_argument(
        "--unit",
        "-u",
        type=positive_int,
        default=500,
        help="hidden units of each network",
    )
    parser.add_argument(
        "--dim-z",
        "-z",
        type=positive_int,
        default=20,
        help="dimension of the latent code z",
    )
    parser.add_argument(
        "--beta", type=float, default=1.0, help="weight of the KL term (1: the ELBO)"
    )
    parser.add_argument(
        "--k", type=positive_int, default=1, help="samples of z per image in the loss"
    )
    parser.add_argument(
        "--frequency",
        "-f",
        type=int,
        default=-1,
        help="take a snapshot every this many epochs (default: at the end)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="random seed (weights, order, z)"
    )
    parser.add_argument("--out", "-o", default="result", help="output directory")
    parser.add_argument("--resume", "-r", default=None, help="snapshot to resume")
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.exists(args.resume):
        parser.error(f"--resume: no such file: {args.resume}")

    try:
        device = chainer.get_device(args.device)
    except (ValueError, RuntimeError) as e:
        parser.error(f"--device {args.device}: {e}")

    getter = getattr(chainer.datasets, GETTERS[args.dataset])
    try:
        train, test = getter(withlabel=False)
    except OSError as e:
        message = f"Could not load {args.dataset}: {e}"
        # The getter's own message may already name the package.
        if args.dataset == "fashion-mnist" and "dataset-fashion-mnist" not in str(e):
            message += "\n" + APT_HINT
        raise SystemExit(message) from None

    device.use()
    np.random.seed(args.seed)

    print(f"Device: {device}")
    print(f"# dataset: {args.dataset} ({len(train)} train, {len(test)} test)")
    print(f"# dim z: {args.dim_z}")
    print(f"# unit: {args.unit}")
    print(f"# beta: {args.beta}")
    print(f"# minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    vae = net.VAE(train.shape[1], args.unit, args.dim_z)
    model = net.VAELoss(vae, beta=args.beta, k=args.k)
    model.to_device(device)
    optimizer = chainer.optimizers.Adam().setup(model)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )
    updater = training.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    frequency = args.epoch if args.frequency == -1 else max(1, args.frequency)
    trainer.extend(extensions.snapshot(), trigger=(frequency, "epoch"))
    trainer.extend(
        extensions.snapshot_object(vae, "model_iter_{.updater.iteration}"),
        trigger=(frequency, "epoch"),
    )
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.extend(
        extensions.PrintReport(
            [
                "epoch",
                "main/loss",
                "main/rec_loss",
                "main/kl",
                "validation/main/loss",
                "elapsed_time",
            ]
        )
    )
    trainer.extend(extensions.ProgressBar())

    if args.resume is not None:
        try:
            chainer.serializers.load_npz(args.resume, trainer)
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--resume: {error}")

    trainer.run()

    images = write_images(vae, train, test, device, args.out, args.seed)
    for path in images:
        print(f"Wrote {path}")
    return {**(log_report.log[-1] if log_report.log else {}), "images": images}


if __name__ == "__main__":
    main()
