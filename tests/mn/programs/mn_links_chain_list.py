"""chainermn.links.MultiNodeChainList and create_multi_node_n_step_rnn.

A model split over the processes trains to the same parameters as the
whole model in one process (every rank builds the whole model with the same
seeds as a reference and compares its own parts).

Usage: mpiexec -n 2 python mn_links_chain_list.py   (or -n 3)
"""

import copy

import mn_functions_common as common
import mn_util
import numpy
from numpy import testing

import chainer
import chainer.functions as F
import chainer.links as L
import chainermn
from chainer import optimizers
from chainer import training

STEPS = 4


class Dense(chainer.Chain):
    """``activation(W x + b)``, with parameters drawn from ``seed``."""

    def __init__(self, n_in, n_out, seed, activation=None):
        super().__init__()
        numpy.random.seed(seed)
        with self.init_scope():
            self.l = L.Linear(n_in, n_out)
        self.activation = activation

    def forward(self, *xs):
        h = xs[0]
        for x in xs[1:]:
            h = h + x
        h = self.l(h)
        return h if self.activation is None else self.activation(h)


def data(step, n=5):
    rng = numpy.random.RandomState(100 + step)
    x = rng.uniform(-1, 1, (n, 4)).astype(numpy.float32)
    t = rng.randint(0, 3, n).astype(numpy.int32)
    return x, t


def params_of(link):
    return {name: p.array.copy() for name, p in link.namedparams()}


def assert_params_equal(got, expected, what):
    assert sorted(got) == sorted(expected), what
    for name in got:
        testing.assert_allclose(
            got[name], expected[name], rtol=1e-5, atol=1e-6, err_msg=f"{what} {name}"
        )


# ------------------------------------------------ two processes, a pipeline


def pipeline_parts():
    # A (rank 0) -> C (rank 1) -> B (rank 0).
    return {
        "a": lambda: Dense(4, 6, seed=1, activation=F.relu),
        "c": lambda: Dense(6, 6, seed=2, activation=F.tanh),
        "b": lambda: Dense(6, 3, seed=3),
    }


class Whole(chainer.Chain):
    def __init__(self, parts, order):
        super().__init__()
        with self.init_scope():
            for name in order:
                setattr(self, name, parts[name]())
        self.order = order

    def forward(self, x):
        for name in self.order:
            x = getattr(self, name)(x)
        return x


def train_reference(model, make_optimizer):
    classifier = L.Classifier(model)
    opt = make_optimizer()
    opt.setup(classifier)
    for step in range(STEPS):
        opt.update(classifier, *data(step))
    return model


def check_pipeline(comm, make_optimizer):
    parts = pipeline_parts()
    if comm.rank == 0:
        model = chainermn.MultiNodeChainList(comm)
        model.add_link(parts["a"](), rank_in=None, rank_out=1)
        model.add_link(parts["b"](), rank_in=1, rank_out=None)
        classifier = L.Classifier(model)
        opt = make_optimizer()
        opt.setup(classifier)
        for step in range(STEPS):
            opt.update(classifier, *data(step))
    elif comm.rank == 1:
        model = chainermn.MultiNodeChainList(comm)
        model.add_link(parts["c"](), rank_in=0, rank_out=0)
        opt = make_optimizer()
        opt.setup(model)
        for _ in range(STEPS):
            # The model returns the delegate variable; update runs backward
            # from it.
            opt.update(model)
    else:
        return
    reference = train_reference(Whole(parts, ["a", "c", "b"]), make_optimizer)
    names = ["a", "b"] if comm.rank == 0 else ["c"]
    for index, name in enumerate(names):
        assert_params_equal(
            params_of(model[index]), params_of(getattr(reference, name)), name
        )


def check_pipeline_with_updater(comm):
    # The model-parallel MNIST example's way: rank 1 iterates over an empty
    # dataset of the same length with a StandardUpdater.
    parts = pipeline_parts()
    dataset = [data(step, n=1) for step in range(8)]
    dataset = [(x[0], t[0]) for x, t in dataset]
    if comm.rank == 0:
        model = chainermn.MultiNodeChainList(comm)
        model.add_link(parts["a"](), rank_in=None, rank_out=1)
        model.add_link(parts["b"](), rank_in=1, rank_out=None)
        target = L.Classifier(model)
    elif comm.rank == 1:
        dataset = chainermn.create_empty_dataset(dataset)
        model = chainermn.MultiNodeChainList(comm)
        model.add_link(parts["c"](), rank_in=0, rank_out=0)
        target = model
    else:
        return
    opt = optimizers.SGD(lr=0.1)
    opt.setup(target)
    it = chainer.iterators.SerialIterator(dataset, 4, shuffle=False)
    updater = training.updaters.StandardUpdater(it, opt)
    for _ in range(2):
        updater.update()

    reference = Whole(parts, ["a", "c", "b"])
    classifier = L.Classifier(reference)
    ref_opt = optimizers.SGD(lr=0.1)
    ref_opt.setup(classifier)
    full = [data(step, n=1) for step in range(8)]
    x = numpy.concatenate([f[0] for f in full])
    t = numpy.concatenate([f[1] for f in full])
    for i in range(2):
        ref_opt.update(classifier, x[4 * i : 4 * i + 4], t[4 * i : 4 * i + 4])
    names = ["a", "b"] if comm.rank == 0 else ["c"]
    for index, name in enumerate(names):
        assert_params_equal(
            params_of(model[index]), params_of(getattr(reference, name)), name
        )


# ---------------------------------- a component sending to itself and away


class Joined(chainer.Chain):
    """``b(a(x), c(a(x)))``: ``a`` and ``b`` on rank 0, ``c`` on rank 1."""

    def __init__(self, parts):
        super().__init__()
        with self.init_scope():
            for name, make in parts.items():
                setattr(self, name, make())

    def forward(self, x):
        h = self.a(x)
        return self.b(h, self.c(h))


def check_local_and_remote(comm):
    parts = {
        "a": lambda: Dense(4, 6, seed=11, activation=F.relu),
        "c": lambda: Dense(6, 6, seed=12, activation=F.tanh),
        "b": lambda: Dense(6, 3, seed=13),
    }
    if comm.rank == 0:
        model = chainermn.MultiNodeChainList(comm)
        # a's output goes to rank 1 and stays here; b takes both.
        model.add_link(parts["a"](), rank_in=None, rank_out=[1, 0])
        model.add_link(parts["b"](), rank_in=[0, 1], rank_out=None)
        target = L.Classifier(model)
    elif comm.rank == 1:
        model = chainermn.MultiNodeChainList(comm)
        model.add_link(parts["c"](), rank_in=0, rank_out=0)
        target = model
    else:
        return
    opt = optimizers.MomentumSGD(lr=0.1)
    opt.setup(target)
    for step in range(STEPS):
        if comm.rank == 0:
            opt.update(target, *data(step))
        else:
            opt.update(target)
    reference = train_reference(Joined(parts), lambda: optimizers.MomentumSGD(0.1))
    names = ["a", "b"] if comm.rank == 0 else ["c"]
    for index, name in enumerate(names):
        assert_params_equal(
            params_of(model[index]), params_of(getattr(reference, name)), name
        )


# ------------------------------------ three processes: fan out and fan in


class Diamond(chainer.Chain):
    """``d(b(a(x)) + c(a(x)))``: a, d on rank 0, b on rank 1, c on rank 2."""

    def __init__(self, parts):
        super().__init__()
        with self.init_scope():
            for name, make in parts.items():
                setattr(self, name, make())

    def forward(self, x):
        h = self.a(x)
        return self.d(self.b(h), self.c(h))


def check_diamond(comm):
    parts = {
        "a": lambda: Dense(4, 6, seed=21, activation=F.relu),
        "b": lambda: Dense(6, 6, seed=22, activation=F.tanh),
        "c": lambda: Dense(6, 6, seed=23, activation=F.sigmoid),
        "d": lambda: Dense(6, 3, seed=24),
    }
    model = chainermn.MultiNodeChainList(comm)
    if comm.rank == 0:
        model.add_link(parts["a"](), rank_in=None, rank_out=[1, 2])
        model.add_link(parts["d"](), rank_in=[1, 2], rank_out=None)
        target = L.Classifier(model)
        names = ["a", "d"]
    else:
        name = "b" if comm.rank == 1 else "c"
        model.add_link(parts[name](), rank_in=0, rank_out=0)
        target = model
        names = [name]
    opt = optimizers.Adam(alpha=0.01)
    opt.setup(target)
    for step in range(STEPS):
        if comm.rank == 0:
            opt.update(target, *data(step))
        else:
            opt.update(target)
    reference = train_reference(Diamond(parts), lambda: optimizers.Adam(alpha=0.01))
    for index, name in enumerate(names):
        assert_params_equal(
            params_of(model[index]), params_of(getattr(reference, name)), name
        )


class Scale(chainer.Link):
    """``tanh(x * s)`` elementwise, with ``s`` drawn from ``seed``."""

    def __init__(self, n, seed):
        super().__init__()
        rng = numpy.random.RandomState(seed)
        with self.init_scope():
            self.s = chainer.Parameter(rng.uniform(0.5, 1.5, n).astype("f"))

    def forward(self, x):
        return F.tanh(x * self.s)


def check_ring_of_three(comm):
    # 0 -> 1 -> 2 -> 0 with 320 KiB activations: every send waits for its
    # receive, so the backward order matters on every rank.
    n = 16 * 1024
    parts = {
        "a": lambda: Dense(4, n, seed=31, activation=F.tanh),
        "b": lambda: Scale(n, seed=32),
        "c": lambda: Scale(n, seed=33),
        "d": lambda: Dense(n, 3, seed=34),
    }
    model = chainermn.MultiNodeChainList(comm)
    if comm.rank == 0:
        model.add_link(parts["a"](), rank_in=None, rank_out=1)
        model.add_link(parts["d"](), rank_in=2, rank_out=None)
        target = L.Classifier(model)
        names = ["a", "d"]
    elif comm.rank == 1:
        model.add_link(parts["b"](), rank_in=0, rank_out=2)
        target, names = model, ["b"]
    else:
        model.add_link(parts["c"](), rank_in=1, rank_out=0)
        target, names = model, ["c"]
    opt = optimizers.SGD(lr=0.1)
    opt.setup(target)
    for step in range(2):
        if comm.rank == 0:
            opt.update(target, *data(step))
        else:
            opt.update(target)
    reference = Whole(parts, ["a", "b", "c", "d"])
    classifier = L.Classifier(reference)
    ref_opt = optimizers.SGD(lr=0.1)
    ref_opt.setup(classifier)
    for step in range(2):
        ref_opt.update(classifier, *data(step))
    for index, name in enumerate(names):
        assert_params_equal(
            params_of(model[index]), params_of(getattr(reference, name)), name
        )


def check_errors(comm):
    model = chainermn.MultiNodeChainList(comm)
    link = Dense(2, 2, seed=0)

    common.expect_error(
        ValueError, "out of range", model.add_link, link, rank_in=comm.size
    )
    common.expect_error(
        ValueError, "out of range", model.add_link, link, rank_out=[0, -1]
    )
    common.expect_error(TypeError, "rank_in", model.add_link, link, rank_in="0")
    common.expect_error(ValueError, "empty", model.add_link, link, rank_out=[])
    assert len(model) == 0
    model.add_link(link, rank_in=None, rank_out=None)
    common.expect_error(ValueError, "only one", model.add_link, Dense(2, 2, seed=0))
    lonely = chainermn.MultiNodeChainList(comm)
    lonely.add_link(Dense(2, 2, seed=0), rank_in=comm.rank, rank_out=None)
    common.expect_error(
        RuntimeError, "no earlier component", lonely, numpy.zeros((1, 2), "f")
    )


def check_copies_and_serialization(comm, tmp):
    model = chainermn.MultiNodeChainList(comm)
    model.add_link(Dense(2, 2, seed=0), rank_in=None, rank_out=None)
    deep = model.copy(mode="copy")
    assert deep._comm is comm
    assert copy.deepcopy(model)._comm is comm
    assert deep[0].l.W.array is not model[0].l.W.array
    path = f"{tmp}/model.{comm.rank}.npz"
    chainer.serializers.save_npz(path, model)
    other = chainermn.MultiNodeChainList(comm)
    other.add_link(Dense(2, 2, seed=5), rank_in=None, rank_out=None)
    chainer.serializers.load_npz(path, other)
    testing.assert_array_equal(other[0].l.W.array, model[0].l.W.array)


# ------------------------------------------------------- n-step RNN states


def check_n_step_rnn(comm, kind):
    make = {"lstm": L.NStepLSTM, "gru": L.NStepGRU}[kind]
    rng = numpy.random.RandomState(7)
    xs_enc = [rng.uniform(-1, 1, (n, 3)).astype("f") for n in (4, 2, 3)]
    xs_dec = [rng.uniform(-1, 1, (n, 3)).astype("f") for n in (2, 5, 1)]
    ws = [rng.uniform(-1, 1, (n, 4)).astype("f") for n in (2, 5, 1)]

    def encoder():
        numpy.random.seed(41)
        return make(2, 3, 4, 0.0)

    def decoder():
        numpy.random.seed(42)
        return make(2, 3, 4, 0.0)

    n_cells = 2 if kind == "lstm" else 1
    # The reference: the decoder starts from the encoder's final states.
    enc_ref, dec_ref = encoder(), decoder()
    states = enc_ref(*(None,) * n_cells, xs_enc)[:n_cells]
    ys_ref = dec_ref(*states, xs_dec)[-1]
    sum(F.sum(y * w) for y, w in zip(ys_ref, ws, strict=True)).backward()

    if comm.rank == 0:
        enc = chainermn.links.create_multi_node_n_step_rnn(encoder(), comm, rank_out=1)
        outputs = enc(xs_enc)
        assert len(outputs) == n_cells + 2
        delegate = outputs[-1]
        delegate.backward()
        for (name, p), (_, q) in zip(
            enc.actual_rnn.namedparams(), enc_ref.namedparams(), strict=True
        ):
            testing.assert_allclose(p.grad, q.grad, rtol=1e-5, atol=1e-6, err_msg=name)
    elif comm.rank == 1:
        dec = chainermn.links.create_multi_node_n_step_rnn(decoder(), comm, rank_in=0)
        outputs = dec(xs_dec)
        assert outputs[-1] is None
        ys = outputs[-2]
        for y, y_ref in zip(ys, ys_ref, strict=True):
            testing.assert_allclose(y.array, y_ref.array, rtol=1e-5, atol=1e-6)
        sum(F.sum(y * w) for y, w in zip(ys, ws, strict=True)).backward()
        for (name, p), (_, q) in zip(
            dec.actual_rnn.namedparams(), dec_ref.namedparams(), strict=True
        ):
            testing.assert_allclose(p.grad, q.grad, rtol=1e-5, atol=1e-6, err_msg=name)


def check_n_step_rnn_errors(comm):
    common.expect_error(
        TypeError,
        "NStep",
        chainermn.links.create_multi_node_n_step_rnn,
        L.Linear(2, 2),
        comm,
    )


def main():
    import sys

    tmp = sys.argv[1]
    comm = chainermn.create_communicator("flat")
    checks = mn_util.Checks(comm.rank, comm.size)
    checks.run("pipeline sgd", check_pipeline, comm, lambda: optimizers.SGD(lr=0.1))
    checks.run("pipeline adam", check_pipeline, comm, lambda: optimizers.Adam())
    checks.run("pipeline with updater", check_pipeline_with_updater, comm)
    checks.run("local and remote", check_local_and_remote, comm)
    if comm.size >= 3:
        checks.run("diamond", check_diamond, comm)
        checks.run("ring of three", check_ring_of_three, comm)
    checks.run("errors", check_errors, comm)
    checks.run("copies and serialization", check_copies_and_serialization, comm, tmp)
    for kind in ("lstm", "gru"):
        checks.run(f"n-step rnn {kind}", check_n_step_rnn, comm, kind)
    checks.run("n-step rnn errors", check_n_step_rnn_errors, comm)
    checks.emit()


if __name__ == "__main__":
    main()
