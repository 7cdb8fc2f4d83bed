"""chainermn.links.MultiNodeBatchNormalization and create_mnbn_model.

MNBN on the processes' parts of a batch equals chainer.links.BatchNormalization
on the whole batch in one process: outputs, input gradients, the gradients of
gamma and beta (summed over the processes), running statistics, and training
with the multi-node optimizer. Every rank builds the whole batch (seeded) and
computes the reference itself.

Usage: mpiexec -n N python mn_links_batch_normalization.py   (N >= 2)
"""

import mn_functions_common as common
import mn_util
import numpy
from numpy import testing

import chainer
import chainer.functions as F
import chainer.links as L
import chainermn
from chainer import optimizers

DTYPES = (numpy.float16, numpy.float32, numpy.float64)


def part_sizes(size):
    # Unequal parts: MNBN weighs each process by its number of samples.
    return [2 + 3 * r for r in range(size)]


def split(array, sizes, rank):
    start = sum(sizes[:rank])
    return array[start : start + sizes[rank]]


def tolerances(dtype):
    if dtype == numpy.float16:
        return dict(atol=2e-2, rtol=2e-2)
    if dtype == numpy.float32:
        return dict(atol=1e-5, rtol=1e-4)
    return dict(atol=1e-10, rtol=1e-10)


def make_pair(comm, dtype, channels, **kwargs):
    param_dtype = numpy.float64 if dtype == numpy.float64 else numpy.float32
    bn = L.BatchNormalization(channels, dtype=param_dtype, **kwargs)
    mnbn = chainermn.links.MultiNodeBatchNormalization(
        channels, comm, dtype=param_dtype, **kwargs
    )
    return bn, mnbn


def check_equals_one_process(comm, dtype, shape):
    sizes = part_sizes(comm.size)
    rng = numpy.random.RandomState(3)
    full_shape = (sum(sizes), *shape)
    x = (rng.randn(*full_shape) * 2 + 0.5).astype(dtype)
    c = rng.uniform(-1, 1, full_shape).astype(dtype)
    bn, mnbn = make_pair(comm, dtype, shape[0], decay=0.8)
    for p in (bn.gamma, bn.beta):
        p.array[...] = rng.uniform(0.5, 1.5, p.shape)
    mnbn.gamma.array[...] = bn.gamma.array
    mnbn.beta.array[...] = bn.beta.array
    tol = tolerances(dtype)
    for _ in range(3):
        bn.cleargrads()
        mnbn.cleargrads()
        vx = chainer.Variable(x)
        y = bn(vx)
        F.sum(y * c).backward()
        px = chainer.Variable(split(x, sizes, comm.rank))
        py = mnbn(px)
        F.sum(py * split(c, sizes, comm.rank)).backward()
        assert py.dtype == dtype
        assert px.grad.dtype == dtype
        testing.assert_allclose(
            py.array.astype("d"), split(y.array, sizes, comm.rank).astype("d"), **tol
        )
        testing.assert_allclose(
            px.grad.astype("d"), split(vx.grad, sizes, comm.rank).astype("d"), **tol
        )
        for name in ("gamma", "beta"):
            mine = getattr(mnbn, name).grad
            total = comm.allreduce(mine.astype("d"))
            testing.assert_allclose(total, getattr(bn, name).grad, **tol)
        testing.assert_allclose(mnbn.avg_mean, bn.avg_mean, **tol)
        testing.assert_allclose(mnbn.avg_var, bn.avg_var, **tol)
    # Testing mode: the running statistics, no communication.
    with chainer.using_config("train", False):
        testing.assert_allclose(
            mnbn(x[:3]).array.astype("d"), bn(x[:3]).array.astype("d"), **tol
        )


def check_finetune(comm):
    sizes = part_sizes(comm.size)
    rng = numpy.random.RandomState(4)
    bn, mnbn = make_pair(comm, numpy.float32, 3)
    for step in range(3):
        x = rng.randn(sum(sizes), 3).astype("f") + step
        bn(x, finetune=True)
        mnbn(split(x, sizes, comm.rank), finetune=True)
    assert mnbn.N == bn.N == 3
    testing.assert_allclose(mnbn.avg_mean, bn.avg_mean, rtol=1e-5)
    testing.assert_allclose(mnbn.avg_var, bn.avg_var, rtol=1e-5)
    mnbn.start_finetuning()
    assert mnbn.N == 0


def check_numerically(comm):
    rng = numpy.random.RandomState(5 + comm.rank)
    x = rng.randn(comm.rank + 2, 3, 2).astype("d")
    c = rng.uniform(-1, 1, x.shape)
    mnbn = chainermn.links.MultiNodeBatchNormalization(3, comm, dtype=numpy.float64)
    mnbn.gamma.array[...] = rng.uniform(0.5, 1.5, 3)
    mnbn.beta.array[...] = rng.uniform(-1, 1, 3)
    common.check_backward_per_rank(
        comm,
        lambda v: F.sum(mnbn(v) * c),
        (x,),
        params=(mnbn.gamma, mnbn.beta),
        atol=1e-6,
        rtol=1e-5,
    )


def check_without_gamma_beta(comm):
    sizes = part_sizes(comm.size)
    rng = numpy.random.RandomState(6)
    x = rng.randn(sum(sizes), 4).astype("f")
    bn, mnbn = make_pair(comm, numpy.float32, 4, use_gamma=False, use_beta=False)
    assert mnbn.gamma is None
    assert mnbn.beta is None
    testing.assert_allclose(
        mnbn(split(x, sizes, comm.rank)).array,
        split(bn(x).array, sizes, comm.rank),
        atol=1e-5,
        rtol=1e-4,
    )


class Net(chainer.Chain):
    def __init__(self, comm=None):
        super().__init__()
        numpy.random.seed(8)
        with self.init_scope():
            # No bias: the normalization cancels it, and Adam would amplify
            # its rounding-noise gradients differently in the two runs.
            self.l1 = L.Linear(5, 6, nobias=True)
            if comm is None:
                self.bn = L.BatchNormalization(6)
            else:
                self.bn = chainermn.links.MultiNodeBatchNormalization(6, comm)
            self.l2 = L.Linear(6, 3)

    def forward(self, x):
        return self.l2(F.relu(self.bn(self.l1(x))))


def check_training(comm, kind):
    # Equal parts of each batch: the mean of the processes' mean losses is
    # the mean loss of the whole batch.
    per_rank, steps = 4, 4
    rng = numpy.random.RandomState(9)
    n = per_rank * comm.size
    batches = [
        (rng.randn(n, 5).astype("f"), rng.randint(0, 3, n).astype("i"))
        for _ in range(steps + 1)
    ]

    def make_optimizer():
        return optimizers.SGD(lr=0.1) if kind == "sgd" else optimizers.Adam(0.01)

    model = L.Classifier(Net(comm))
    opt = chainermn.create_multi_node_optimizer(make_optimizer(), comm)
    opt.setup(model)
    for x, t in batches:  # the first call broadcasts instead of updating
        lo, hi = comm.rank * per_rank, (comm.rank + 1) * per_rank
        opt.update(model, x[lo:hi], t[lo:hi])

    reference = L.Classifier(Net())
    ref_opt = make_optimizer()
    ref_opt.setup(reference)
    reference(*batches[0])  # its forward pass updated the statistics
    for x, t in batches[1:]:
        ref_opt.update(reference, x, t)
    got = dict(model.namedparams())
    for name, p in reference.namedparams():
        testing.assert_allclose(
            got[name].array, p.array, atol=1e-5, rtol=1e-4, err_msg=name
        )
    testing.assert_allclose(
        model.predictor.bn.avg_mean,
        reference.predictor.bn.avg_mean,
        rtol=1e-5,
        atol=1e-6,
    )
    testing.assert_allclose(
        model.predictor.bn.avg_var, reference.predictor.bn.avg_var, rtol=1e-5, atol=1e-6
    )


class Nested(chainer.Chain):
    def __init__(self):
        super().__init__()
        numpy.random.seed(10)
        with self.init_scope():
            self.l1 = L.Linear(4, 3)
            self.bn1 = L.BatchNormalization(3, decay=0.7, eps=1e-3)
            self.stack = chainer.ChainList(
                L.Linear(3, 3), L.BatchNormalization(3, use_gamma=False)
            )
            self.seq = chainer.Sequential(L.BatchNormalization(3), F.relu)

    def forward(self, x):
        h = self.bn1(self.l1(x))
        h = self.stack[1](self.stack[0](h))
        return self.seq(h)


def check_create_mnbn_model(comm):
    rng = numpy.random.RandomState(11)
    model = Nested()
    model(rng.randn(6, 4).astype("f"))  # running statistics move away from 0/1
    model.seq[0](rng.randn(5, 3).astype("f"), finetune=True)
    mn = chainermn.links.create_mnbn_model(model, comm)
    MNBN = chainermn.links.MultiNodeBatchNormalization
    assert isinstance(mn.bn1, MNBN)
    assert isinstance(mn.stack[1], MNBN)
    assert isinstance(mn.seq[0], MNBN)
    assert isinstance(model.bn1, L.BatchNormalization)  # the original stays
    assert mn.bn1.decay == 0.7
    assert mn.bn1.eps == 1e-3
    assert mn.stack[1].gamma is None
    assert mn.stack[1].beta is not None
    assert mn.seq[0].N == 1
    assert mn.l1.W.array is not model.l1.W.array
    for (name, p), (_, q) in zip(
        sorted(mn.namedparams()), sorted(model.namedparams()), strict=True
    ):
        testing.assert_array_equal(p.array, q.array, err_msg=name)
    for path in ("bn1", "stack/1", "seq/0"):
        old = dict(model.namedlinks())["/" + path]
        new = dict(mn.namedlinks())["/" + path]
        testing.assert_array_equal(new.avg_mean, old.avg_mean)
        testing.assert_array_equal(new.avg_var, old.avg_var)
        assert new.comm is comm
    x = rng.randn(4, 4).astype("f")
    with chainer.using_config("train", False):
        testing.assert_allclose(mn(x).array, model(x).array, rtol=1e-5, atol=1e-6)
    # The same batch on every process: the global mean and variance are the
    # local ones, so the outputs equal the original model's.
    testing.assert_allclose(mn(x).array, model(x).array, rtol=1e-5, atol=1e-6)
    # The root itself may be a BatchNormalization.
    assert isinstance(chainermn.links.create_mnbn_model(model.bn1, comm), MNBN)


def check_errors(comm):
    MNBN = chainermn.links.MultiNodeBatchNormalization
    common.expect_error(
        ValueError, "pure_nccl", MNBN, 3, comm, communication_backend="nccl"
    )
    common.expect_error(
        ValueError, "unknown", MNBN, 3, comm, communication_backend="gloo"
    )
    MNBN(3, comm, communication_backend="mpi")
    lazy = L.BatchNormalization(axis=0)
    common.expect_error(
        ValueError, "no size", chainermn.links.create_mnbn_model, lazy, comm
    )
    other_axis = L.BatchNormalization(3, axis=(0, 1))
    common.expect_error(
        ValueError, "axis", chainermn.links.create_mnbn_model, other_axis, comm
    )
    # Different sizes on the processes: named, on every process, no hang.
    mnbn = MNBN(3 + comm.rank, comm)
    x = numpy.ones((2, 3 + comm.rank), "f")
    common.expect_error(ValueError, "different channel shapes", mnbn, x)


def main():
    comm = chainermn.create_communicator("flat")
    checks = mn_util.Checks(comm.rank, comm.size)
    for dtype in DTYPES:
        for shape in ((3,), (2, 3, 2)):
            name = f"equals one process {numpy.dtype(dtype).name} {shape}"
            checks.run(name, check_equals_one_process, comm, dtype, shape)
    checks.run("finetune", check_finetune, comm)
    checks.run("numerically", check_numerically, comm)
    checks.run("without gamma and beta", check_without_gamma_beta, comm)
    for kind in ("sgd", "adam"):
        checks.run(f"training {kind}", check_training, comm, kind)
    checks.run("create_mnbn_model", check_create_mnbn_model, comm)
    checks.run("errors", check_errors, comm)
    checks.emit()


if __name__ == "__main__":
    main()
