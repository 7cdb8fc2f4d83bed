"""Evaluators, AllreducePersistent, ObservationAggregator and the iterators.

Usage: mpiexec -n N python extensions.py OUT_DIR
"""

import sys

import mn_util
import numpy
from numpy import testing

import chainer
import chainer.functions as F
import chainer.links as L
import chainermn
from chainer import iterators
from chainer import optimizers
from chainer import training
from chainer.training import extensions


class Regression(chainer.Chain):
    def __init__(self):
        super().__init__()
        numpy.random.seed(0)
        with self.init_scope():
            self.l1 = L.Linear(4, 1)

    def forward(self, x, t):
        loss = F.mean_squared_error(self.l1(x), t)
        chainer.report({"loss": loss, "bias": self.l1.b[0]}, self)
        return loss


def make_dataset(n, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(n, 4).astype(numpy.float32)
    t = rng.randn(n, 1).astype(numpy.float32)
    return list(zip(x, t, strict=True))


def evaluator(comm):
    rank, size = comm.rank, comm.size
    data = make_dataset(8 * size) if rank == 0 else None
    part = chainermn.scatter_dataset(data, comm)
    model = Regression()
    comm.bcast_data(model)
    local = extensions.Evaluator(iterators.SerialIterator(part, 4, False, False), model)
    local_result = local()
    ev = extensions.Evaluator(iterators.SerialIterator(part, 4, False, False), model)
    ev = chainermn.create_multi_node_evaluator(ev, comm)
    result = ev()
    everyone = comm.allgather_obj(local_result)
    for key in ("main/loss", "main/bias"):
        expect = numpy.mean([r[key] for r in everyone])
        testing.assert_allclose(result[key], expect, rtol=1e-6)
    # Equal parts: the mean of the means is the mean over the whole set.
    if rank == 0:
        whole = extensions.Evaluator(
            iterators.SerialIterator(data, 4, False, False), model
        )()
        testing.assert_allclose(result["main/loss"], whole["main/loss"], rtol=1e-5)


class _RankKeyed(chainer.Link):
    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def forward(self, x, t):
        chainer.report({f"key{self.rank % 2}": float(x.sum())}, self)


def evaluator_key_mismatch(comm):
    data = make_dataset(4)
    ev = extensions.Evaluator(
        iterators.SerialIterator(data, 2, False, False), _RankKeyed(comm.rank)
    )
    ev = chainermn.create_multi_node_evaluator(ev, comm)
    try:
        ev()
    except ValueError as e:
        message = str(e)
    else:
        raise AssertionError("different keys must raise ValueError")
    assert "different keys" in message, message


class GenericSum(chainermn.extensions.GenericMultiNodeEvaluator):
    def calc_local(self, x):
        return float(x.sum()), len(x)

    def aggregate(self, results):
        return sum(s for s, _ in results), sum(n for _, n in results)


def generic_evaluator(comm):
    rank = comm.rank
    # Uneven parts: rank r has r + 2 examples, in batches of 2.
    data = [numpy.array([rank * 100 + i], numpy.float32) for i in range(rank + 2)]
    it = iterators.SerialIterator(data, 2, repeat=False, shuffle=False)
    seen = []
    ev = GenericSum(comm, it, None, progress_hook=seen.append)
    got = ev()
    if rank == 0:
        total = sum(
            r * 100 * (r + 2) + (r + 1) * (r + 2) // 2 for r in range(comm.size)
        )
        assert got == (total, sum(r + 2 for r in range(comm.size))), got
        assert len(seen) == 1  # the root's own batches (2 examples)
    else:
        assert got is None


class WithPersistents(chainer.Link):
    def __init__(self, rank):
        super().__init__()
        self.add_persistent("mean", numpy.full(3, float(rank), numpy.float32))
        self.add_persistent("scale", float(rank))
        self.add_persistent("count", rank)
        with self.init_scope():
            self.w = chainer.Parameter(numpy.full(2, float(rank), numpy.float32))


def allreduce_persistent(comm):
    rank, size = comm.rank, comm.size
    model = chainer.Sequential(WithPersistents(rank), WithPersistents(rank + 1))
    chainermn.extensions.AllreducePersistent(model, comm)()
    mean = (size - 1) / 2
    first, second = model[0], model[1]
    testing.assert_allclose(first.mean, numpy.full(3, mean))
    assert first.mean.dtype == numpy.float32
    assert first.scale == mean
    assert isinstance(first.scale, float)
    assert first.count == rank, "integer persistents are not averaged"
    testing.assert_allclose(second.mean, numpy.full(3, mean + 1))
    testing.assert_array_equal(first.w.array, numpy.full(2, float(rank)))


def _value(x):
    return float(getattr(x, "array", x))


def trainer_with_aggregator(comm, out):
    rank = comm.rank
    data = make_dataset(16 * comm.size) if rank == 0 else None
    part = chainermn.scatter_dataset(data, comm, shuffle=True, seed=1)
    model = Regression()
    opt = chainermn.create_multi_node_optimizer(optimizers.SGD(lr=0.05), comm)
    opt.setup(model)
    it = iterators.SerialIterator(part, 4, shuffle=False)
    updater = training.updaters.StandardUpdater(it, opt)
    trainer = training.Trainer(updater, (6, "iteration"), out=out)
    trainer.extend(
        chainermn.extensions.ObservationAggregator(comm, "main/loss", "main/loss_all")
    )
    trainer.extend(
        chainermn.extensions.ObservationAggregator(
            comm, "main/bias", comm_trigger=(3, "iteration")
        )
    )
    seen = []

    @training.make_extension(trigger=(1, "iteration"), priority=0)
    def record(trainer):
        obs = trainer.observation
        seen.append(
            (
                _value(obs["main/loss"]),
                _value(obs["main/loss_all"]),
                trainer.updater.iteration,
                _value(obs["main/bias"]),
            )
        )

    trainer.extend(record)
    trainer.run()
    everyone = comm.allgather_obj(seen)
    for i in range(len(seen)):
        locals_ = [s[i][0] for s in everyone]
        testing.assert_allclose(seen[i][1], numpy.mean(locals_), rtol=1e-5)
        for other in everyone:
            assert other[i][1] == seen[i][1]
    # main/bias is overwritten by the mean every third iteration only.
    assert [s[2] for s in seen] == [1, 2, 3, 4, 5, 6]
    for i in (2, 5):
        for other in everyone[1:]:
            assert other[i][3] == everyone[0][i][3]


def multi_node_iterator(comm):
    rank = comm.rank
    # The master shuffles with its own seed; the others must see its batches.
    numpy.random.seed(100 + rank)
    actual = iterators.SerialIterator(list(range(7)), 3, repeat=True, shuffle=True)
    it = chainermn.create_multi_node_iterator(actual, comm, rank_master=comm.size - 1)
    batches = [next(it) for _ in range(5)]
    states = (it.epoch, it.is_new_epoch, it.epoch_detail, it.batch_size)
    everyone = comm.allgather_obj((batches, states))
    for other in everyone:
        assert other == everyone[0], (other, everyone[0])
    assert states[0] == 2
    assert states[3] == 3

    finite = iterators.SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
    it = chainermn.create_multi_node_iterator(finite, comm)
    got = list(it)
    assert got == [[0, 1], [2, 3], [4]], got
    it.reset()
    assert next(it) == [0, 1]


def synchronized_iterator(comm):
    numpy.random.seed(comm.rank)
    it = iterators.SerialIterator(list(range(10)), 4, shuffle=True)
    it = chainermn.iterators.create_synchronized_iterator(it, comm)
    batches = [next(it) for _ in range(6)]
    everyone = comm.allgather_obj(batches)
    for other in everyone:
        assert other == everyone[0]
    assert sorted([*batches[0], *batches[1], *batches[2][:2]]) == list(range(10))
    plain = iterators.SerialIterator(list(range(4)), 2, shuffle=False)
    assert chainermn.iterators.create_synchronized_iterator(plain, comm) is plain
    assert next(plain) == [0, 1]


def main():
    out = sys.argv[1]
    comm = chainermn.create_communicator("naive")
    checks = mn_util.Checks(comm.rank, comm.size)
    checks.run("evaluator", evaluator, comm)
    checks.run("evaluator_key_mismatch", evaluator_key_mismatch, comm)
    checks.run("generic_evaluator", generic_evaluator, comm)
    checks.run("allreduce_persistent", allreduce_persistent, comm)
    checks.run("observation_aggregator", trainer_with_aggregator, comm, out)
    checks.run("multi_node_iterator", multi_node_iterator, comm)
    checks.run("synchronized_iterator", synchronized_iterator, comm)
    comm.finalize()
    checks.emit()


if __name__ == "__main__":
    main()
