"""Data-parallel training equals one process on the combined batches.

On every rank: an MLP trained with the multi-node optimizer on this rank's
part of the data (scatter_dataset). On rank 0, afterwards and without MPI,
the same training in one process on the combined batches; the parameters
must match. With double buffering the reference applies each step's averaged
gradient one step late.

Usage: mpiexec -n N python equivalence.py [COMMUNICATOR [DEVICE [--node-per-rank]]]

COMMUNICATOR is 'flat' by default, DEVICE '@numpy' ('@cupy:intra' puts each
rank's model on GPU intra_rank). With --node-per-rank every rank counts as a
node of its own (CHAINERMN_NODE_NAME), so that the GPU communicators' inter-node
paths run on one machine.
"""

import os
import sys

import mn_functions_common as common
import mn_util
import numpy
from numpy import testing

import chainer
import chainer.functions as F
import chainer.links as L
import chainermn
from chainer import optimizers

N_PER_RANK = 24
BATCH = 4
STEPS = 5


class MLP(chainer.Chain):
    def __init__(self, seed):
        super().__init__()
        numpy.random.seed(seed)
        with self.init_scope():
            self.l1 = L.Linear(6, 8)
            self.l2 = L.Linear(8, 3)

    def forward(self, x, t):
        return F.softmax_cross_entropy(self.l2(F.relu(self.l1(x))), t)


def make_data(size):
    rng = numpy.random.RandomState(0)
    n = N_PER_RANK * size
    x = rng.randn(n, 6).astype(numpy.float32)
    t = rng.randint(0, 3, n).astype(numpy.int32)
    return x, t


def make_optimizer(kind):
    if kind == "sgd":
        return optimizers.SGD(lr=0.1)
    return optimizers.Adam(alpha=0.01)


def batch_of(data, step):
    x, t = data
    return x[step * BATCH : (step + 1) * BATCH], t[step * BATCH : (step + 1) * BATCH]


def train_multi_node(comm, kind, double_buffering, device):
    size = comm.size
    full = make_data(size) if comm.rank == 0 else None
    dataset = None
    if full is not None:
        dataset = list(zip(*full, strict=True))
    part = chainermn.scatter_dataset(dataset, comm)
    x = device.send(numpy.stack([part[i][0] for i in range(len(part))]))
    t = device.send(numpy.array([part[i][1] for i in range(len(part))], numpy.int32))
    # Each rank starts from different parameters: the first update must
    # broadcast rank 0's.
    model = MLP(seed=comm.rank)
    model.to_device(device)
    opt = chainermn.create_multi_node_optimizer(
        make_optimizer(kind), comm, double_buffering=double_buffering
    )
    opt.setup(model)
    # Call 0 only broadcasts; with double buffering call 1 only starts the
    # first exchange.
    n_calls = STEPS + (2 if double_buffering else 1)
    for call in range(n_calls):
        xb, tb = batch_of((x, t), call)
        opt.update(model, xb, tb)
    if double_buffering:
        opt.wait()
    host = chainer.backend.CpuDevice()
    return {name: host.send(p.array) for name, p in model.namedparams()}, opt.t


def reference(size, kind, double_buffering):
    x, t = make_data(size)
    model = MLP(seed=0)
    opt = make_optimizer(kind)
    opt.setup(model)

    def combined_grads(call):
        xs, ts = [], []
        for r in range(size):
            xb, tb = batch_of((x[r * N_PER_RANK :], t[r * N_PER_RANK :]), call)
            xs.append(xb)
            ts.append(tb)
        model.cleargrads()
        # The mean of the ranks' batch means is the mean over the combined
        # batch (equal batch sizes).
        loss = model(numpy.concatenate(xs), numpy.concatenate(ts))
        loss.backward()
        return {name: p.grad.copy() for name, p in model.namedparams()}

    if not double_buffering:
        for call in range(1, STEPS + 1):
            combined_grads(call)
            opt.update()
    else:
        previous = combined_grads(1)
        for call in range(2, STEPS + 2):
            current = combined_grads(call)
            for name, p in model.namedparams():
                p.grad = previous[name]
            opt.update()
            previous = current
    return {name: p.array.copy() for name, p in model.namedparams()}


def compare(got, expect, rtol=1e-4, atol=1e-5):
    assert sorted(got) == sorted(expect)
    for name in got:
        testing.assert_allclose(
            got[name], expect[name], rtol=rtol, atol=atol, err_msg=name
        )


def main():
    args = sys.argv[1:]
    name = args[0] if args else "flat"
    device_spec = args[1] if len(args) > 1 else "@numpy"
    if "--node-per-rank" in args:
        from mpi4py import MPI

        os.environ["CHAINERMN_NODE_NAME"] = f"node{MPI.COMM_WORLD.Get_rank()}"
    comm = chainermn.create_communicator(name)
    if device_spec == "@cupy:intra":
        device_spec = f"@cupy:{comm.intra_rank}"
    device = chainer.get_device(device_spec)
    # Float32 sums on a GPU run in another order than NumPy's.
    tolerance = {} if device.xp is numpy else {"rtol": 1e-3, "atol": 1e-4}
    checks = mn_util.Checks(comm.rank, comm.size)
    checks.values["communicator"] = type(comm).__name__
    checks.values["intra_size"] = comm.intra_size
    checks.values["inter_size"] = comm.inter_size
    for kind in ("sgd", "adam"):
        for double_buffering in (False, True):
            label = f"{kind}{'-double_buffering' if double_buffering else ''}"
            if double_buffering and getattr(comm, "_double_buffering_error", None):

                def refuses(kind=kind):
                    common.expect_error(
                        ValueError,
                        "double buffering",
                        chainermn.create_multi_node_optimizer,
                        make_optimizer(kind),
                        comm,
                        double_buffering=True,
                    )

                checks.run(f"{label}:refused", refuses)
                continue
            params, t = train_multi_node(comm, kind, double_buffering, device)
            checks.values[f"{label}:t"] = t
            everyone = comm.allgather_obj(params)

            def same_on_all_ranks(everyone=everyone):
                for other in everyone[1:]:
                    for name in other:
                        testing.assert_array_equal(other[name], everyone[0][name])

            checks.run(f"{label}:ranks agree", same_on_all_ranks)
            if comm.rank == 0:
                expect = reference(comm.size, kind, double_buffering)
                checks.run(
                    f"{label}:equals one process",
                    lambda params=params, expect=expect: compare(
                        params, expect, **tolerance
                    ),
                )
                if double_buffering:
                    fresh = reference(comm.size, kind, False)

                    def differs_from_fresh(params=params, fresh=fresh):
                        assert any(
                            not numpy.allclose(
                                params[n], fresh[n], rtol=1e-4, atol=1e-5
                            )
                            for n in params
                        ), "one-step-stale updates should differ from fresh ones"

                    checks.run(
                        f"{label}:updates are one step stale", differs_from_fresh
                    )
    comm.finalize()
    checks.emit()


if __name__ == "__main__":
    main()
