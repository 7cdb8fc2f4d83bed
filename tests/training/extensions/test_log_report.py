import functools
import io
import json
import os

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import iterators
from chainer import optimizers
from chainer import serializers
from chainer import training
from chainer.training import extensions


def _values(i):
    return {"loss": float(i), "acc": numpy.float32(i * 10)}


@pytest.fixture
def make_trainer(mock_trainer):
    """``mock_trainer`` reporting ``_values``, 2 epochs of 4 iterations."""
    return functools.partial(
        mock_trainer, stop=(2, "epoch"), iter_per_epoch=4, values=_values
    )


def _strip_time(log):
    return [{k: v for k, v in e.items() if k != "elapsed_time"} for e in log]


def test_log_entries_are_means_per_epoch(make_trainer):
    trainer = make_trainer()
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.run()
    log = log_report.log
    assert _strip_time(log) == [
        {"loss": 2.5, "acc": 25.0, "epoch": 1, "iteration": 4},
        {"loss": 6.5, "acc": 65.0, "epoch": 2, "iteration": 8},
    ]
    assert list(log[0]) == ["loss", "acc", "epoch", "iteration", "elapsed_time"]
    assert all(type(log[0][k]) is float for k in ("loss", "acc", "elapsed_time"))
    assert all(type(log[0][k]) is int for k in ("epoch", "iteration"))
    assert 0 <= log[0]["elapsed_time"] <= log[1]["elapsed_time"]


def test_log_file_is_json_of_whole_log(tmp_path, make_trainer):
    trainer = make_trainer()
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.run()
    with open(tmp_path / "log") as f:
        assert json.load(f) == log_report.log
    assert sorted(os.listdir(tmp_path)) == ["log"]  # no temporary file left


def test_iteration_trigger(make_trainer):
    trainer = make_trainer(stop=(6, "iteration"))
    log_report = extensions.LogReport(trigger=(3, "iteration"))
    trainer.extend(log_report)
    trainer.run()
    assert [e["loss"] for e in log_report.log] == [2.0, 5.0]
    assert [e["iteration"] for e in log_report.log] == [3, 6]


def _report_before_training(values):
    # An extension reporting ``values`` only when called before training.
    @training.make_extension(priority=training.PRIORITY_WRITER)
    def report(trainer):
        if trainer.is_before_training:
            chainer.report(values)

    return report


def test_call_before_training_writes_an_entry_of_its_own(make_trainer):
    # Chainer 7: an entry at iteration 0 (e.g. the initial validation
    # results), not mixed into the first epoch's means.
    trainer = make_trainer()
    trainer.extend(_report_before_training({"val": 7.0}), call_before_training=True)
    log_report = extensions.LogReport()
    trainer.extend(log_report, call_before_training=True)
    trainer.run()
    assert _strip_time(log_report.log) == [
        {"val": 7.0, "epoch": 0, "iteration": 0},
        {"loss": 2.5, "acc": 25.0, "epoch": 1, "iteration": 4},
        {"loss": 6.5, "acc": 65.0, "epoch": 2, "iteration": 8},
    ]


def test_keys_select_values(make_trainer):
    trainer = make_trainer()
    log_report = extensions.LogReport(keys=["acc", "absent"])
    trainer.extend(log_report)
    trainer.run()
    assert set(log_report.log[0]) == {"acc", "epoch", "iteration", "elapsed_time"}


def test_postprocess_may_add_keys(tmp_path, make_trainer):
    trainer = make_trainer()

    def postprocess(entry):
        entry["double"] = entry["loss"] * 2

    log_report = extensions.LogReport(postprocess=postprocess)
    trainer.extend(log_report)
    trainer.run()
    assert [e["double"] for e in log_report.log] == [5.0, 13.0]
    with open(tmp_path / "log") as f:
        assert json.load(f)[1]["double"] == 13.0


def test_variables_and_non_scalars(make_trainer):
    def values(i):
        return {
            "v": chainer.Variable(numpy.array(i, dtype=numpy.float32)),
            "vector": numpy.arange(3),
            "text": "ignored",
        }

    trainer = make_trainer(values=values)
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.run()
    assert log_report.log[0]["v"] == 2.5
    assert "vector" not in log_report.log[0]
    assert "text" not in log_report.log[0]


def test_filename_is_formatted_with_the_entry(tmp_path, make_trainer):
    trainer = make_trainer()
    trainer.extend(extensions.LogReport(filename="log_{epoch}.json"))
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ["log_1.json", "log_2.json"]
    with open(tmp_path / "log_1.json") as f:
        assert len(json.load(f)) == 1


def test_log_name_keyword_of_chainer7(tmp_path, make_trainer):
    trainer = make_trainer()
    trainer.extend(extensions.LogReport(log_name="my_log"))
    trainer.run()
    assert os.listdir(tmp_path) == ["my_log"]


def test_log_name_none_disables_the_file(tmp_path, make_trainer):
    trainer = make_trainer()
    log_report = extensions.LogReport(log_name=None)
    trainer.extend(log_report)
    trainer.run()
    assert os.listdir(tmp_path) == []
    assert len(log_report.log) == 2


def test_bad_inputs():
    with pytest.raises(TypeError, match="'log_nam'"):
        extensions.LogReport(log_nam="x")
    with pytest.raises(TypeError, match="keys"):
        extensions.LogReport(keys="main/loss")
    with pytest.raises(TypeError, match="postprocess"):
        extensions.LogReport(postprocess=3)
    with pytest.raises(ValueError, match="epochs"):
        extensions.LogReport(trigger=(1, "epochs"))


def test_bad_filename_format(make_trainer):
    trainer = make_trainer()
    trainer.extend(extensions.LogReport(filename="log_{nokey}"))
    with pytest.raises(ValueError, match="log_{nokey}"):
        trainer.run(show_loop_exception_msg=False)


def test_default_attributes():
    ext = extensions.LogReport()
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER
    assert ext.default_name == "LogReport"


def test_resume_continues_the_log(tmp_path, make_trainer):
    # An uninterrupted run of 10 iterations, logging every 4.
    full = make_trainer(out=tmp_path / "full", stop=(10, "iteration"))
    full_log = extensions.LogReport(trigger=(4, "iteration"))
    full.extend(full_log)
    full.run()

    # The same run interrupted after iteration 6 (in the middle of a window).
    first = make_trainer(out=tmp_path / "resumed", stop=(6, "iteration"))
    first_log = extensions.LogReport(trigger=(4, "iteration"))
    first.extend(first_log)
    first.run()
    serializers.save_npz(tmp_path / "state.npz", first_log)

    second = make_trainer(out=tmp_path / "resumed", stop=(10, "iteration"))
    second.updater.iteration = 6
    second_log = extensions.LogReport(trigger=(4, "iteration"))
    serializers.load_npz(tmp_path / "state.npz", second_log)
    second.extend(second_log)
    second.run()

    assert _strip_time(second_log.log) == _strip_time(full_log.log)
    with open(tmp_path / "resumed" / "log") as f:
        assert _strip_time(json.load(f)) == _strip_time(full_log.log)


def _real_trainer(out, stop):
    rng = numpy.random.RandomState(0)
    data = [(rng.randn(3).astype(numpy.float32), numpy.int32(i % 2)) for i in range(12)]
    model = L.Classifier(L.Linear(3, 2))
    model.predictor.W.array[...] = numpy.linspace(-1, 1, 6).reshape(2, 3)
    optimizer = optimizers.SGD(0.1).setup(model)
    it = iterators.SerialIterator(data, 4, shuffle=False)
    updater = training.updaters.StandardUpdater(it, optimizer)
    trainer = training.Trainer(updater, stop, out=str(out))
    trainer.extend(extensions.LogReport(trigger=(2, "iteration")))
    trainer.extend(
        extensions.PrintReport(["iteration", "main/loss"], out=io.StringIO())
    )
    trainer.extend(extensions.MicroAverage("main/loss", "main/accuracy", "ratio"))
    trainer.extend(extensions.ParameterStatistics(model, statistics={"max": numpy.max}))
    trainer.extend(extensions.DumpGraph("main/loss"))
    return trainer


def test_trainer_snapshot_resumes_the_log(tmp_path):
    full = _real_trainer(tmp_path / "full", (9, "iteration"))
    full.run()

    first = _real_trainer(tmp_path / "resumed", (5, "iteration"))
    first.run()
    serializers.save_npz(tmp_path / "snapshot.npz", first)
    second = _real_trainer(tmp_path / "resumed", (9, "iteration"))
    serializers.load_npz(tmp_path / "snapshot.npz", second)
    second.run()

    expected = _strip_time(full.get_extension("LogReport").log)
    resumed = _strip_time(second.get_extension("LogReport").log)
    assert [e["iteration"] for e in resumed] == [2, 4, 6, 8]
    assert len(resumed) == len(expected)
    for got, want in zip(resumed, expected, strict=True):
        assert got.keys() == want.keys()
        for key in want:
            assert got[key] == pytest.approx(want[key], rel=1e-5), key
