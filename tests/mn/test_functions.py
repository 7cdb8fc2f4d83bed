"""chainermn.functions: differentiable point-to-point and collective communication.

The programs programs/mn_functions_*.py run on 2 and 3 processes: every rank
compares its values and gradients with one process computing the same math,
and checks its gradients numerically (check_backward on one rank at a time,
the others taking part in every evaluation). The in-process tests use a
one-process communicator.
"""

import numpy
import pytest
from numpy import testing

import chainer
import chainer.functions as F
import chainermn
from chainermn import functions

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("n", [2, 3])
def test_send_recv_pseudo_connect_on_several_processes(mpirun, n):
    records = mpirun(n, "mn_functions_point_to_point.py").assert_all_passed(n)
    for record in records.values():
        passed = set(record["passed"])
        for name in (
            "ring float16",
            "ring float32",
            "ring float64",
            "ring from the delegate",
            "ring numerically",
            "many messages in one graph",
            "fan out fan in",
        ):
            assert name in passed


@pytest.mark.parametrize("n", [2, 3])
def test_collectives_on_several_processes(mpirun, n):
    records = mpirun(n, "mn_functions_collective.py").assert_all_passed(n)
    passed = set(records[0]["passed"])
    for name in ("allgather", "alltoall"):
        assert f"{name} float16" in passed
        assert f"{name} numerically" in passed
    for name in ("bcast", "gather", "scatter"):
        for root in (0, n - 1):
            assert f"{name} root {root} float64" in passed
            assert f"{name} numerically {root}" in passed


def test_public_names():
    assert sorted(functions.__all__) == [
        "allgather",
        "alltoall",
        "bcast",
        "gather",
        "pseudo_connect",
        "recv",
        "scatter",
        "send",
    ]
    for name in functions.__all__:
        assert "Args:" in getattr(functions, name).__doc__


# ------------------------------------------------------------ one process


def test_collectives_with_one_process(comm):
    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    for run in (
        lambda: functions.bcast(comm, x),
        lambda: functions.allgather(comm, x)[0],
        lambda: functions.gather(comm, x)[0],
        lambda: functions.alltoall(comm, [x])[0],
        lambda: functions.scatter(comm, [x]),
    ):
        x.cleargrad()
        y = run()
        testing.assert_array_equal(y.array, x.array)
        F.sum(y * y).backward()
        testing.assert_array_equal(x.grad, 2 * x.array)


def test_zero_dim_and_half_precision_with_one_process(comm):
    x = chainer.Variable(numpy.array(1.5, numpy.float16))
    (y,) = functions.allgather(comm, x)
    assert y.shape == ()
    assert y.dtype == numpy.float16
    (y * 3).backward()
    assert x.grad.dtype == numpy.float16
    assert x.grad == 3


def test_collective_inputs_without_gradients_still_run_backward(comm):
    # A plain array input: the node is still in the graph (its anchor input).
    y = functions.bcast(comm, numpy.ones(2, numpy.float32))
    assert y.requires_grad
    F.sum(y).backward()


def test_pseudo_connect(comm):
    delegate = chainer.Variable(numpy.empty((0,), numpy.float32))
    x = chainer.Variable(numpy.arange(3, dtype=numpy.float64))
    y = functions.pseudo_connect(delegate, x)
    testing.assert_array_equal(y.array, x.array)
    F.sum(y * 2).backward()
    testing.assert_array_equal(x.grad, numpy.full(3, 2.0))
    assert delegate.grad.shape == (0,)
    ys = functions.pseudo_connect(None, x, x)
    assert isinstance(ys, tuple)
    assert len(ys) == 2
    with pytest.raises(ValueError, match="at least one actual variable"):
        functions.pseudo_connect(delegate)


def test_errors_name_the_problem(comm):
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(ValueError, match="own rank"):
        functions.send(x, comm, rank=0)
    with pytest.raises(ValueError, match="own rank"):
        functions.recv(comm, rank=0)
    with pytest.raises(ValueError, match="rank 1 is out of range"):
        functions.send(x, comm, rank=1)
    with pytest.raises(ValueError, match="ranks 0 to 0"):
        functions.recv(comm, rank=3)
    with pytest.raises(TypeError, match="int rank"):
        functions.recv(comm, rank="1")
    with pytest.raises(ValueError, match="root 2 is out of range"):
        functions.bcast(comm, x, root=2)
    with pytest.raises(ValueError, match="one variable per process"):
        functions.alltoall(comm, [x, x])
    with pytest.raises(ValueError, match="one variable per process"):
        functions.scatter(comm, [x, x])
    with pytest.raises(TypeError, match="None on the root"):
        functions.scatter(comm, None)
    with pytest.raises(TypeError, match="x is None"):
        functions.allgather(comm, None)


def test_exported_from_the_package():
    assert chainermn.functions.send is functions.send
    assert chainermn.MultiNodeChainList is chainermn.links.MultiNodeChainList
