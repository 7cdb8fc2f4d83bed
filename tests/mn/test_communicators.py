"""Communicators: create_communicator, every method, on 1, 2 and 3 processes."""

import sys

import numpy
import pytest
from numpy import testing

import chainer
import chainermn
from chainermn import communicators

pytestmark = pytest.mark.mpi

GPU_NAMES = (
    "pure_nccl",
    "hierarchical",
    "two_dimensional",
    "single_node",
    "non_cuda_aware",
)


@pytest.mark.parametrize("n", [2, 3])
def test_every_method_on_every_communicator(mpirun, n):
    # programs/comm_methods.py checks topology, send/recv, the array and
    # object collectives (chunked too), split, bcast_data (and its error on
    # every rank for models that differ), multi_node_mean_grad (zero_fill,
    # allreduce_grad_dtype, mixed dtypes), configuration errors and
    # scatter_dataset, for naive, flat and dummy.
    records = mpirun(n, "comm_methods.py").assert_all_passed(n)
    names = set(records[0]["passed"])
    for comm_name in ("naive", "flat", "dummy"):
        assert f"{comm_name}:mean_grad" in names
        assert f"{comm_name}:bcast_data_mismatch" in names
    assert "scatter_dataset" in names


@pytest.mark.parametrize("name", ["naive", "flat", "dummy"])
def test_create_cpu_communicators(name):
    comm = chainermn.create_communicator(name)
    assert isinstance(comm, communicators.CommunicatorBase)
    assert (comm.rank, comm.size) == (0, 1)
    assert (comm.intra_rank, comm.intra_size, comm.inter_rank, comm.inter_size) == (
        0,
        1,
        0,
        1,
    )
    assert comm.mpi_comm.Get_size() == 1


def test_default_communicator_is_pure_nccl(monkeypatch):
    monkeypatch.setitem(sys.modules, "chainer_cuda", None)
    with pytest.raises(ImportError, match="'pure_nccl'"):
        chainermn.create_communicator()


def test_unknown_name_lists_the_names():
    with pytest.raises(ValueError, match="unknown communicator 'nccl'") as info:
        chainermn.create_communicator("nccl")
    for name in ("naive", "flat", "dummy", *GPU_NAMES):
        assert repr(name) in str(info.value)


def test_create_options_become_configuration():
    comm = chainermn.create_communicator(
        "naive", allreduce_grad_dtype="float16", batched_copy=True
    )
    assert comm.get_config("allreduce_grad_dtype") == numpy.float16
    assert comm.get_config("batched_copy") is True
    assert comm.get_config()["timeout"] > 0


def test_timeout_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("CHAINERMN_TIMEOUT", "12.5")
    assert chainermn.create_communicator("flat").get_config("timeout") == 12.5
    monkeypatch.setenv("CHAINERMN_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="CHAINERMN_TIMEOUT"):
        chainermn.create_communicator("flat")


def test_set_config(comm):
    comm.set_config("timeout", 5)
    assert comm.get_config("timeout") == 5.0
    comm.set_config("timeout", 600)
    with pytest.raises(ValueError, match="unknown configuration 'speed'"):
        comm.set_config("speed", 1)
    with pytest.raises(ValueError, match="unknown configuration"):
        comm.get_config("speed")
    with pytest.raises(ValueError, match="positive"):
        comm.set_config("timeout", 0)
    with pytest.raises(ValueError, match="floating dtype"):
        comm.set_config("allreduce_grad_dtype", numpy.int64)
    with pytest.raises(ValueError, match="max_buf_len"):
        comm.set_config("max_buf_len", 0)
    with pytest.raises(TypeError, match="takes no options"):
        comm.set_config("batched_copy", True, extra=1)


def test_methods_on_one_process(comm):
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    testing.assert_array_equal(comm.allreduce(x), x)
    testing.assert_array_equal(comm.bcast(x), x)
    (g,) = comm.gather(x)
    testing.assert_array_equal(g, x)
    (g,) = comm.allgather(x)
    testing.assert_array_equal(g, x)
    (g,) = comm.alltoall((x,))
    testing.assert_array_equal(g, x)
    testing.assert_array_equal(comm.scatter([x]), x)
    comm.send((x, x[0]), 0, 3)
    a, b = comm.recv(0, 3)
    testing.assert_array_equal(a, x)
    testing.assert_array_equal(b, x[0])
    comm.send_obj({"a": 1}, 0)
    assert comm.recv_obj(0) == {"a": 1}
    assert comm.bcast_obj([1, 2]) == [1, 2]
    assert comm.gather_obj(5) == [5]
    assert comm.allgather_obj(5) == [5]
    assert comm.scatter_obj(["only"]) == "only"
    assert comm.allreduce_obj(3) == 3


def test_arrays_must_be_numpy(comm):
    with pytest.raises(TypeError, match="NumPy arrays"):
        comm.allreduce([1, 2])
    with pytest.raises(TypeError, match="numeric"):
        comm.allreduce(numpy.array(["a"]))


class _Model(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.ones((2, 2), numpy.float32))
            self.v = chainer.Parameter(numpy.ones(3, numpy.float64))
            self.lazy = chainer.Parameter()


def test_mean_grad_and_zero_fill_on_one_process(comm):
    model = _Model()
    model.w.grad = numpy.full((2, 2), 3.0, numpy.float32)
    comm.multi_node_mean_grad(model)
    testing.assert_array_equal(model.w.grad, numpy.full((2, 2), 3.0))
    assert model.v.grad is None
    assert model.lazy.grad is None
    comm.multi_node_mean_grad(model, zero_fill=True)
    testing.assert_array_equal(model.v.grad, numpy.zeros(3))
    assert model.lazy.grad is None
    comm.bcast_data(model)
    with pytest.warns(DeprecationWarning, match="multi_node_mean_grad"):
        comm.allreduce_grad(model)


def test_gradients_on_another_device_are_refused(comm):
    # Any model-like object with namedparams() is accepted, as long as its
    # arrays are NumPy arrays; a device array (here a list) is named.
    class Slot:
        def __init__(self, array, grad):
            self.array = array
            self.grad = grad

    class OnDevice:
        def namedparams(self):
            yield "/w", Slot(numpy.ones(2), [1.0, 2.0])

    with pytest.raises(TypeError, match="gradient of parameter '/w'.*NumPy .CPU."):
        comm.multi_node_mean_grad(OnDevice())


def test_split_on_one_process(comm):
    sub = comm.split(0, 0)
    assert type(sub) is type(comm)
    assert (sub.rank, sub.size) == (0, 1)
    assert sub.allreduce_obj(2) == 2
    sub.finalize()


def test_double_buffering_operation_on_one_process(comm):
    model = _Model()
    model.w.grad = numpy.full((2, 2), 4.0, numpy.float32)
    pending = comm.multi_node_mean_grad_async(model, zero_fill=True)
    pending.wait()
    assert pending.done()
    testing.assert_array_equal(model.w.grad, numpy.full((2, 2), 4.0))
    testing.assert_array_equal(model.v.grad, numpy.zeros(3))


def test_float16_sums_through_float32_without_an_mpi_float16(comm, monkeypatch):
    # Open MPI 4 has no 16-bit float type: the channel sums in float32.
    from chainermn.communicators import _channel

    monkeypatch.setattr(_channel, "_has_float16", lambda MPI: False)
    summed = []
    allreduce_inplace = _channel.Channel.allreduce_inplace

    def spy(self, buf, op, mpi_op=None):
        summed.append(buf.dtype)
        return allreduce_inplace(self, buf, op, mpi_op)

    monkeypatch.setattr(_channel.Channel, "allreduce_inplace", spy)
    x = numpy.array([1.5, -2.0, 65504.0], numpy.float16)
    total = comm.allreduce(x)
    assert summed == [numpy.float16, numpy.float32]
    assert total.dtype == numpy.float16
    testing.assert_array_equal(total, x)
    model = chainer.Link()
    with model.init_scope():
        model.w = chainer.Parameter(numpy.ones(3, numpy.float16))
    model.w.grad = x.copy()
    comm.multi_node_mean_grad(model)
    testing.assert_array_equal(model.w.grad, x)
