import io
import os
import sys

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import iterators
from chainer import optimizers
from chainer import serializers
from chainer import testing
from chainer import training
from chainer.training import extension as extension_module


def _separable(n=200, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(n, 4).astype(numpy.float32)
    t = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(numpy.int32)
    return list(zip(x, t, strict=True))


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 16)
            self.l2 = L.Linear(16, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _make_trainer(stop=(3, "epoch"), out="result", n=60, batch=10, lr=0.1):
    model = L.Classifier(MLP())
    optimizer = optimizers.SGD(lr).setup(model)
    it = iterators.SerialIterator(_separable(n), batch, shuffle=False)
    updater = training.updaters.StandardUpdater(it, optimizer)
    return training.Trainer(updater, stop, out=out), model


def test_mlp_reaches_accuracy(tmp_path):
    model = L.Classifier(MLP())
    optimizer = optimizers.Adam(alpha=0.01).setup(model)
    train = iterators.SerialIterator(_separable(200), 20)
    updater = training.StandardUpdater(train, optimizer)
    trainer = training.Trainer(updater, (15, "epoch"), out=str(tmp_path))
    accuracies = []

    @training.make_extension(trigger=(1, "epoch"))
    def record(trainer):
        accuracies.append(float(trainer.observation["main/accuracy"].array))

    trainer.extend(record)
    trainer.run()
    assert len(accuracies) == 15
    assert updater.iteration == 150
    assert updater.epoch == 15
    test = _separable(200, seed=1)
    x = numpy.stack([example[0] for example in test])
    t = numpy.array([example[1] for example in test])
    with chainer.using_config("train", False):
        y = model.predictor(x).array
    # 0.99 with these seeds; the bound leaves room for BLAS rounding.
    assert (y.argmax(axis=1) == t).mean() >= 0.95


def test_observation_keys_and_observers(tmp_path):
    trainer, model = _make_trainer(stop=(1, "iteration"), out=str(tmp_path))
    seen = {}

    def report_child(trainer):
        chainer.report({"value": 1.0}, model.predictor.l1)

    def grab(trainer):
        seen.update(trainer.observation)

    trainer.extend(report_child, priority=training.PRIORITY_WRITER)
    trainer.extend(grab)
    trainer.run()
    assert {"main/loss", "main/accuracy", "main/predictor/l1/value"} <= set(seen)
    assert "epoch" not in seen
    assert "iteration" not in seen
    assert trainer.observation is not seen


def test_extensions_run_in_priority_order():
    trainer = testing.get_trainer_with_mock_updater((2, "iteration"))
    calls = []

    def make(tag):
        return lambda trainer: calls.append((trainer.updater.iteration, tag))

    trainer.extend(make("reader1"), name="r1", priority=training.PRIORITY_READER)
    trainer.extend(make("writer"), name="w", priority=training.PRIORITY_WRITER)
    trainer.extend(make("reader2"), name="r2", priority=training.PRIORITY_READER)
    trainer.extend(make("editor"), name="e", priority=training.PRIORITY_EDITOR)
    trainer.run()
    tags = ["writer", "editor", "reader1", "reader2"]
    assert calls == [(1, tag) for tag in tags] + [(2, tag) for tag in tags]


def test_extension_attributes_are_defaults():
    class Ext(training.Extension):
        trigger = 2, "iteration"
        priority = training.PRIORITY_WRITER

        def __call__(self, trainer):
            calls.append(trainer.updater.iteration)

    calls = []
    trainer = testing.get_trainer_with_mock_updater((6, "iteration"))
    trainer.extend(Ext())
    trainer.extend(Ext(), trigger=(3, "iteration"))
    trainer.run()
    assert calls == [2, 3, 4, 6, 6]


def test_name_collisions_get_ordinals():
    trainer = testing.get_trainer_with_mock_updater()

    class Ext(training.Extension):
        def __call__(self, trainer):
            pass

    exts = [Ext(), Ext(), Ext()]
    for ext in exts:
        trainer.extend(ext)
    assert [ext.name for ext in exts] == ["Ext", "Ext_1", "Ext_2"]
    assert trainer.get_extension("Ext_2") is exts[2]

    def fn(trainer):
        pass

    trainer.extend(fn)
    assert trainer.get_extension("fn") is fn
    trainer.extend(lambda t: None, name="fn")
    assert trainer.get_extension("fn_1").name == "fn_1"


def test_get_extension_unknown_name():
    trainer = testing.get_trainer_with_mock_updater()
    trainer.extend(lambda t: None, name="known")
    with pytest.raises(KeyError, match="'missing' not found.*'known'"):
        trainer.get_extension("missing")
    # Chainer 7 raised ValueError; code catching it keeps working.
    with pytest.raises(ValueError):
        trainer.get_extension("missing")


def test_extend_bad_inputs():
    trainer = testing.get_trainer_with_mock_updater()
    with pytest.raises(TypeError, match="must be callable"):
        trainer.extend(42)
    with pytest.raises(ValueError, match="unknown trigger unit 'epochs'"):
        trainer.extend(lambda t: None, trigger=(1, "epochs"))
    with pytest.raises(ValueError, match="prohibited"):
        trainer.extend(lambda t: None, name="training")
    with pytest.raises(ValueError, match="invoke_before_training"):
        trainer.extend(lambda t: None, invoke_before_training=True)
    with pytest.raises(TypeError, match="'bogus'"):
        trainer.extend(lambda t: None, bogus=1)
    with pytest.raises(TypeError, match="name must be a str"):
        trainer.extend(lambda t: None, name=3)


def test_extension_whose_own_name_is_not_a_str():
    # A mock of an extension carries a mock as its name: it is keyed by the
    # text of that name, as Chainer keys it by the object.
    trainer = testing.get_trainer_with_mock_updater()

    class Named:
        name = 7

        def __call__(self, trainer):
            pass

    ext = Named()
    trainer.extend(ext)
    assert ext.name == "7"
    assert trainer.get_extension("7") is ext


def test_extensions_argument_of_constructor():
    calls = []
    trainer = testing.get_trainer_with_mock_updater(
        (2, "iteration"), extensions=[lambda t: calls.append(1)]
    )
    trainer.run()
    assert calls == [1, 1]


def test_lifecycle_order():
    events = []

    class Ext(training.Extension):
        trigger = 1, "iteration"

        def initialize(self, trainer):
            events.append(("initialize", trainer.updater.iteration))

        def __call__(self, trainer):
            events.append(("call", trainer.updater.iteration))

        def finalize(self):
            events.append(("finalize",))

        def on_error(self, trainer, exc, tb):
            events.append(("on_error",))

    trainer = testing.get_trainer_with_mock_updater((2, "iteration"))
    trainer.extend(Ext(), call_before_training=True)
    assert trainer.is_before_training
    trainer.run()
    assert not trainer.is_before_training
    assert events == [
        ("initialize", 0),
        ("call", 0),
        ("call", 1),
        ("call", 2),
        ("finalize",),
    ]
    trainer.updater.finalize.assert_called_once_with()


def test_make_extension_hooks_are_called():
    events = []

    @training.make_extension(
        initializer=lambda trainer: events.append("init"),
        finalizer=lambda: events.append("fin"),
    )
    def ext(trainer):
        events.append("call")

    trainer = testing.get_trainer_with_mock_updater((1, "iteration"))
    trainer.extend(ext)
    trainer.run()
    assert events == ["init", "call", "fin"]


def test_error_calls_handlers_then_reraises(capsys):
    events = []

    class Failing(training.Extension):
        def __call__(self, trainer):
            if trainer.updater.iteration == 2:
                raise ZeroDivisionError("boom")

        def on_error(self, trainer, exc, tb):
            events.append(("on_error", type(exc).__name__, tb is not None))

        def finalize(self):
            events.append(("finalize",))

    def bad_handler(trainer, exc, tb):
        raise RuntimeError("handler broke")

    other = training.make_extension(on_error=bad_handler)(lambda t: None)
    trainer = testing.get_trainer_with_mock_updater((5, "iteration"))
    trainer.extend(Failing())
    trainer.extend(other, name="other")
    with pytest.raises(ZeroDivisionError, match="boom"):
        trainer.run()
    assert events == [("on_error", "ZeroDivisionError", True), ("finalize",)]
    err = capsys.readouterr().err
    assert "Exception in main training loop: boom" in err
    assert "Exception in error handler: handler broke" in err
    trainer.updater.finalize.assert_called_once_with()


def test_error_message_can_be_silenced(capsys):
    def fail(trainer):
        raise ValueError("quiet")

    trainer = testing.get_trainer_with_mock_updater((5, "iteration"))
    trainer.extend(fail)
    with pytest.raises(ValueError, match="quiet"):
        trainer.run(show_loop_exception_msg=False)
    assert capsys.readouterr().err == ""


def test_initializer_skipped_when_trigger_finished():
    events = []

    @training.make_extension(initializer=lambda t: events.append("init"))
    def ext(trainer):
        events.append("call")

    trigger = training.triggers.OnceTrigger()
    trigger(None)  # as if loaded from a snapshot where it already fired
    trainer = testing.get_trainer_with_mock_updater((2, "iteration"))
    trainer.extend(ext, trigger=trigger)
    trainer.run()
    assert events == []


def test_run_twice_and_elapsed_time():
    trainer = testing.get_trainer_with_mock_updater((2, "iteration"))
    with pytest.raises(RuntimeError, match="elapsed_time"):
        trainer.elapsed_time  # noqa: B018
    trainer.run()
    elapsed = trainer.elapsed_time
    assert elapsed >= 0
    assert trainer.elapsed_time == elapsed
    with pytest.raises(RuntimeError, match="twice"):
        trainer.run()


def test_out_directory(tmp_path):
    out = tmp_path / "a" / "b"
    trainer = testing.get_trainer_with_mock_updater((1, "iteration"))
    trainer.out = str(out)
    trainer.run()
    assert out.is_dir()

    blocker = tmp_path / "file"
    blocker.write_text("x")
    trainer = testing.get_trainer_with_mock_updater((1, "iteration"))
    trainer.out = str(blocker)
    with pytest.raises(FileExistsError, match="output directory"):
        trainer.run()


def test_stop_trigger_callable_and_none():
    trainer = testing.get_trainer_with_mock_updater(lambda t: t.updater.iteration >= 3)
    trainer.run()
    assert trainer.updater.iteration == 3
    trainer = testing.get_trainer_with_mock_updater(None)
    assert trainer.stop_trigger(trainer) is False


def _extend_recorders(trainer):
    """Adds extensions of three kinds of triggers; returns their firing log."""
    log = []
    trainer.extend(
        lambda t: log.append(("half", t.updater.iteration)),
        name="half",
        trigger=(0.5, "epoch"),
    )
    trainer.extend(
        lambda t: log.append(("every3", t.updater.iteration)),
        name="every3",
        trigger=(3, "iteration"),
    )
    trainer.extend(
        lambda t: log.append(("manual", t.updater.iteration)),
        name="manual",
        trigger=training.triggers.ManualScheduleTrigger([1.2, 2.5], "epoch"),
    )
    return log


def _run_with_snapshot(tmp_path, stop, snapshot_at):
    """Runs a trainer, saving it at iteration snapshot_at; returns the log."""
    trainer, _ = _make_trainer(stop=stop, out=str(tmp_path), n=25, batch=4)
    log = _extend_recorders(trainer)
    path = os.path.join(str(tmp_path), "snapshot.npz")

    def save(t):
        if t.updater.iteration == snapshot_at:
            serializers.save_npz(path, t)

    trainer.extend(save, name="save", priority=-100)
    trainer.run()
    return log, path


def test_resume_fires_like_uninterrupted_run(tmp_path):
    full, path = _run_with_snapshot(tmp_path, (4, "epoch"), snapshot_at=11)
    assert ("half", 4) in full
    assert [e for e in full if e[0] == "manual"] == [("manual", 8), ("manual", 16)]

    trainer, _ = _make_trainer(stop=(4, "epoch"), out=str(tmp_path), n=25, batch=4)
    log = _extend_recorders(trainer)
    trainer.extend(lambda t: None, name="save", priority=-100)
    serializers.load_npz(path, trainer)
    assert trainer.updater.iteration == 11
    trainer.run()
    assert log == [e for e in full if e[1] > 11]


def test_serialize_round_trip_with_dictionary_serializer():
    class Counter(training.Extension):
        def __init__(self):
            self.count = 0

        def __call__(self, trainer):
            self.count += 1

        def serialize(self, serializer):
            self.count = serializer("count", self.count)

    trainer = testing.get_trainer_with_mock_updater((3, "iteration"))
    trainer.updater.serialize = lambda s: None
    trainer.extend(Counter())
    trainer.run()
    saver = serializers.DictionarySerializer()
    saver.save(trainer)
    assert saver.target["extensions/Counter/count"] == 3
    assert float(saver.target["_snapshot_elapsed_time"]) == trainer.elapsed_time

    restored = testing.get_trainer_with_mock_updater((3, "iteration"))
    restored.updater.serialize = lambda s: None
    counter = Counter()
    restored.extend(counter)
    serializers.NpzDeserializer(saver.target).load(restored)
    assert counter.count == 3
    restored.run()
    # The resumed elapsed time includes the time before the snapshot.
    assert restored.elapsed_time >= trainer.elapsed_time


def test_serialize_before_run_does_not_raise():
    trainer = testing.get_trainer_with_mock_updater()
    trainer.updater.serialize = lambda s: None
    saver = serializers.DictionarySerializer()
    saver.save(trainer)
    assert float(saver.target["_snapshot_elapsed_time"]) == 0.0


def test_priority_constants():
    assert training.PRIORITY_WRITER == extension_module.PRIORITY_WRITER == 300
    assert training.PRIORITY_EDITOR == extension_module.PRIORITY_EDITOR == 200
    assert training.PRIORITY_READER == extension_module.PRIORITY_READER == 100


def test_exhausted_iterator_gives_clear_error(tmp_path):
    model = L.Classifier(MLP())
    optimizer = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(_separable(8), 4, repeat=False)
    updater = training.StandardUpdater(it, optimizer)
    trainer = training.Trainer(updater, (5, "epoch"), out=str(tmp_path))
    stderr = sys.stderr
    sys.stderr = io.StringIO()
    try:
        with pytest.raises(RuntimeError, match="exhausted"):
            trainer.run()
    finally:
        sys.stderr = stderr


def test_optimizer_without_target_is_a_clear_error(tmp_path):
    optimizer = optimizers.SGD()
    it = iterators.SerialIterator(_separable(8), 4)
    updater = training.StandardUpdater(it, optimizer)
    with pytest.raises(ValueError, match=r"optimizer 'main' has no target link"):
        training.Trainer(updater, (1, "epoch"), out=str(tmp_path))


def test_failing_finalizer_does_not_skip_the_others(capsys):
    finalized = []

    def fail():
        raise OSError("cannot close")

    first = training.make_extension(finalizer=fail)(lambda t: None)
    second = training.make_extension(finalizer=lambda: finalized.append(1))(
        lambda t: None
    )
    trainer = testing.get_trainer_with_mock_updater((1, "iteration"))
    trainer.extend(first, name="first", priority=300)
    trainer.extend(second, name="second")
    with pytest.raises(OSError, match="cannot close"):
        trainer.run()
    assert finalized == [1]
    trainer.updater.finalize.assert_called_once_with()

    # While the loop's own error propagates, a finalizer's error is printed.
    def boom(trainer):
        raise ValueError("loop error")

    trainer = testing.get_trainer_with_mock_updater((1, "iteration"))
    trainer.extend(training.make_extension(finalizer=fail)(boom), name="boom")
    with pytest.raises(ValueError, match="loop error"):
        trainer.run(show_loop_exception_msg=False)
    assert "Exception in finalizer: OSError('cannot close')" in capsys.readouterr().err
