import multiprocessing
import os
import signal
import sys

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers
from chainer import serializers
from chainer import training
from chainer.iterators import MultiprocessIterator
from chainer.iterators import SerialIterator
from chainer.training import updaters

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="the test models live in this file, which workers reach by fork only",
)

N_IN = 5
SHARD = 12  # examples per process and epoch


class MLP(chainer.Chain):
    def __init__(self, n_in=N_IN, n_hidden=8, n_out=3):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_in, n_hidden)
            self.l2 = L.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class FailingInWorker(chainer.Chain):
    """A classifier whose forward pass fails in worker processes only."""

    def __init__(self, how):
        super().__init__()
        self.main_pid = os.getpid()
        self.how = how
        with self.init_scope():
            self.predictor = L.Linear(N_IN, 3)

    def forward(self, x, t):
        if os.getpid() != self.main_pid:
            if self.how == "raise":
                raise ValueError("bad example seen by the worker")
            if self.how == "exit":
                os._exit(3)
            os.kill(os.getpid(), signal.SIGKILL)
        return F.softmax_cross_entropy(self.predictor(x), t)


class FailingOnceInMain(chainer.Chain):
    def __init__(self):
        super().__init__()
        self.main_pid = os.getpid()
        self.fail_next = False
        with self.init_scope():
            self.predictor = L.Linear(N_IN, 3)

    def forward(self, x, t):
        if self.fail_next and os.getpid() == self.main_pid:
            self.fail_next = False
            raise ValueError("main process failure")
        return F.softmax_cross_entropy(self.predictor(x), t)


def make_shards(n_proc, length=SHARD):
    rng = numpy.random.RandomState(0)
    x = rng.randn(n_proc * length, N_IN).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32) + (x[:, 1] > 0.5).astype(numpy.int32)
    examples = list(zip(x, t, strict=True))
    return [examples[i * length : (i + 1) * length] for i in range(n_proc)]


def combined_dataset(shards, batch_size):
    """Orders the examples so that a batch of n * batch_size is every shard's."""
    combined = []
    for start in range(0, len(shards[0]), batch_size):
        for shard in shards:
            combined.extend(shard[start : start + batch_size])
    return combined


def make_pair(model, optimizer_class=optimizers.SGD, **kwargs):
    ref = model.copy(mode="copy")
    pairs = []
    for m in (model, ref):
        opt = optimizer_class(**kwargs)
        opt.setup(m)
        pairs.append((m, opt))
    return pairs


def assert_same_params(a, b, rtol=1e-5, atol=1e-6):
    pa = dict(a.namedparams())
    pb = dict(b.namedparams())
    assert sorted(pa) == sorted(pb)
    for name, p in pa.items():
        numpy.testing.assert_allclose(
            p.array, pb[name].array, rtol=rtol, atol=atol, err_msg=name
        )


def make_updaters(n_proc, batch_size, model, optimizer_class=optimizers.SGD, **kw):
    shards = make_shards(n_proc)
    (model, opt), (_, ref_opt) = make_pair(model, optimizer_class, **kw)
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, batch_size, shuffle=False) for s in shards],
        opt,
        devices=["@numpy"] * n_proc,
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(
            combined_dataset(shards, batch_size), n_proc * batch_size, shuffle=False
        ),
        ref_opt,
    )
    return updater, ref_updater


_BEFORE = set()


def new_children():
    """Child processes started since the current test began."""
    return set(multiprocessing.active_children()) - _BEFORE


@pytest.fixture(autouse=True)
def _remember_children():
    _BEFORE.clear()
    _BEFORE.update(multiprocessing.active_children())


@pytest.fixture
def no_new_children():
    """Checks at the end of the test that it left no child process behind."""
    before = set(multiprocessing.active_children())
    yield
    assert set(multiprocessing.active_children()) <= before


@pytest.mark.usefixtures("no_new_children")
@pytest.mark.parametrize(
    ("n_proc", "optimizer_class", "kwargs"),
    [
        (1, optimizers.SGD, {"lr": 0.3}),
        (2, optimizers.SGD, {"lr": 0.3}),
        (3, optimizers.MomentumSGD, {"lr": 0.1}),
        (2, optimizers.Adam, {}),
    ],
)
def test_same_result_as_one_process_on_the_combined_batch(
    n_proc, optimizer_class, kwargs
):
    model = L.Classifier(MLP())
    updater, ref_updater = make_updaters(n_proc, 4, model, optimizer_class, **kwargs)
    try:
        for _ in range(7):  # crosses the end of the first epoch (3 batches)
            updater.update()
            ref_updater.update()
    finally:
        updater.finalize()
    assert updater.iteration == 7
    assert updater.epoch == ref_updater.epoch == 2
    assert updater.get_optimizer("main").epoch == 2
    assert_same_params(model, ref_updater.get_optimizer("main").target)


@pytest.mark.usefixtures("no_new_children")
def test_lazily_initialized_parameters():
    model = L.Classifier(L.Linear(None, 3))
    updater, ref_updater = make_updaters(2, 4, model, lr=0.3)
    try:
        numpy.random.seed(5)
        updater.update()
        numpy.random.seed(5)
        ref_updater.update()
        for _ in range(3):
            updater.update()
            ref_updater.update()
    finally:
        updater.finalize()
    assert_same_params(model, ref_updater.get_optimizer("main").target)


@pytest.mark.usefixtures("no_new_children")
def test_worker_iterators_may_start_processes():
    # As in Chainer's ImageNet example: a MultiprocessIterator per device.
    shards = make_shards(2)
    (model, opt), (_, ref_opt) = make_pair(L.Classifier(MLP()), lr=0.3)
    updater = updaters.MultiprocessParallelUpdater(
        [MultiprocessIterator(s, 4, shuffle=False, n_processes=2) for s in shards],
        opt,
        devices=["@numpy", "@numpy"],
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(combined_dataset(shards, 4), 8, shuffle=False), ref_opt
    )
    try:
        for _ in range(4):
            updater.update()
            ref_updater.update()
    finally:
        updater.finalize()
    assert_same_params(model, ref_updater.get_optimizer("main").target)


@pytest.mark.usefixtures("no_new_children")
def test_trainer_reports_main_observations_and_finalizes(tmp_path):
    shards = make_shards(2)
    model = L.Classifier(MLP())
    opt = optimizers.SGD(lr=0.3)
    opt.setup(model)
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in shards],
        opt,
        devices={"main": "@numpy", "second": "@numpy"},
    )
    trainer = training.Trainer(updater, (4, "iteration"), out=str(tmp_path))
    seen = []

    @training.make_extension(trigger=(1, "iteration"))
    def record(tr):
        seen.append(sorted(tr.observation))

    trainer.extend(record)
    trainer.run()
    assert seen == [["main/accuracy", "main/loss"]] * 4
    assert updater.iteration == 4
    # run() finalized the updater: no worker is left.
    assert not new_children()


@pytest.mark.usefixtures("no_new_children")
@pytest.mark.parametrize("load_into_running", [False, True])
def test_serialize_round_trip(tmp_path, load_into_running):
    path = str(tmp_path / "updater.npz")
    model = L.Classifier(MLP())
    updater, ref_updater = make_updaters(2, 4, model, optimizers.MomentumSGD, lr=0.1)
    updater2, _ = make_updaters(
        2, 4, L.Classifier(MLP()), optimizers.MomentumSGD, lr=0.1
    )
    try:
        for _ in range(2):
            updater.update()
        serializers.save_npz(path, updater)  # workers running: states fetched
        if load_into_running:
            updater2.update()
        serializers.load_npz(path, updater2)
        assert updater2.iteration == 2
        for _ in range(3):
            updater2.update()
    finally:
        updater.finalize()
        updater2.finalize()
    for _ in range(5):
        ref_updater.update()
    assert_same_params(
        updater2.get_optimizer("main").target, ref_updater.get_optimizer("main").target
    )


@pytest.mark.usefixtures("no_new_children")
def test_serialize_after_finalize_keeps_worker_iterator_states():
    model = L.Classifier(MLP())
    updater, _ = make_updaters(2, 4, model)
    updater.update()
    updater.update()
    updater.finalize()
    target = {}
    updater.serialize(serializers.DictionarySerializer(target))
    assert target["iterator:worker_1/current_position"] == 8
    assert target["iterator:main/current_position"] == 8


def test_serialize_before_start_saves_worker_iterators():
    shards = make_shards(3)
    model = L.Classifier(MLP())
    opt = optimizers.SGD()
    opt.setup(model)
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in shards], opt, devices=["@numpy"] * 3
    )
    target = {}
    updater.serialize(serializers.DictionarySerializer(target))
    assert "iterator:main/current_position" in target
    assert "iterator:worker_1/current_position" in target
    assert "iterator:worker_2/current_position" in target
    updater.finalize()


@pytest.mark.usefixtures("no_new_children")
@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("raise", "ValueError: bad example seen by the worker"),
        ("exit", "exited unexpectedly with exit code 3"),
        ("kill", "killed by signal 9"),
    ],
)
def test_worker_failure_raises_clear_error(how, message):
    shards = make_shards(2)
    opt = optimizers.SGD()
    opt.setup(FailingInWorker(how))
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in shards], opt, devices=["@numpy", "@numpy"]
    )
    with pytest.raises(RuntimeError, match="worker process 1 .*failed") as info:
        updater.update()
    assert message in str(info.value)
    assert not new_children()
    with pytest.raises(RuntimeError, match="was finalized"):
        updater.update()
    updater.finalize()


@pytest.mark.usefixtures("no_new_children")
def test_main_process_failure_keeps_workers_in_step():
    shards = make_shards(2)
    model = FailingOnceInMain()
    opt = optimizers.SGD()
    opt.setup(model)
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in shards], opt, devices=["@numpy", "@numpy"]
    )
    try:
        updater.update()
        model.fail_next = True
        with pytest.raises(ValueError, match="main process failure"):
            updater.update()
        updater.update()
        updater.update()
    finally:
        updater.finalize()
    assert updater.iteration == 3


@pytest.mark.usefixtures("no_new_children")
def test_finalize_stops_workers_and_is_idempotent():
    shards = make_shards(3)
    opt = optimizers.SGD()
    opt.setup(L.Classifier(MLP()))
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in shards], opt, devices=["@numpy"] * 3
    )
    updater.update()
    assert len(new_children()) == 2
    updater.finalize()
    assert not new_children()
    updater.finalize()


def test_available():
    assert updaters.MultiprocessParallelUpdater.available() is True


def test_aliases():
    from chainer.training.updaters import multiprocess_parallel_updater

    assert (
        updaters.MultiprocessParallelUpdater
        is multiprocess_parallel_updater.MultiprocessParallelUpdater
    )
    assert issubclass(updaters.MultiprocessParallelUpdater, updaters.StandardUpdater)


def _optimizer():
    opt = optimizers.SGD()
    opt.setup(L.Classifier(MLP()))
    return opt


def test_devices_are_required():
    shards = make_shards(2)
    with pytest.raises(ValueError, match="needs `devices`"):
        updaters.MultiprocessParallelUpdater(
            [SerialIterator(s, 4) for s in shards], _optimizer()
        )


def test_iterator_count_must_match_devices():
    shards = make_shards(3)
    with pytest.raises(ValueError, match="3 iterator.*for 2 device"):
        updaters.MultiprocessParallelUpdater(
            [SerialIterator(s, 4) for s in shards],
            _optimizer(),
            devices=["@numpy", "@numpy"],
        )
    with pytest.raises(ValueError, match="1 iterator.*for 2 device"):
        updaters.MultiprocessParallelUpdater(
            SerialIterator(shards[0], 4), _optimizer(), devices=["@numpy", "@numpy"]
        )


def test_dataset_lengths_must_match():
    a, b = make_shards(2)
    with pytest.raises(ValueError, match=r"same length.*\[12, 11\]"):
        updaters.MultiprocessParallelUpdater(
            [SerialIterator(a, 4), SerialIterator(b[:-1], 4)],
            _optimizer(),
            devices=["@numpy", "@numpy"],
        )


def test_devices_dict_needs_main():
    shards = make_shards(2)
    with pytest.raises(KeyError, match="'main'"):
        updaters.MultiprocessParallelUpdater(
            [SerialIterator(s, 4) for s in shards],
            _optimizer(),
            devices={"a": "@numpy", "b": "@numpy"},
        )


def test_devices_of_a_bad_type():
    shards = make_shards(2)
    with pytest.raises(TypeError, match="either dict, list or tuple"):
        updaters.MultiprocessParallelUpdater(
            [SerialIterator(s, 4) for s in shards], _optimizer(), devices="@numpy"
        )


@pytest.mark.parametrize("device", [0, 1, "@cupy:0"])
def test_gpu_devices_need_chainer_cuda(device):
    shards = make_shards(2)
    with pytest.raises(RuntimeError, match="NCCL.*chainer-cuda"):
        updaters.MultiprocessParallelUpdater(
            [SerialIterator(s, 4) for s in shards],
            _optimizer(),
            devices=["@numpy", device],
        )


def test_cpu_integer_device():
    shards = make_shards(2)
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in shards], _optimizer(), devices=[-1, "@numpy"]
    )
    updater.finalize()


def test_exhausted_main_iterator():
    shards = make_shards(2)
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 12, repeat=False) for s in shards],
        _optimizer(),
        devices=["@numpy", "@numpy"],
    )
    try:
        updater.update()
        with pytest.raises(RuntimeError, match="exhausted"):
            updater.update()
    finally:
        updater.finalize()


@pytest.fixture
def spawn_start_method():
    previous = multiprocessing.get_start_method(allow_none=True)
    multiprocessing.set_start_method("spawn", force=True)
    yield
    multiprocessing.set_start_method(previous, force=True)


@pytest.mark.usefixtures("spawn_start_method", "no_new_children")
def test_spawn_start_method_gives_the_same_result():
    model = L.Classifier(L.Linear(N_IN, 3))
    updater, ref_updater = make_updaters(2, 4, model, lr=0.3)
    try:
        for _ in range(4):
            updater.update()
            ref_updater.update()
    finally:
        updater.finalize()
    assert_same_params(model, ref_updater.get_optimizer("main").target)


@pytest.mark.usefixtures("spawn_start_method", "no_new_children")
def test_spawn_refuses_unpicklable_models_clearly():
    model = L.Classifier(L.Linear(N_IN, 3))
    model.hook = lambda x: x  # lambdas cannot be pickled
    opt = optimizers.SGD()
    opt.setup(model)
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in make_shards(2)],
        opt,
        devices=["@numpy", "@numpy"],
    )
    with pytest.raises(RuntimeError, match="'spawn' start method.*picklable"):
        updater.update()
    updater.finalize()
