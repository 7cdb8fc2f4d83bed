"""Evaluators, AllreducePersistent, ObservationAggregator and the iterators."""

import numpy
import pytest
from numpy import testing

import chainer
import chainer.functions as F
import chainermn
from chainer import iterators
from chainer import training
from chainer.training import extensions

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("n", [2, 3])
def test_extensions_and_iterators_on_several_processes(mpirun, n, tmp_path):
    # programs/extensions.py: the multi-node evaluator's mean (and its error
    # on different keys), GenericMultiNodeEvaluator on uneven parts,
    # AllreducePersistent, ObservationAggregator inside a Trainer, the
    # multi-node and synchronized iterators.
    records = mpirun(n, "extensions.py", tmp_path).assert_all_passed(n)
    assert len(records[0]["passed"]) == 7


class _Mean(chainer.Link):
    def forward(self, x):
        chainer.report({"mean": F.mean(x)}, self)


def test_multi_node_evaluator_on_one_process(comm):
    data = [numpy.array([float(i)], numpy.float32) for i in range(6)]
    ev = extensions.Evaluator(iterators.SerialIterator(data, 2, False, False), _Mean())
    assert chainermn.create_multi_node_evaluator(ev, comm) is ev
    result = ev()
    testing.assert_allclose(result["main/mean"], 2.5)


def test_generic_evaluator_arguments(comm):
    it = iterators.SerialIterator([1], 1, repeat=False)
    with pytest.raises(TypeError, match="unexpected keyword"):
        chainermn.extensions.GenericMultiNodeEvaluator(comm, it, None, colour=1)
    with pytest.raises(ValueError, match="repeat"):
        chainermn.extensions.GenericMultiNodeEvaluator(
            comm, iterators.SerialIterator([1], 1), None
        )
    ev = chainermn.extensions.GenericMultiNodeEvaluator(
        comm, iterators.SerialIterator([numpy.ones(1)] * 3, 2, False, False), F.sum
    )
    results = ev()
    assert [float(r.array) for r in results] == [2.0, 1.0]


def test_allreduce_persistent_on_one_process(comm):
    link = chainer.Link()
    link.add_persistent("avg", numpy.arange(3, dtype=numpy.float32))
    link.add_persistent("n", 4)
    link.add_persistent("s", 1.5)
    ext = chainermn.extensions.AllreducePersistent(link, comm)
    assert ext.priority == training.PRIORITY_WRITER + 1
    ext()
    testing.assert_array_equal(link.avg, [0, 1, 2])
    assert link.n == 4
    assert link.s == 1.5


def test_allreduce_persistent_with_batch_normalization(comm):
    import chainer.links as L

    bn = L.BatchNormalization(3)
    bn(numpy.random.randn(4, 3).astype(numpy.float32))
    mean, var, n = bn.avg_mean.copy(), bn.avg_var.copy(), bn.N
    chainermn.extensions.AllreducePersistent(chainer.Sequential(bn), comm)()
    testing.assert_array_equal(bn.avg_mean, mean)
    testing.assert_array_equal(bn.avg_var, var)
    assert n == bn.N


class _Reporting(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.ones(2, numpy.float32))

    def forward(self, x):
        loss = F.sum(self.w * x)
        chainer.report({"loss": loss}, self)
        return loss


def test_observation_aggregator_on_one_process(comm, tmp_path):
    model = _Reporting()
    opt = chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(0.1), comm)
    opt.setup(model)
    data = [numpy.full(2, i, numpy.float32) for i in range(4)]
    it = iterators.SerialIterator(data, 1, shuffle=False)
    trainer = training.Trainer(
        training.updaters.StandardUpdater(it, opt), (4, "iteration"), out=tmp_path
    )
    trainer.extend(
        chainermn.extensions.ObservationAggregator(
            comm, "main/loss", "main/loss_mean", comm_trigger=(2, "iteration")
        )
    )
    seen = []
    trainer.extend(
        lambda t: seen.append(t.observation.get("main/loss_mean")),
        trigger=(1, "iteration"),
        priority=0,
    )
    trainer.run()
    assert seen[0] is None
    assert seen[2] is None
    losses = [0.0, 2.0, 4.0 - 0.2 * 2, 6.0 - 0.2 * 3 - 0.4 * 3]
    testing.assert_allclose(seen[1], numpy.mean(losses[:2]), rtol=1e-5)
    testing.assert_allclose(seen[3], numpy.mean(losses[2:]), rtol=1e-5)


def test_multi_node_iterator_on_one_process(comm):
    actual = iterators.SerialIterator([1, 2, 3], 2, repeat=False, shuffle=False)
    it = chainermn.create_multi_node_iterator(actual, comm)
    assert list(it) == [[1, 2], [3]]
    assert it.epoch == 1
    assert it.batch_size == 2


def test_synchronized_iterator_errors(comm):
    class NoSampler(chainer.dataset.Iterator):
        def __next__(self):
            raise StopIteration

    with pytest.raises(ValueError, match="order_sampler"):
        chainermn.iterators.create_synchronized_iterator(NoSampler(), comm)
    custom = iterators.SerialIterator(
        [1, 2], 1, shuffle=None, order_sampler=lambda order, pos: order
    )
    with pytest.raises(ValueError, match="ShuffleOrderSampler"):
        chainermn.iterators.create_synchronized_iterator(custom, comm)
