#!/usr/bin/env python
"""Trains the MNIST example's MLP data-parallel over MPI processes (ChainerMN).

Launched with ``mpiexec``, every process runs this script: rank 0 loads the
dataset and ``chainermn.scatter_dataset`` gives each process its own part.
Each process computes the gradients of its minibatches, and the multi-node
optimizer averages them over the processes before every update, so all the
processes keep the same parameters (rank 0's, broadcast at the first
update). The multi-node evaluator averages the validation results over the
processes, and the multi-node checkpointer saves every process's state each
epoch so that an interrupted run can be resumed with ``--resume``. Only
rank 0 reports (``LogReport``, ``PrintReport``, ``ProgressBar``).

Fashion-MNIST is read offline from Debian's ``dataset-fashion-mnist``
package (``sudo apt-get install dataset-fashion-mnist``); ``--dataset mnist``
downloads MNIST instead, and ``--dataset synthetic`` makes a small random
stand-in with the same shapes (for trying a launch without the data).

Run::

    mpiexec -n 2 python train_mnist_multi_node.py          # two processes
    mpiexec -n 2 python train_mnist_multi_node.py --epoch 8 --resume result_multi_node
    python train_mnist_multi_node.py                       # one process

As root, Open MPI also wants ``OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1``.
"""

import argparse
import os

import numpy

import chainer
import chainer.links as L
import chainermn
from chainer import training
from chainer.training import extensions

import train_mnist


def get_synthetic_dataset(n_train=3000, n_test=600):
    """A small learnable dataset of MNIST's shapes (one prototype per class).

    Args:
        n_train (int): Number of training examples.
        n_test (int): Number of test examples.

    Returns:
        tuple: ``(train, test)``, TupleDatasets of ``(784,)`` float32 images
        in ``[0, 1]`` and int32 labels.
    """
    prototypes = numpy.random.RandomState(0).uniform(0, 1, (10, 784))

    def make(n, seed):
        rng = numpy.random.RandomState(seed)
        labels = rng.randint(0, 10, n).astype(numpy.int32)
        images = prototypes[labels] + rng.normal(0, 0.3, (n, 784))
        images = numpy.clip(images, 0, 1).astype(numpy.float32)
        return chainer.datasets.TupleDataset(images, labels)

    return make(n_train, 1), make(n_test, 2)


def load_on_root(comm, name):
    """Loads the dataset on rank 0; every process exits if that fails.

    Args:
        comm: The communicator.
        name (str): ``'fashion-mnist'``, ``'mnist'`` or ``'synthetic'``.

    Returns:
        tuple: ``(train, test)`` on rank 0, ``(None, None)`` elsewhere.
    """
    train = test = error = None
    if comm.rank == 0:
        try:
            if name == "synthetic":
                train, test = get_synthetic_dataset()
            else:
                train, test = train_mnist.get_dataset(name)
        except SystemExit as e:
            error = str(e.code)
    # The other processes learn of a failure instead of waiting for the data.
    error = comm.bcast_obj(error)
    if error is not None:
        raise SystemExit(error if comm.rank == 0 else 1)
    return train, test


def create_communicator(name, on_gpu):
    """``chainermn.create_communicator`` with a clean exit if it is unavailable."""
    if name is None:
        name = "pure_nccl" if on_gpu else "flat"
    try:
        return chainermn.create_communicator(name)
    except (ImportError, RuntimeError, ValueError) as e:
        message = f"error: cannot create the {name!r} communicator: {e}"
        raise SystemExit(message) from None


def main(argv=None):
    """Trains the MLP on every process; returns rank 0's last LogReport entry."""
    parser = argparse.ArgumentParser(
        description="ChainerMN example: data-parallel training of an MLP on "
        "Fashion-MNIST or MNIST over MPI processes"
    )
    parser.add_argument(
        "--batchsize",
        "-b",
        type=train_mnist.positive_int,
        default=100,
        help="number of images in each mini-batch of each process "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--communicator",
        default=None,
        help="ChainerMN communicator: flat, naive... (default: flat on the "
        "CPU, pure_nccl with a GPU --device)",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        type=train_mnist.positive_int,
        default=5,
        help="number of sweeps over the dataset to train (default: %(default)s)",
    )
    parser.add_argument(
        "--device",
        "-d",
        default="@numpy",
        help="device: @numpy, or @cupy for each process's GPU (its rank within "
        "its node), or @cupy:N (default: %(default)s)",
    )
    parser.add_argument(
        "--out",
        "-o",
        default="result_multi_node",
        help="directory to write the results and checkpoints to (default: %(default)s)",
    )
    parser.add_argument(
        "--resume",
        "-r",
        help="resume from the newest checkpoint every process has in this "
        "directory (the --out of the interrupted run)",
    )
    parser.add_argument(
        "--unit",
        "-u",
        type=train_mnist.positive_int,
        default=1000,
        help="number of units in each hidden layer (default: %(default)s)",
    )
    parser.add_argument(
        "--dataset",
        choices=("fashion-mnist", "mnist", "synthetic"),
        default="fashion-mnist",
        help="fashion-mnist (offline from Debian's dataset-fashion-mnist), "
        "mnist (downloaded) or synthetic (random, MNIST's shapes) "
        "(default: %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.resume is not None and not os.path.isdir(args.resume):
        what = "got a file" if os.path.isfile(args.resume) else "no such directory"
        parser.error(
            "--resume expects the --out directory of an interrupted run, which "
            f"holds every process's checkpoints; {what}: {args.resume}"
        )

    on_gpu = args.device.startswith("@cupy")
    comm = create_communicator(args.communicator, on_gpu)
    # One GPU per process: '@cupy' alone means the process's rank in its node.
    device_name = f"@cupy:{comm.intra_rank}" if args.device == "@cupy" else args.device
    device = chainer.get_device(device_name)
    if comm.rank == 0:
        print(f"Processes: {comm.size}")
        print(f"Communicator: {type(comm).__name__}")
        print(f"Device: {device}")
        print(f"Dataset: {args.dataset}")
        print(f"# unit: {args.unit}")
        print(f"# Minibatch-size: {args.batchsize} per process")
        print(f"# epoch: {args.epoch}")
        print("")

    model = L.Classifier(train_mnist.MLP(args.unit, 10))
    device.use()
    model.to_device(device)
    # Averages the gradients over the processes before each update.
    optimizer = chainermn.create_multi_node_optimizer(chainer.optimizers.Adam(), comm)
    optimizer.setup(model)

    # Rank 0 loads the data and splits it evenly among the processes.
    train, test = load_on_root(comm, args.dataset)
    train = chainermn.scatter_dataset(train, comm, shuffle=True)
    test = chainermn.scatter_dataset(test, comm, shuffle=True)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    # Each process evaluates its part; the results are averaged.
    evaluator = extensions.Evaluator(test_iter, model, device=device)
    trainer.extend(chainermn.create_multi_node_evaluator(evaluator, comm))
    # Every process's state each epoch, for --resume.
    checkpointer = chainermn.create_multi_node_checkpointer("mnist", comm)
    trainer.extend(checkpointer, trigger=(1, "epoch"))

    log_report = None
    if comm.rank == 0:
        # Reports come from rank 0 only (its training loss is its own
        # minibatches'; the validation results are the averages).
        log_report = extensions.LogReport()
        trainer.extend(log_report)
        trainer.extend(
            extensions.PrintReport(
                [
                    "epoch",
                    "main/loss",
                    "validation/main/loss",
                    "main/accuracy",
                    "validation/main/accuracy",
                    "elapsed_time",
                ]
            )
        )
        trainer.extend(extensions.ProgressBar())

    if args.resume is not None:
        # After every extension is registered, so that their states (the
        # log...) are restored too.
        checkpointer.maybe_load(trainer, optimizer, path=args.resume)
    trainer.run()
    return log_report.log[-1] if log_report is not None else None


if __name__ == "__main__":
    main()
