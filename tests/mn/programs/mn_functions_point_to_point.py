"""chainermn.functions.send, recv and pseudo_connect on several processes.

Every rank builds the same data for all ranks (seeded), runs its part, and
compares its values and gradients with one process computing the same math
with ordinary Chainer functions.

Usage: mpiexec -n N python mn_functions_point_to_point.py   (N >= 2)
"""

import mn_functions_common as common
import mn_util
import numpy

import chainer
import chainer.functions as F
import chainermn
from chainermn import functions

DTYPES = (numpy.float16, numpy.float32, numpy.float64)


def ring_data(size, dtype, shape=(3, 4)):
    rng = numpy.random.RandomState(1)
    xs = [rng.uniform(-1, 1, shape).astype(dtype) for _ in range(size)]
    ws = [rng.uniform(0.5, 1.5, shape).astype(dtype) for _ in range(size)]
    out_w = rng.uniform(-1, 1, shape).astype(dtype)
    return xs, ws, out_w


def ring_local_loss(comm, x, w, out_w):
    """The ring 0 -> 1 -> ... -> N-1 -> 0: each rank adds its x and applies tanh.

    Rank 0 sends tanh(x0 * w0) to rank 1 and receives the end of the ring
    with the send's delegate variable; its loss is sum(h * out_w). The
    other ranks receive, compute tanh(h * w + x), send on, and have a zero
    loss joined to the send's delegate variable.
    """
    rank, size = comm.rank, comm.size
    if rank == 0:
        phi = functions.send(F.tanh(x * w), comm, rank=1)
        h = functions.recv(comm, rank=size - 1, delegate_variable=phi)
        return F.sum(h * out_w)
    h = functions.recv(comm, rank=rank - 1)
    phi = functions.send(F.tanh(h * w + x), comm, rank=(rank + 1) % size)
    return functions.pseudo_connect(phi, common.zero_loss(x.dtype))


def ring_reference(xs, ws, out_w):
    xs = [chainer.Variable(x) for x in xs]
    ws = [chainer.Variable(w) for w in ws]
    h = F.tanh(xs[0] * ws[0])
    for x, w in zip(xs[1:], ws[1:], strict=True):
        h = F.tanh(h * w + x)
    loss = F.sum(h * out_w)
    loss.backward()
    return loss, xs, ws


def check_ring(comm, dtype):
    xs, ws, out_w = ring_data(comm.size, dtype)
    x = chainer.Variable(xs[comm.rank])
    w = chainer.Variable(ws[comm.rank])
    # On ranks other than 0 the zero loss is joined to the send's delegate
    # variable: backward from it runs the send's backward.
    local = ring_local_loss(comm, x, w, out_w)
    local.backward()
    loss, rxs, rws = ring_reference(xs, ws, out_w)
    if comm.rank == 0:
        common.assert_close(local, loss, dtype, "loss")
    common.assert_close(x.grad, rxs[comm.rank].grad, dtype, "grad of x")
    common.assert_close(w.grad, rws[comm.rank].grad, dtype, "grad of w")


def check_ring_from_delegate(comm):
    # The usual ChainerMN pattern: a rank that only sends starts backward
    # from the delegate variable returned by send.
    xs, ws, out_w = ring_data(comm.size, numpy.float32)
    x = chainer.Variable(xs[comm.rank])
    w = chainer.Variable(ws[comm.rank])
    rank, size = comm.rank, comm.size
    if rank == 0:
        phi = functions.send(F.tanh(x * w), comm, rank=1)
        h = functions.recv(comm, rank=size - 1, delegate_variable=phi)
        F.sum(h * out_w).backward()
    else:
        h = functions.recv(comm, rank=rank - 1)
        phi = functions.send(F.tanh(h * w + x), comm, rank=(rank + 1) % size)
        assert phi.shape == (0,)
        assert phi.dtype == numpy.float32
        phi.backward()
    _, rxs, rws = ring_reference(xs, ws, out_w)
    common.assert_close(x.grad, rxs[rank].grad, numpy.float32, "grad of x")
    common.assert_close(w.grad, rws[rank].grad, numpy.float32, "grad of w")


def check_ring_numerically(comm):
    xs, ws, out_w = ring_data(comm.size, numpy.float64)
    w = chainer.Variable(ws[comm.rank])
    common.check_backward_per_rank(
        comm,
        lambda x: ring_local_loss(comm, x, w, out_w),
        (xs[comm.rank],),
        params=(w,),
        atol=1e-6,
        rtol=1e-5,
    )


def check_tuples_and_shapes(comm):
    # Rank 0 sends a tuple of a 0-d float16, a float64 matrix and an int32
    # vector to rank 1, which sends back one float32 variable that rank 0
    # receives with force_tuple.
    rank = comm.rank
    a = numpy.array(1.5, numpy.float16)
    b = numpy.arange(6, dtype=numpy.float64).reshape(2, 3)
    c = numpy.arange(4, dtype=numpy.int32)
    d = numpy.linspace(-1, 1, 5).astype(numpy.float32)
    if rank == 0:
        va, vb = chainer.Variable(a), chainer.Variable(b)
        phi = functions.send((va, vb, c), comm, rank=1, tag=7)
        (back,) = functions.recv(
            comm, rank=1, delegate_variable=phi, tag=3, force_tuple=True
        )
        assert isinstance(back, chainer.Variable)
        numpy.testing.assert_array_equal(back.array, d)
        F.sum(back * 2).backward()
        # Rank 1's loss: 3 * a + sum(b * b) + sum(back).
        assert va.grad.dtype == numpy.float16
        assert va.grad.shape == ()
        numpy.testing.assert_array_equal(va.grad, numpy.float16(3))
        numpy.testing.assert_array_equal(vb.grad, 2 * b)
    elif rank == 1:
        ra, rb, rc = functions.recv(comm, rank=0, tag=7)
        assert ra.dtype == numpy.float16
        assert ra.shape == ()
        numpy.testing.assert_array_equal(ra.array, a)
        numpy.testing.assert_array_equal(rb.array, b)
        numpy.testing.assert_array_equal(rc.array, c)
        assert rc.dtype == numpy.int32
        # rc gets no gradient (an integer array): zeros go back for it.
        loss = F.cast(ra, numpy.float64) * 3 + F.sum(rb * rb)
        back = chainer.Variable(d)
        phi = functions.send(back, comm, rank=0, tag=3)
        loss = functions.pseudo_connect(phi, loss)
        loss.backward()
        numpy.testing.assert_array_equal(back.grad, numpy.full(5, 2, numpy.float32))


def check_many_messages_in_one_graph(comm):
    # Two round trips 0 <-> 1 in one graph, with arrays large enough (1 MiB)
    # that a send waits for its receive: the backward must run the four
    # communications in reverse order on both ranks or they hang.
    rank = comm.rank
    n = 256 * 1024
    if rank == 0:
        a = chainer.Variable(numpy.ones(n, numpy.float32))
        phi = functions.send(a, comm, rank=1)
        b = functions.recv(comm, rank=1, delegate_variable=phi)
        phi = functions.send(b * 2, comm, rank=1)
        c = functions.recv(comm, rank=1, delegate_variable=phi)
        F.sum(c).backward()
        numpy.testing.assert_array_equal(c.array, numpy.full(n, 30, numpy.float32))
        numpy.testing.assert_array_equal(a.grad, numpy.full(n, 30, numpy.float32))
    elif rank == 1:
        a = functions.recv(comm, rank=0)
        phi = functions.send(a * 3, comm, rank=0)
        b = functions.recv(comm, rank=0, delegate_variable=phi)
        phi = functions.send(b * 5, comm, rank=0)
        phi.backward()


def check_fan_out_fan_in(comm):
    # Rank 0 sends x to every other rank (sends chained with pseudo_connect)
    # and receives their results (receives chained through the delegate),
    # with 1 MiB messages. Rank r returns (r + 1) * x.
    rank, size = comm.rank, comm.size
    n = 256 * 1024
    if rank == 0:
        x = chainer.Variable(numpy.ones(n, numpy.float32))
        phi = None
        for r in range(1, size):
            phi = functions.send(functions.pseudo_connect(phi, x), comm, rank=r)
        total = 0
        for r in range(1, size):
            y = functions.recv(comm, rank=r, delegate_variable=phi)
            phi = y
            total = total + y
        F.sum(total).backward()
        expected = sum(r + 1 for r in range(1, size))
        numpy.testing.assert_array_equal(total.array, numpy.full(n, expected))
        numpy.testing.assert_array_equal(x.grad, numpy.full(n, expected))
    else:
        x = functions.recv(comm, rank=0)
        phi = functions.send(x * (rank + 1), comm, rank=0)
        phi.backward()


def check_pseudo_connect(comm):
    # Values pass through, gradients too; the delegate gets zeros, and
    # several actual variables give a tuple.
    d = chainer.Variable(numpy.empty((0,), numpy.float32))
    x = chainer.Variable(numpy.arange(3, dtype=numpy.float64))
    z = chainer.Variable(numpy.ones((2, 2), numpy.float16))
    y = functions.pseudo_connect(d, x)
    numpy.testing.assert_array_equal(y.array, x.array)
    _, z2 = functions.pseudo_connect(d, x, z)
    F.sum(y * 2).backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full(3, 2.0))
    numpy.testing.assert_array_equal(d.grad, numpy.empty((0,), numpy.float32))
    assert z2.dtype == numpy.float16
    x.cleargrad()
    y = functions.pseudo_connect(None, x)
    F.sum(y * 3).backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full(3, 3.0))


def check_errors(comm):
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    size = comm.size
    common.expect_error(ValueError, "out of range", functions.send, x, comm, rank=size)
    common.expect_error(ValueError, "out of range", functions.recv, comm, rank=-1)
    common.expect_error(ValueError, "own rank", functions.send, x, comm, rank=comm.rank)
    common.expect_error(ValueError, "own rank", functions.recv, comm, rank=comm.rank)
    common.expect_error(TypeError, "int rank", functions.send, x, comm, rank=1.0)
    peer = (comm.rank + 1) % size
    common.expect_error(ValueError, "tag", functions.send, x, comm, rank=peer, tag=-1)
    common.expect_error(
        ValueError, "nothing to send", functions.send, (), comm, rank=peer
    )
    common.expect_error(ValueError, "at least one", functions.pseudo_connect, x)


def main():
    comm = chainermn.create_communicator("flat")
    checks = mn_util.Checks(comm.rank, comm.size)
    for dtype in DTYPES:
        checks.run(f"ring {numpy.dtype(dtype).name}", check_ring, comm, dtype)
    checks.run("ring from the delegate", check_ring_from_delegate, comm)
    checks.run("ring numerically", check_ring_numerically, comm)
    checks.run("tuples and shapes", check_tuples_and_shapes, comm)
    checks.run("many messages in one graph", check_many_messages_in_one_graph, comm)
    checks.run("fan out fan in", check_fan_out_fan_in, comm)
    checks.run("pseudo_connect", check_pseudo_connect, comm)
    checks.run("errors", check_errors, comm)
    checks.emit()


if __name__ == "__main__":
    main()
