"""Training with the multi-node checkpointer, and failures injected into it.

Usage: mpiexec -n N python checkpointing.py OUT STOP [--kill R:I] [--raise R:I]

Trains an MLP for STOP iterations with a snapshot every 2 iterations under
OUT, after resuming from the newest common snapshot if there is one. At the
end rank 0 writes the parameters to OUT/final.npz. ``--kill R:I`` makes rank
R kill itself with SIGKILL after iteration I; ``--raise R:I`` makes it raise.
"""

import argparse
import os
import signal

import mn_util
import numpy

import chainer
import chainer.functions as F
import chainer.links as L
import chainermn
from chainer import iterators
from chainer import optimizers
from chainer import training


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(5, 8)
            self.l2 = L.Linear(8, 2)

    def forward(self, x, t):
        loss = F.softmax_cross_entropy(self.l2(F.relu(self.l1(x))), t)
        chainer.report({"loss": loss}, self)
        return loss


def rank_and_iteration(text):
    rank, iteration = text.split(":")
    return int(rank), int(iteration)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("stop", type=int)
    parser.add_argument("--kill", type=rank_and_iteration)
    parser.add_argument("--raise", dest="raise_", type=rank_and_iteration)
    args = parser.parse_args()

    comm = chainermn.create_communicator("flat")
    checks = mn_util.Checks(comm.rank, comm.size)
    data = None
    if comm.rank == 0:
        rng = numpy.random.RandomState(0)
        x = rng.randn(40 * comm.size, 5).astype(numpy.float32)
        t = rng.randint(0, 2, len(x)).astype(numpy.int32)
        data = list(zip(x, t, strict=True))
    train = chainermn.scatter_dataset(data, comm, shuffle=True, seed=0)
    numpy.random.seed(comm.rank)  # different initial parameters per rank
    model = MLP()
    optimizer = chainermn.create_multi_node_optimizer(
        optimizers.MomentumSGD(lr=0.05), comm
    )
    optimizer.setup(model)
    it = iterators.SerialIterator(train, 4, shuffle=False)
    updater = training.updaters.StandardUpdater(it, optimizer)
    trainer = training.Trainer(updater, (args.stop, "iteration"), out=args.out)

    checkpointer = chainermn.create_multi_node_checkpointer(
        "job", comm, cp_interval=2, gc_interval=2
    )
    loaded = checkpointer.maybe_load(trainer, optimizer)
    checks.values["loaded"] = loaded
    trainer.extend(checkpointer, trigger=(2, "iteration"))

    for option, action in ((args.kill, "kill"), (args.raise_, "raise")):
        if option is None or option[0] != comm.rank:
            continue
        at = option[1]

        @training.make_extension(trigger=(1, "iteration"), priority=-1000)
        def fail(trainer, at=at, action=action):
            if trainer.updater.iteration != at:
                return
            if action == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            raise RuntimeError(f"injected failure at iteration {at}")

        trainer.extend(fail)

    trainer.run()
    checks.values["iteration"] = trainer.updater.iteration
    checks.values["files"] = sorted(
        f for f in os.listdir(args.out) if f.startswith("job.")
    )
    checks.values["stats"] = checkpointer.get_stats()
    if comm.rank == 0:
        numpy.savez(
            os.path.join(args.out, "final.npz"),
            **{name: p.array for name, p in model.namedparams()},
        )
    comm.finalize()
    checks.emit()


if __name__ == "__main__":
    main()
