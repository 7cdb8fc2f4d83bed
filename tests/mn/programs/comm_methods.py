"""Every communicator method, on every communicator, on all ranks.

Usage: mpiexec -n N python comm_methods.py
"""

import warnings

import mn_util
import numpy
from mpi4py import MPI
from numpy import testing

import chainer
import chainermn
from chainer import datasets


class Model(chainer.Chain):
    def __init__(self, seed):
        super().__init__()
        rng = numpy.random.RandomState(seed)
        with self.init_scope():
            self.a = chainer.Parameter(rng.randn(3, 4).astype(numpy.float32))
            self.b = chainer.Parameter(rng.randn(5).astype(numpy.float64))
            self.c = chainer.Parameter(rng.randn(2, 2).astype(numpy.float16))
            self.unused = chainer.Parameter(rng.randn(2).astype(numpy.float32))
            self.lazy = chainer.Parameter()  # never initialized


def topology(comm):
    assert comm.intra_size == comm.size, (comm.intra_size, comm.size)
    assert comm.intra_rank == comm.rank
    assert comm.inter_size == 1
    assert comm.inter_rank == 0
    assert comm.mpi_comm.Get_size() == comm.size


def point_to_point(comm):
    rank, size = comm.rank, comm.size
    dest, source = (rank + 1) % size, (rank - 1) % size
    mine = (
        numpy.arange(rank + 3, dtype=numpy.float32).reshape(1, -1),
        numpy.full((2, 2), rank, numpy.int64),
    )

    def send():
        comm.send(mine, dest, 7)
        comm.send(mine[0], dest, 8)
        comm.send_obj({"from": rank}, dest, tag=9)

    def recv():
        got = comm.recv(source, 7)
        assert isinstance(got, tuple)
        assert len(got) == 2
        testing.assert_array_equal(
            got[0], numpy.arange(source + 3, dtype=numpy.float32).reshape(1, -1)
        )
        assert got[1].dtype == numpy.int64
        testing.assert_array_equal(got[1], numpy.full((2, 2), source))
        single = comm.recv(source, 8)
        assert isinstance(single, numpy.ndarray)
        assert single.shape == (1, source + 3)
        status = MPI.Status()
        obj = comm.recv_obj(source, status=status)
        assert obj == {"from": source}, obj
        assert status.Get_tag() == 9
        assert status.Get_source() == source

    if rank % 2 == 0:
        send()
        recv()
    else:
        recv()
        send()


def wildcard_receive(comm):
    # recv from ANY_SOURCE takes the arrays from the sender of the header.
    rank, size = comm.rank, comm.size
    if rank != 0:
        comm.send((numpy.full(3, rank), numpy.full((rank, 2), rank * 1.5)), 0, 11)
        return
    senders = []
    for _ in range(size - 1):
        first, second = comm.recv(MPI.ANY_SOURCE, 11)
        sender = int(first[0])
        testing.assert_array_equal(first, numpy.full(3, sender))
        testing.assert_array_equal(second, numpy.full((sender, 2), sender * 1.5))
        senders.append(sender)
    assert sorted(senders) == list(range(1, size))


def chunked_point_to_point(comm):
    # Messages above max_buf_len go in pieces.
    old = comm.get_config("max_buf_len")
    comm.set_config("max_buf_len", 1000)
    try:
        rank, size = comm.rank, comm.size
        dest, source = (rank + 1) % size, (rank - 1) % size
        big = numpy.arange(5000, dtype=numpy.float64) + rank
        obj = {"blob": bytes(range(256)) * 40, "rank": rank}
        if rank % 2 == 0:
            comm.send(big, dest, 1)
            comm.send_obj(obj, dest, tag=2)
            got, got_obj = comm.recv(source, 1), comm.recv_obj(source, tag=2)
        else:
            got, got_obj = comm.recv(source, 1), comm.recv_obj(source, tag=2)
            comm.send(big, dest, 1)
            comm.send_obj(obj, dest, tag=2)
        testing.assert_array_equal(
            got, numpy.arange(5000, dtype=numpy.float64) + source
        )
        assert got_obj["rank"] == source
        assert len(got_obj["blob"]) == 10240
    finally:
        comm.set_config("max_buf_len", old)


def array_collectives(comm):
    rank, size = comm.rank, comm.size
    root = size - 1
    x = numpy.arange(12, dtype=numpy.float32).reshape(3, 4) if rank == root else None
    got = comm.bcast(x, max_buf_len=16, root=root)
    testing.assert_array_equal(got, numpy.arange(12, dtype=numpy.float32).reshape(3, 4))

    def mine(r):
        return numpy.full((r + 1, 2), r, numpy.int32 if r % 2 else numpy.float64)

    gathered = comm.gather(mine(rank), root=1 % size)
    if rank == 1 % size:
        assert len(gathered) == size
        for r, g in enumerate(gathered):
            assert g.dtype == mine(r).dtype
            testing.assert_array_equal(g, mine(r))
    else:
        assert gathered is None
    everything = comm.allgather(mine(rank))
    for r, g in enumerate(everything):
        testing.assert_array_equal(g, mine(r))

    xs = tuple(
        numpy.full((rank + 1, j + 1), rank * 100 + j, numpy.int64) for j in range(size)
    )
    got = comm.alltoall(xs)
    assert len(got) == size
    for src, g in enumerate(got):
        testing.assert_array_equal(g, numpy.full((src + 1, rank + 1), src * 100 + rank))

    parts = [numpy.arange(r + 2, dtype=numpy.float32) * r for r in range(size)]
    got = comm.scatter(parts if rank == 0 else None, root=0)
    testing.assert_array_equal(got, parts[rank])

    total = comm.allreduce(numpy.array([[rank, 1]], numpy.int64))
    testing.assert_array_equal(total, [[size * (size - 1) // 2, size]])
    total = comm.allreduce(numpy.full(7, 0.5 * rank))
    testing.assert_allclose(total, numpy.full(7, 0.5 * size * (size - 1) / 2))


def chunked_collectives(comm):
    # v-collectives in several rounds, and chunked broadcasts.
    old = comm.get_config("max_buf_len")
    comm.set_config("max_buf_len", 64)
    try:
        rank, size = comm.rank, comm.size
        blob = [rank] * (50 * (rank + 1))
        got = comm.gather_obj(blob, root=0)
        if rank == 0:
            assert got == [[r] * (50 * (r + 1)) for r in range(size)]
        got = comm.allgather(numpy.arange(40 * (rank + 1), dtype=numpy.float64))
        for r, g in enumerate(got):
            testing.assert_array_equal(g, numpy.arange(40 * (r + 1)))
        objs = [list(range(30 * (r + 1))) for r in range(size)]
        assert comm.scatter_obj(objs if rank == 0 else None) == objs[rank]
        xs = tuple(numpy.full(33 * (j + 1), rank, numpy.int16) for j in range(size))
        for src, g in enumerate(comm.alltoall(xs)):
            testing.assert_array_equal(g, numpy.full(33 * (rank + 1), src))
        total = comm.allreduce(numpy.ones(100, numpy.float64))
        testing.assert_array_equal(total, numpy.full(100, size))
        big = {"text": "x" * 1000} if rank == 0 else None
        assert comm.bcast_obj(big, max_buf_len=10) == {"text": "x" * 1000}
    finally:
        comm.set_config("max_buf_len", old)


def object_collectives(comm):
    rank, size = comm.rank, comm.size
    assert comm.bcast_obj({"k": rank} if rank == 1 % size else None, root=1 % size) == {
        "k": 1 % size
    }
    got = comm.gather_obj(("r", rank))
    assert got == ([("r", r) for r in range(size)] if rank == 0 else None)
    assert comm.allgather_obj(rank * 2) == [r * 2 for r in range(size)]
    assert comm.scatter_obj(
        [f"part{r}" for r in range(size)] if rank == 0 else None
    ) == (f"part{rank}")
    assert comm.allreduce_obj(rank + 1) == size * (size + 1) // 2
    assert comm.allreduce_obj([rank]) == list(range(size))
    testing.assert_array_equal(
        comm.allreduce_obj(numpy.array([rank, 1.0])), [size * (size - 1) / 2, size]
    )


def split(comm):
    rank, size = comm.rank, comm.size
    sub = comm.split(rank % 2, -rank)
    members = [r for r in range(size) if r % 2 == rank % 2]
    assert sub.size == len(members)
    assert type(sub) is type(comm)
    # key = -rank reverses the order.
    assert sub.rank == sorted(members, reverse=True).index(rank), (sub.rank, rank)
    assert sub.get_config() == comm.get_config()
    assert sub.allreduce_obj(rank) == sum(members)
    sub.finalize()


def bcast_data(comm):
    model = Model(seed=comm.rank)
    comm.bcast_data(model)
    reference = Model(seed=0)
    for (name, p), (_, q) in zip(
        sorted(model.namedparams()), sorted(reference.namedparams()), strict=True
    ):
        if q.array is None:
            assert p.array is None, name
        else:
            assert p.array.dtype == q.array.dtype
            testing.assert_array_equal(p.array, q.array, err_msg=name)


def bcast_data_mismatch(comm):
    # The last process's model differs; bcast_data raises the same error on
    # every process, before any data moves.
    rank, size = comm.rank, comm.size
    expected = {
        "shape": "parameter '/a' has shape (3, 4) and dtype float32 on rank 0 "
        f"but shape (3, 3) and dtype float32 on rank {size - 1}",
        "dtype": "parameter '/b' has shape (5,) and dtype float64 on rank 0 "
        f"but shape (5,) and dtype float32 on rank {size - 1}",
        "count": f"rank {size - 1} has initialized parameters ['/lazy'] that "
        "rank 0 has not",
    }
    for case, detail in expected.items():
        model = Model(seed=rank)
        if rank == size - 1:
            if case == "shape":
                model.a.array = model.a.array[:, :3].copy()  # 9 elements, not 12
            elif case == "dtype":
                model.b.array = model.b.array.astype(numpy.float32)
            else:
                model.lazy.initialize((2,))
        before = {
            name: p.array.copy()
            for name, p in model.namedparams()
            if p.array is not None
        }
        try:
            comm.bcast_data(model)
        except ValueError as e:
            message = str(e)
        else:
            raise AssertionError(f"{case}: bcast_data did not raise on rank {rank}")
        assert message.startswith("bcast_data: the models differ"), message
        assert detail in message, (case, message)
        assert len(set(comm.allgather_obj(message))) == 1
        for name, array in before.items():
            testing.assert_array_equal(
                model[name.lstrip("/")].array, array, err_msg=name
            )
    # Every process is still in step: a matching broadcast works.
    bcast_data(comm)


def mean_grad(comm):
    rank, size = comm.rank, comm.size
    dummy = type(comm).__name__ == "DummyCommunicator"
    model = Model(seed=0)
    for i, (_, p) in enumerate(sorted(model.namedparams())):
        if p.array is not None:
            p.grad = numpy.full(p.array.shape, rank * 10 + i, p.array.dtype)
    model.unused.grad = None
    comm.multi_node_mean_grad(model)
    for i, (name, p) in enumerate(sorted(model.namedparams())):
        if name in ("/lazy",):
            assert p.grad is None
        elif name == "/unused":
            assert p.grad is None, "zero_fill=False leaves a None gradient alone"
        else:
            mean = (
                rank * 10 + i
                if dummy
                else numpy.mean([r * 10 + i for r in range(size)])
            )
            assert p.grad.dtype == p.array.dtype
            testing.assert_allclose(p.grad, numpy.full(p.array.shape, mean), rtol=1e-3)

    # zero_fill: an unused parameter on some ranks takes part as zeros.
    model.cleargrads()
    model.a.grad = numpy.ones((3, 4), numpy.float32)
    model.b.grad = numpy.ones(5)
    model.c.grad = numpy.ones((2, 2), numpy.float16)
    if rank == 0:
        model.unused.grad = numpy.full(2, float(size), numpy.float32)
    comm.multi_node_mean_grad(model, zero_fill=True)
    expect = float(size) if dummy and rank == 0 else (0.0 if dummy else 1.0)
    testing.assert_allclose(model.unused.grad, numpy.full(2, expect))
    assert model.lazy.grad is None

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comm.allreduce_grad(model)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


def grad_dtype(comm):
    rank, size = comm.rank, comm.size
    if type(comm).__name__ == "DummyCommunicator":
        return
    comm.set_config("allreduce_grad_dtype", numpy.float16)
    try:
        model = Model(seed=0)
        model.a.grad = numpy.full((3, 4), 0.25 * (rank + 1), numpy.float32)
        model.b.grad = numpy.full(5, rank + 1.0)
        model.c.grad = numpy.full((2, 2), 1, numpy.float16)
        comm.multi_node_mean_grad(model)
        mean = numpy.mean([r + 1.0 for r in range(size)])
        testing.assert_allclose(
            model.a.grad, numpy.full((3, 4), 0.25 * mean), rtol=1e-3
        )
        testing.assert_allclose(model.b.grad, numpy.full(5, mean), rtol=1e-3)
        assert model.a.grad.dtype == numpy.float32
        assert model.b.grad.dtype == numpy.float64
    finally:
        comm.set_config("allreduce_grad_dtype", None)


def config_errors(comm):
    for call, error in (
        (lambda: comm.set_config("no_such_thing", 1), ValueError),
        (lambda: comm.get_config("no_such_thing"), ValueError),
        (lambda: comm.set_config("timeout", -1), ValueError),
        (lambda: comm.set_config("allreduce_grad_dtype", numpy.int32), ValueError),
        (lambda: comm.send(object(), 0, 0), TypeError),
        (lambda: comm.allreduce(numpy.array([True])), TypeError),
        (lambda: comm.alltoall((numpy.ones(1),) * (comm.size + 1)), ValueError),
    ):
        try:
            call()
        except error:
            pass
        else:
            raise AssertionError(f"{call} did not raise {error.__name__}")
    assert comm.get_config("timeout") > 0


def datasets_scatter(comm):
    rank, size = comm.rank, comm.size
    data = list(range(10)) if rank == 0 else None
    part = chainermn.scatter_dataset(data, comm)
    assert isinstance(part, datasets.SubDataset)
    assert len(part) == -(-10 // size)
    lengths = comm.allgather_obj(len(part))
    assert len(set(lengths)) == 1
    covered = set()
    for items in comm.allgather_obj(list(part)):
        covered.update(items)
    assert covered == set(range(10))

    part = chainermn.scatter_dataset(data, comm, force_equal_length=False)
    parts = comm.allgather_obj(list(part))
    assert sorted(x for p in parts for x in p) == list(range(10)), parts
    assert max(map(len, parts)) - min(map(len, parts)) <= 1

    shuffled = chainermn.scatter_dataset(
        data, comm.mpi_comm, shuffle=True, seed=3, force_equal_length=False
    )
    parts = comm.allgather_obj(list(shuffled))
    flat = [x for p in parts for x in p]
    assert sorted(flat) == list(range(10))
    assert flat != list(range(10))
    assert flat == list(numpy.random.RandomState(3).permutation(10))

    ranges = comm.allgather_obj(
        chainermn.scatter_index(10 if rank == 0 else None, comm)
    )
    assert ranges[0][0] == 0
    assert ranges[-1][1] == 10
    assert all(e - b == -(-10 // size) for b, e in ranges), ranges
    ranges = comm.allgather_obj(
        chainermn.scatter_index(10, comm, force_equal_length=False)
    )
    assert [b for b, _ in ranges[1:]] == [e for _, e in ranges[:-1]]

    empty = chainermn.create_empty_dataset(part)
    assert len(empty) == len(part)
    assert empty[0] == ()


def main():
    checks = None
    for name in ("naive", "flat", "dummy"):
        comm = chainermn.create_communicator(name)
        if checks is None:
            checks = mn_util.Checks(comm.rank, comm.size)
        for check in (
            topology,
            point_to_point,
            wildcard_receive,
            chunked_point_to_point,
            array_collectives,
            chunked_collectives,
            object_collectives,
            split,
            bcast_data,
            bcast_data_mismatch,
            mean_grad,
            grad_dtype,
            config_errors,
        ):
            checks.run(f"{name}:{check.__name__}", check, comm)
        if name == "flat":
            checks.run("scatter_dataset", datasets_scatter, comm)
        comm.finalize()
    checks.emit()


if __name__ == "__main__":
    main()
