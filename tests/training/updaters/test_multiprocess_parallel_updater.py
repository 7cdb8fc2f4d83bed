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

N_IN = 5  # inputs of the examples that make_dataset (conftest) gives
SHARD = 12  # examples per process and epoch


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


@pytest.fixture
def make_shards(make_dataset):
    """``make_shards(n_proc, length=SHARD)``: one dataset per process."""

    def make(n_proc, length=SHARD):
        examples = make_dataset(n_proc * length)
        return [examples[i * length : (i + 1) * length] for i in range(n_proc)]

    return make


def combined_dataset(shards, batch_size):
    """Orders the examples so that a batch of n * batch_size is every shard's."""
    combined = []
    for start in range(0, len(shards[0]), batch_size):
        for shard in shards:
            combined.extend(shard[start : start + batch_size])
    return combined


@pytest.fixture
def make_updaters(make_shards, make_pair):
    """``make_updaters(n_proc, batch_size, model, optimizer_class=SGD, **kw)``.

    Returns a MultiprocessParallelUpdater training ``model`` on ``n_proc``
    shards, and a StandardUpdater training a copy of it on their combined
    batches.
    """

    def make(n_proc, batch_size, model, optimizer_class=optimizers.SGD, **kw):
        shards = make_shards(n_proc)
        (model, opt), (_, ref_opt) = make_pair(model, optimizer_class, **kw)
        updater = updaters.MultiprocessParallelUpdater(
            [SerialIterator(s, batch_size, shuffle=False) for s in shards],
            opt,
            devices=["@numpy"] * n_proc,
        )
        ref_updater = updaters.StandardUpdater(
            SerialIterator(
                combined_dataset(shards, batch_size),
                n_proc * batch_size,
                shuffle=False,
            ),
            ref_opt,
        )
        return updater, ref_updater

    return make


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
    n_proc, optimizer_class, kwargs, make_classifier, make_updaters, update_side_by_side
):
    updater, ref_updater = make_updaters(
        n_proc, 4, make_classifier(), optimizer_class, **kwargs
    )
    # Crosses the end of the first epoch (3 batches).
    update_side_by_side(updater, ref_updater, 7)
    assert updater.iteration == 7
    assert updater.epoch == ref_updater.epoch == 2
    assert updater.get_optimizer("main").epoch == 2


@pytest.mark.usefixtures("no_new_children")
def test_lazily_initialized_parameters(make_updaters, update_side_by_side):
    model = L.Classifier(L.Linear(None, 3))
    updater, ref_updater = make_updaters(2, 4, model, lr=0.3)
    try:
        numpy.random.seed(5)
        updater.update()
        numpy.random.seed(5)
        ref_updater.update()
    except BaseException:
        updater.finalize()
        raise
    update_side_by_side(updater, ref_updater, 3)


@pytest.mark.usefixtures("no_new_children")
def test_worker_iterators_may_start_processes(
    make_classifier, make_shards, make_pair, update_side_by_side
):
    # As in Chainer's ImageNet example: a MultiprocessIterator per device.
    shards = make_shards(2)
    (_, opt), (_, ref_opt) = make_pair(make_classifier(), lr=0.3)
    updater = updaters.MultiprocessParallelUpdater(
        [MultiprocessIterator(s, 4, shuffle=False, n_processes=2) for s in shards],
        opt,
        devices=["@numpy", "@numpy"],
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(combined_dataset(shards, 4), 8, shuffle=False), ref_opt
    )
    update_side_by_side(updater, ref_updater, 4)


@pytest.mark.usefixtures("no_new_children")
def test_trainer_reports_main_observations_and_finalizes(
    tmp_path, make_shards, optimizer
):
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in make_shards(2)],
        optimizer,
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
def test_serialize_round_trip(
    tmp_path, load_into_running, make_classifier, make_updaters, assert_same_params
):
    path = str(tmp_path / "updater.npz")
    updater, ref_updater = make_updaters(
        2, 4, make_classifier(), optimizers.MomentumSGD, lr=0.1
    )
    updater2, _ = make_updaters(2, 4, make_classifier(), optimizers.MomentumSGD, lr=0.1)
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
def test_serialize_after_finalize_keeps_worker_iterator_states(
    make_classifier, make_updaters
):
    updater, _ = make_updaters(2, 4, make_classifier())
    updater.update()
    updater.update()
    updater.finalize()
    target = {}
    updater.serialize(serializers.DictionarySerializer(target))
    assert target["iterator:worker_1/current_position"] == 8
    assert target["iterator:main/current_position"] == 8


def test_serialize_before_start_saves_worker_iterators(make_shards, optimizer):
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in make_shards(3)],
        optimizer,
        devices=["@numpy"] * 3,
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
def test_worker_failure_raises_clear_error(how, message, make_shards):
    opt = optimizers.SGD()
    opt.setup(FailingInWorker(how))
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in make_shards(2)],
        opt,
        devices=["@numpy", "@numpy"],
    )
    with pytest.raises(RuntimeError, match="worker process 1 .*failed") as info:
        updater.update()
    assert message in str(info.value)
    assert not new_children()
    with pytest.raises(RuntimeError, match="was finalized"):
        updater.update()
    updater.finalize()


@pytest.mark.usefixtures("no_new_children")
def test_main_process_failure_keeps_workers_in_step(make_shards):
    model = FailingOnceInMain()
    opt = optimizers.SGD()
    opt.setup(model)
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in make_shards(2)],
        opt,
        devices=["@numpy", "@numpy"],
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
def test_finalize_stops_workers_and_is_idempotent(make_shards, optimizer):
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in make_shards(3)],
        optimizer,
        devices=["@numpy"] * 3,
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


@pytest.mark.parametrize(
    ("n_shards", "devices", "error", "match"),
    [
        pytest.param(2, None, ValueError, "needs `devices`", id="no-devices"),
        pytest.param(
            3,
            ["@numpy", "@numpy"],
            ValueError,
            "3 iterator.*for 2 device",
            id="more-iterators-than-devices",
        ),
        pytest.param(
            2,
            {"a": "@numpy", "b": "@numpy"},
            KeyError,
            "'main'",
            id="devices-dict-without-main",
        ),
        pytest.param(
            2, "@numpy", TypeError, "either dict, list or tuple", id="devices-a-str"
        ),
        *(
            pytest.param(
                2,
                ["@numpy", device],
                RuntimeError,
                "chainer-cuda",
                id=f"gpu-device-{device}",
            )
            for device in (0, 1, "@cupy:0")
        ),
    ],
)
def test_bad_devices(n_shards, devices, error, match, make_shards, optimizer):
    with pytest.raises(error, match=match):
        updaters.MultiprocessParallelUpdater(
            [SerialIterator(s, 4) for s in make_shards(n_shards)],
            optimizer,
            devices=devices,
        )


def test_a_single_iterator_for_two_devices(make_shards, optimizer):
    with pytest.raises(ValueError, match="1 iterator.*for 2 device"):
        updaters.MultiprocessParallelUpdater(
            SerialIterator(make_shards(1)[0], 4),
            optimizer,
            devices=["@numpy", "@numpy"],
        )


def test_dataset_lengths_must_match(make_shards, optimizer):
    a, b = make_shards(2)
    with pytest.raises(ValueError, match=r"same length.*\[12, 11\]"):
        updaters.MultiprocessParallelUpdater(
            [SerialIterator(a, 4), SerialIterator(b[:-1], 4)],
            optimizer,
            devices=["@numpy", "@numpy"],
        )


def test_cpu_integer_device(make_shards, optimizer):
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 4) for s in make_shards(2)],
        optimizer,
        devices=[-1, "@numpy"],
    )
    updater.finalize()


def test_exhausted_main_iterator(make_shards, optimizer):
    updater = updaters.MultiprocessParallelUpdater(
        [SerialIterator(s, 12, repeat=False) for s in make_shards(2)],
        optimizer,
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
def test_spawn_start_method_gives_the_same_result(make_updaters, update_side_by_side):
    updater, ref_updater = make_updaters(2, 4, L.Classifier(L.Linear(N_IN, 3)), lr=0.3)
    update_side_by_side(updater, ref_updater, 4)


@pytest.mark.usefixtures("spawn_start_method", "no_new_children")
def test_spawn_refuses_unpicklable_models_clearly(make_shards):
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


@pytest.mark.parametrize("fn", ["gather_grads", "gather_params"])
def test_gather_raises_on_cpu(fn):
    from chainer.training.updaters import multiprocess_parallel_updater as mpu

    with pytest.raises(RuntimeError, match=f"{fn} works only on a GPU"):
        getattr(mpu, fn)(L.Linear(3, 2))


def test_gather_and_scatter_round_trip():
    # The xp-generic core of gather_*/scatter_* (GPU only in public), run on
    # NumPy arrays: sorted parameter names, float32, zeros for no gradient.
    from chainer.training.updaters import multiprocess_parallel_updater as mpu

    source = chainer.Sequential(L.Linear(3, 2), L.Linear(2, 4))
    source.cleargrads()
    names = [name for name, _ in sorted(source.namedparams())]
    params = dict(source.namedparams())
    flat = mpu._gather(source, "data")
    assert flat.dtype == numpy.float32
    expected = numpy.concatenate([params[n].array.ravel() for n in names])
    numpy.testing.assert_array_equal(flat, expected)
    assert not mpu._gather(source, "grad").any()

    target = chainer.Sequential(L.Linear(3, 2), L.Linear(2, 4))
    target.cleargrads()
    mpu.scatter_params(target, flat)
    for name, param in target.namedparams():
        numpy.testing.assert_array_equal(param.array, params[name].array)
    mpu.scatter_grads(target, flat * 2)
    for name, param in target.namedparams():
        numpy.testing.assert_array_equal(param.grad, params[name].array * 2)
    with pytest.raises(ValueError, match="flat with 20 elements"):
        mpu.scatter_grads(target, flat[:-1])
