"""The multi-node optimizer: data-parallel equivalence, double buffering."""

import numpy
import pytest
from numpy import testing

import chainer
import chainer.functions as F
import chainermn
from chainer import optimizers
from chainer import serializers

pytestmark = pytest.mark.mpi


def test_training_on_two_processes_equals_one_process(mpirun):
    # programs/equivalence.py: SGD and Adam, with and without double
    # buffering, an MLP on scatter_dataset parts; rank 0 compares with one
    # process on the combined batches (one step stale with double buffering).
    records = mpirun(2, "equivalence.py").assert_all_passed(2)
    passed = set(records[0]["passed"])
    for kind in ("sgd", "adam"):
        assert f"{kind}:equals one process" in passed
        assert f"{kind}-double_buffering:equals one process" in passed
        assert f"{kind}-double_buffering:updates are one step stale" in passed
    assert records[1]["values"]["adam:t"] == 5


class _Linear(chainer.Link):
    # loss = sum(w * c): the gradient of w is c, whatever w is.
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.zeros(3, numpy.float32))

    def forward(self, c):
        return F.sum(self.w * c)


def _c(k):
    return numpy.full(3, 10.0**k, numpy.float32)


def test_first_update_broadcasts_instead_of_updating(comm):
    model = _Linear()
    opt = chainermn.create_multi_node_optimizer(optimizers.SGD(lr=1.0), comm)
    assert opt.setup(model) is opt
    opt.update(model, _c(0))
    assert opt.t == 0
    testing.assert_array_equal(model.w.array, numpy.zeros(3))
    opt.update(model, _c(1))
    assert opt.t == 1
    testing.assert_array_equal(model.w.array, -_c(1))
    opt.update(model, _c(2))
    testing.assert_array_equal(model.w.array, -_c(1) - _c(2))


def test_update_with_computed_gradients(comm):
    model = _Linear()
    opt = chainermn.create_multi_node_optimizer(optimizers.SGD(lr=0.5), comm)
    opt.setup(model)
    opt.update()  # broadcast
    model.w.grad = numpy.ones(3, numpy.float32)
    opt.update()
    testing.assert_array_equal(model.w.array, numpy.full(3, -0.5))


def test_attributes_pass_through(comm, tmp_path):
    actual = optimizers.MomentumSGD(lr=0.1)
    opt = chainermn.create_multi_node_optimizer(actual, comm)
    model = _Linear()
    opt.setup(model)
    assert opt.target is model
    assert opt.lr == 0.1
    assert opt.actual_optimizer is actual
    opt.lr = 0.25
    assert actual.lr == 0.25
    calls = []
    opt.add_hook(lambda o: calls.append(o.t), name="count")
    opt.update(model, _c(0))
    opt.update(model, _c(0))
    assert calls == [0]
    serializers.save_npz(tmp_path / "opt.npz", opt)
    other = optimizers.MomentumSGD(lr=0.1)
    other.setup(_Linear())
    serializers.load_npz(tmp_path / "opt.npz", other)
    assert other.t == 1


def test_lazily_initialized_parameters_are_broadcast_again(comm):
    model = _Linear()
    with model.init_scope():
        model.v = chainer.Parameter()
    opt = chainermn.create_multi_node_optimizer(optimizers.SGD(lr=1.0), comm)
    opt.setup(model)
    opt.update(model, _c(0))
    opt.update(model, _c(0))
    assert opt.t == 1
    model.v.initialize((2,))
    opt.update(model, _c(0))
    assert opt.t == 1, "the new parameter is broadcast, not updated"
    opt.update(model, _c(0))
    assert opt.t == 2


def test_mark_synchronized_skips_the_broadcast(comm):
    model = _Linear()
    opt = chainermn.create_multi_node_optimizer(optimizers.SGD(lr=1.0), comm)
    opt.setup(model)
    opt.mark_synchronized()
    opt.update(model, _c(0))
    assert opt.t == 1


def test_double_buffering_applies_the_previous_steps_gradients(comm):
    model = _Linear()
    opt = chainermn.create_multi_node_optimizer(
        optimizers.SGD(lr=1.0), comm, double_buffering=True
    )
    opt.setup(model)
    opt.update(model, _c(0))  # broadcast
    opt.update(model, _c(1))  # starts exchanging step 1's gradients
    assert opt.t == 0
    testing.assert_array_equal(model.w.array, numpy.zeros(3))
    opt.update(model, _c(2))  # applies step 1's
    testing.assert_array_equal(model.w.array, -_c(1))
    opt.update(model, _c(3))  # applies step 2's
    testing.assert_array_equal(model.w.array, -_c(1) - _c(2))
    opt.wait()
    assert opt.t == 2


def test_double_buffering_needs_a_background_capable_communicator():
    class Plain:
        pass

    with pytest.raises(ValueError, match="double_buffering"):
        chainermn.create_multi_node_optimizer(
            optimizers.SGD(), Plain(), double_buffering=True
        )
