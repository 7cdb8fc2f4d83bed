"""chainermn.functions.bcast, gather, allgather, alltoall, scatter on N processes.

Every rank builds the inputs and loss weights of all ranks (seeded). Each
function runs on its rank's part; a weighted sum of its outputs is the rank's
local loss. The values and gradients are compared with one process computing
the same math with ordinary Chainer functions on all ranks' data, and the
gradients are checked numerically rank by rank.

Usage: mpiexec -n N python mn_functions_collective.py   (N >= 2)
"""

import mn_functions_common as common
import mn_util
import numpy

import chainer
import chainer.functions as F
import chainermn
from chainermn import functions

DTYPES = (numpy.float16, numpy.float32, numpy.float64)


def shape_of(rank):
    # Shapes differ between ranks where the functions allow it.
    return (rank + 1, 2)


def make(rng, shape, dtype):
    return rng.uniform(-1, 1, shape).astype(dtype)


def weighted(y, w):
    return F.sum(y * w)


def total(terms, dtype):
    loss = None
    for t in terms:
        loss = t if loss is None else loss + t
    return common.zero_loss(dtype) if loss is None else loss


# ------------------------------------------------------------------- bcast


def bcast_data(size, root, dtype):
    rng = numpy.random.RandomState(10 + root)
    x = make(rng, (3, 2), dtype)
    ws = [make(rng, (3, 2), dtype) for _ in range(size)]
    return x, ws


def bcast_local(comm, root, x, ws):
    y = functions.bcast(comm, x if comm.rank == root else None, root=root)
    return y, weighted(y, ws[comm.rank])


def bcast_reference(x, ws):
    v = chainer.Variable(x)
    total([weighted(v, w) for w in ws], x.dtype).backward()
    return v


def check_bcast(comm, root, dtype):
    x, ws = bcast_data(comm.size, root, dtype)
    v = chainer.Variable(x)
    y, loss = bcast_local(comm, root, v, ws)
    common.assert_close(y, x, dtype, "broadcast value")
    loss.backward()
    if comm.rank == root:
        common.assert_close(v.grad, bcast_reference(x, ws).grad, dtype, "grad")
    else:
        assert v.grad is None


def check_bcast_numerically(comm, root):
    x, ws = bcast_data(comm.size, root, numpy.float64)
    common.check_backward_per_rank(
        comm, lambda v: bcast_local(comm, root, v, ws)[1], (x,), atol=1e-6, rtol=1e-5
    )


# ------------------------------------------------------------------ gather


def gather_data(size, dtype):
    rng = numpy.random.RandomState(20)
    xs = [make(rng, shape_of(r), dtype) for r in range(size)]
    ws = [make(rng, shape_of(r), dtype) for r in range(size)]
    return xs, ws


def gather_local(comm, root, x, ws):
    ys = functions.gather(comm, x, root=root)
    if comm.rank == root:
        # Only some outputs get gradients: the others count as zeros.
        used = [weighted(y, ws[q]) for q, y in enumerate(ys) if q != 1]
        return ys, total(used, x.dtype)
    return ys, functions.pseudo_connect(ys, common.zero_loss(x.dtype))


def check_gather(comm, root, dtype):
    xs, ws = gather_data(comm.size, dtype)
    v = chainer.Variable(xs[comm.rank])
    ys, loss = gather_local(comm, root, v, ws)
    if comm.rank == root:
        assert isinstance(ys, tuple)
        assert len(ys) == comm.size
        for q, y in enumerate(ys):
            common.assert_close(y, xs[q], dtype, f"gathered {q}")
    else:
        assert ys.shape == (0,)
    loss.backward()
    expected = numpy.zeros_like(ws[comm.rank]) if comm.rank == 1 else ws[comm.rank]
    common.assert_close(v.grad, expected, dtype, "grad")


def check_gather_from_delegate(comm):
    # The non-roots start the backward pass from the delegate variable.
    xs, ws = gather_data(comm.size, numpy.float32)
    v = chainer.Variable(xs[comm.rank])
    ys = functions.gather(comm, v, root=0)
    if comm.rank == 0:
        total([weighted(y, w) for y, w in zip(ys, ws, strict=True)], "f").backward()
    else:
        ys.backward()
    common.assert_close(v.grad, ws[comm.rank], numpy.float32, "grad")


def check_gather_numerically(comm, root):
    xs, ws = gather_data(comm.size, numpy.float64)
    common.check_backward_per_rank(
        comm,
        lambda v: gather_local(comm, root, v, ws)[1],
        (xs[comm.rank],),
        atol=1e-6,
        rtol=1e-5,
    )


# --------------------------------------------------------------- allgather


def allgather_data(size, dtype):
    rng = numpy.random.RandomState(30)
    xs = [make(rng, shape_of(r), dtype) for r in range(size)]
    # ws[r][q]: rank r's weight of its copy of rank q's variable.
    ws = [[make(rng, shape_of(q), dtype) for q in range(size)] for _ in range(size)]
    return xs, ws


def allgather_local(comm, x, ws):
    ys = functions.allgather(comm, x)
    w = ws[comm.rank]
    # Rank r leaves out its copy of rank (r + 1) % N: a None gradient.
    skip = (comm.rank + 1) % comm.size
    used = [weighted(y, w[q]) for q, y in enumerate(ys) if q != skip]
    return ys, total(used, x.dtype)


def allgather_reference(comm, xs, ws):
    vs = [chainer.Variable(x) for x in xs]
    terms = []
    for r in range(comm.size):
        skip = (r + 1) % comm.size
        terms += [weighted(vs[q], ws[r][q]) for q in range(comm.size) if q != skip]
    total(terms, xs[0].dtype).backward()
    return vs


def check_allgather(comm, dtype):
    xs, ws = allgather_data(comm.size, dtype)
    v = chainer.Variable(xs[comm.rank])
    ys, loss = allgather_local(comm, v, ws)
    assert isinstance(ys, tuple)
    assert len(ys) == comm.size
    for q, y in enumerate(ys):
        common.assert_close(y, xs[q], dtype, f"gathered {q}")
    loss.backward()
    expected = allgather_reference(comm, xs, ws)[comm.rank].grad
    common.assert_close(v.grad, expected, dtype, "grad (reduce-scatter)")


def check_allgather_numerically(comm):
    xs, ws = allgather_data(comm.size, numpy.float64)
    common.check_backward_per_rank(
        comm,
        lambda v: allgather_local(comm, v, ws)[1],
        (xs[comm.rank],),
        atol=1e-6,
        rtol=1e-5,
    )


# ---------------------------------------------------------------- alltoall


def alltoall_data(size, dtype):
    rng = numpy.random.RandomState(40)
    # xs[r][q]: what rank r sends to rank q, of shape (r + 1, q + 2).
    xs = [[make(rng, (r + 1, q + 2), dtype) for q in range(size)] for r in range(size)]
    # ws[q][r]: rank q's weight of what it received from rank r.
    ws = [[make(rng, (r + 1, q + 2), dtype) for r in range(size)] for q in range(size)]
    return xs, ws


def alltoall_local(comm, xs, ws):
    ys = functions.alltoall(comm, xs)
    w = ws[comm.rank]
    used = [weighted(y, w[r]) for r, y in enumerate(ys) if r != comm.rank]
    return ys, total(used, ys[0].dtype)


def check_alltoall(comm, dtype):
    xs, ws = alltoall_data(comm.size, dtype)
    vs = [chainer.Variable(x) for x in xs[comm.rank]]
    ys, loss = alltoall_local(comm, vs, ws)
    for r, y in enumerate(ys):
        common.assert_close(y, xs[r][comm.rank], dtype, f"received from {r}")
    loss.backward()
    for q, v in enumerate(vs):
        # What went to rank q gets rank q's weight (zero: q kept its own).
        expected = ws[q][comm.rank] if q != comm.rank else numpy.zeros_like(v.array)
        common.assert_close(v.grad, expected, dtype, f"grad of xs[{q}]")


def check_alltoall_numerically(comm):
    xs, ws = alltoall_data(comm.size, numpy.float64)
    common.check_backward_per_rank(
        comm,
        lambda *vs: alltoall_local(comm, vs, ws)[1],
        tuple(xs[comm.rank]),
        atol=1e-6,
        rtol=1e-5,
    )


# ----------------------------------------------------------------- scatter


def scatter_data(size, dtype):
    rng = numpy.random.RandomState(50)
    xs = [make(rng, shape_of(r), dtype) for r in range(size)]
    ws = [make(rng, shape_of(r), dtype) for r in range(size)]
    return xs, ws


def scatter_local(comm, root, xs, ws):
    y = functions.scatter(comm, xs if comm.rank == root else None, root=root)
    return y, weighted(y, ws[comm.rank])


def check_scatter(comm, root, dtype):
    xs, ws = scatter_data(comm.size, dtype)
    vs = [chainer.Variable(x) for x in xs]
    y, loss = scatter_local(comm, root, vs, ws)
    common.assert_close(y, xs[comm.rank], dtype, "scattered value")
    loss.backward()
    if comm.rank == root:
        for q, v in enumerate(vs):
            common.assert_close(v.grad, ws[q], dtype, f"grad of xs[{q}]")
    else:
        assert all(v.grad is None for v in vs)


def check_scatter_numerically(comm, root):
    xs, ws = scatter_data(comm.size, numpy.float64)
    if comm.rank == root:
        x_data = tuple(xs)

        def fn(*vs):
            return scatter_local(comm, root, vs, ws)[1]
    else:
        # A non-root gives nothing to scatter; a dummy input keeps the
        # check's machinery the same on every rank.
        x_data = (numpy.zeros(1),)

        def fn(dummy):
            return scatter_local(comm, root, None, ws)[1] + F.sum(dummy) * 0

    common.check_backward_per_rank(comm, fn, x_data, atol=1e-6, rtol=1e-5)


# ---------------------------------------------------------- constants/errors


def check_constant_inputs(comm):
    # Plain arrays (no Variable) still take part in the backward pass: the
    # other ranks' gradients flow without waiting for this one forever.
    xs, ws = allgather_data(comm.size, numpy.float32)
    x = xs[comm.rank] if comm.rank == 0 else chainer.Variable(xs[comm.rank])
    _, loss = allgather_local(comm, x, ws)
    loss.backward()
    if comm.rank != 0:
        expected = allgather_reference(comm, xs, ws)[comm.rank].grad
        common.assert_close(x.grad, expected, numpy.float32, "grad")
    y = functions.bcast(comm, numpy.ones(3, numpy.float32), root=0)
    F.sum(y * 2).backward()


def check_errors(comm):
    x = numpy.ones(2, numpy.float32)
    size = comm.size
    common.expect_error(ValueError, "out of range", functions.bcast, comm, x, root=size)
    common.expect_error(ValueError, "out of range", functions.gather, comm, x, root=-1)
    common.expect_error(
        ValueError, "out of range", functions.scatter, comm, [x], root=size
    )
    common.expect_error(
        ValueError, "one variable per process", functions.alltoall, comm, [x]
    )
    if comm.rank == 0:
        common.expect_error(
            ValueError, "one variable per process", functions.scatter, comm, [x] * 5
        )
        common.expect_error(TypeError, "None on the root", functions.bcast, comm, None)


def main():
    comm = chainermn.create_communicator("flat")
    checks = mn_util.Checks(comm.rank, comm.size)
    roots = (0, comm.size - 1)
    for dtype in DTYPES:
        name = numpy.dtype(dtype).name
        for root in roots:
            checks.run(f"bcast root {root} {name}", check_bcast, comm, root, dtype)
            checks.run(f"gather root {root} {name}", check_gather, comm, root, dtype)
            checks.run(f"scatter root {root} {name}", check_scatter, comm, root, dtype)
        checks.run(f"allgather {name}", check_allgather, comm, dtype)
        checks.run(f"alltoall {name}", check_alltoall, comm, dtype)
    checks.run("gather from the delegate", check_gather_from_delegate, comm)
    for root in roots:
        checks.run(f"bcast numerically {root}", check_bcast_numerically, comm, root)
        checks.run(f"gather numerically {root}", check_gather_numerically, comm, root)
        checks.run(f"scatter numerically {root}", check_scatter_numerically, comm, root)
    checks.run("allgather numerically", check_allgather_numerically, comm)
    checks.run("alltoall numerically", check_alltoall_numerically, comm)
    checks.run("constant inputs", check_constant_inputs, comm)
    checks.run("errors", check_errors, comm)
    checks.emit()


if __name__ == "__main__":
    main()
