"""The GPU communicators' methods on CuPy arrays (needs CuPy, NCCL and a GPU).

Each rank uses GPU ``intra_rank``. Checks bcast_data and multi_node_mean_grad
(float16/32/64 parameters of odd sizes, zero_fill, allreduce_grad_dtype),
every array method on CuPy arrays, multi-node batch normalization with the
communicator's best backend, split, and the errors for CPU models.

Usage: mpiexec -n N python gpu_comm.py COMMUNICATOR [--node-per-rank]
"""

import os
import sys

import mn_functions_common as common
import mn_util
import numpy
from numpy import testing

import chainer
import chainer.links as L
import chainermn


class Model(chainer.Chain):
    def __init__(self, seed):
        super().__init__()
        rng = numpy.random.RandomState(seed)
        with self.init_scope():
            self.a = chainer.Parameter(rng.randn(7).astype(numpy.float32))
            self.b = chainer.Parameter(rng.randn(3, 5).astype(numpy.float16))
            self.c = chainer.Parameter(rng.randn(13).astype(numpy.float64))
            self.d = chainer.Parameter(rng.randn(2, 2).astype(numpy.float32))


def grad_of(rank, name, shape, dtype):
    # A gradient that differs between ranks and elements.
    size = int(numpy.prod(shape))
    base = numpy.arange(size, dtype=numpy.float64).reshape(shape)
    return (base * 0.25 + rank + 0.5 * len(name)).astype(dtype)


def main():
    import cupy

    name = sys.argv[1]
    if "--node-per-rank" in sys.argv:
        from mpi4py import MPI

        os.environ["CHAINERMN_NODE_NAME"] = f"node{MPI.COMM_WORLD.Get_rank()}"
    comm = chainermn.create_communicator(name)
    device = chainer.get_device(f"@cupy:{comm.intra_rank}")
    device.use()
    rank, size = comm.rank, comm.size
    checks = mn_util.Checks(rank, size)
    checks.values["communicator"] = type(comm).__name__
    checks.values["topology"] = [
        comm.intra_rank,
        comm.intra_size,
        comm.inter_rank,
        comm.inter_size,
    ]
    host = chainer.backend.CpuDevice()

    def bcast_data():
        model = Model(seed=rank)
        model.to_device(device)
        comm.bcast_data(model)
        expect = Model(seed=0)
        for (n, p), (_, q) in zip(
            sorted(model.namedparams()), sorted(expect.namedparams()), strict=True
        ):
            assert isinstance(p.array, cupy.ndarray), n
            testing.assert_array_equal(host.send(p.array), q.array, err_msg=n)

    checks.run("bcast_data", bcast_data)

    def mean_grad(dtype=None, zero_fill=False):
        model = Model(seed=0)
        model.to_device(device)
        for n, p in model.namedparams():
            if zero_fill and n == "/c" and rank == 0:
                p.grad = None
                continue
            p.grad = device.send(grad_of(rank, n, p.shape, p.dtype))
        comm.set_config("allreduce_grad_dtype", dtype)
        try:
            comm.multi_node_mean_grad(model, zero_fill=zero_fill)
        finally:
            comm.set_config("allreduce_grad_dtype", None)
        for n, p in model.namedparams():
            ranks = range(1 if zero_fill and n == "/c" else 0, size)
            expect = sum(grad_of(r, n, p.shape, numpy.float64) for r in ranks) / size
            assert isinstance(p.grad, cupy.ndarray), n
            assert p.grad.dtype == p.dtype, (n, p.grad.dtype)
            loose = dtype == numpy.float16 or p.dtype == numpy.float16
            testing.assert_allclose(
                host.send(p.grad).astype(numpy.float64),
                expect,
                rtol=1e-2 if loose else 1e-6,
                atol=1e-2 if loose else 1e-6,
                err_msg=n,
            )

    checks.run("mean_grad", mean_grad)
    checks.run("mean_grad:zero_fill", mean_grad, None, True)
    checks.run("mean_grad:float16 transfer", mean_grad, numpy.float16)

    def array_methods():
        x = cupy.arange(6, dtype=cupy.float32).reshape(2, 3) + rank
        total = comm.allreduce(x)
        assert isinstance(total, cupy.ndarray)
        expect = sum(numpy.arange(6).reshape(2, 3) + r for r in range(size))
        testing.assert_allclose(host.send(total), expect)
        got = comm.bcast(x if rank == 0 else None, root=0)
        assert isinstance(got, cupy.ndarray)
        testing.assert_array_equal(host.send(got), numpy.arange(6).reshape(2, 3))
        parts = comm.allgather(x)
        assert all(isinstance(p, cupy.ndarray) for p in parts)
        for r, p in enumerate(parts):
            testing.assert_array_equal(host.send(p), numpy.arange(6).reshape(2, 3) + r)
        gathered = comm.gather(x, root=0)
        if rank == 0:
            assert len(gathered) == size
            assert isinstance(gathered[0], cupy.ndarray)
        mine = comm.scatter(
            [cupy.full(2, r, cupy.int32) for r in range(size)] if rank == 0 else None
        )
        assert isinstance(mine, cupy.ndarray)
        testing.assert_array_equal(host.send(mine), [rank, rank])
        swapped = comm.alltoall([cupy.full(1, rank * 10 + r) for r in range(size)])
        testing.assert_array_equal(
            [int(s[0]) for s in swapped], [r * 10 + rank for r in range(size)]
        )
        if size > 1:
            if rank == 0:
                comm.send((x, cupy.ones(2, cupy.float16)), dest=1, tag=3)
            elif rank == 1:
                a, b = comm.recv(source=0, tag=3)
                assert isinstance(a, cupy.ndarray)
                assert b.dtype == numpy.float16
                testing.assert_array_equal(host.send(a), numpy.arange(6).reshape(2, 3))

    checks.run("array methods", array_methods)

    def batch_normalization():
        rng = numpy.random.RandomState(1)
        full = rng.randn(4 * size, 3).astype(numpy.float32)
        mnbn = chainermn.links.MultiNodeBatchNormalization(3, comm)
        bn = L.BatchNormalization(3)
        mnbn.to_device(device)
        mine = device.send(full[4 * rank : 4 * rank + 4])
        with chainer.using_config("train", True):
            y = mnbn(mine)
            expect = bn(full).array[4 * rank : 4 * rank + 4]
        testing.assert_allclose(host.send(y.array), expect, rtol=1e-4, atol=1e-4)
        testing.assert_allclose(
            host.send(mnbn.avg_mean), bn.avg_mean, rtol=1e-4, atol=1e-5
        )
        checks.values["mnbn backend"] = mnbn._communication_backend

    checks.run("multi-node batch normalization", batch_normalization)

    def cpu_model_is_refused():
        common.expect_error(TypeError, "to_device", comm.bcast_data, Model(seed=0))

    checks.run("cpu model refused", cpu_model_is_refused)

    def split():
        sub = comm.split(rank % 2, rank)
        assert type(sub) is type(comm)
        assert sub.size == len(range(rank % 2, size, 2))
        model = Model(seed=rank)
        model.to_device(device)
        sub.bcast_data(model)
        sub.finalize()

    checks.run("split", split)
    comm.finalize()
    checks.emit()


if __name__ == "__main__":
    main()
