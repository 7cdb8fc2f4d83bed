import numpy
import pytest

import chainer
import chainer.links as L
from chainer import serializers
from chainer import testing
from chainer import training
from chainer.training import extensions

STATS = [
    "mean",
    "std",
    "min",
    "max",
    "zeros",
    *(f"percentile/{i}" for i in range(7)),
]


def _model():
    model = L.Classifier(L.Linear(3, 2))
    model.predictor.W.array[...] = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    model.predictor.b.array[...] = 0
    model.cleargrads()
    model.predictor.W.grad = numpy.full((2, 3), 2, dtype=numpy.float32)
    model.predictor.b.grad = numpy.ones(2, dtype=numpy.float32)
    return model


def _run(ext, stop=(1, "epoch"), iter_per_epoch=2):
    trainer = testing.get_trainer_with_mock_updater(stop, iter_per_epoch)
    trainer.extend(ext)
    observations = []

    @training.make_extension(priority=training.PRIORITY_READER)
    def record(trainer):
        observations.append(dict(trainer.observation))

    trainer.extend(record)
    trainer.run()
    return observations


def test_keys_as_chainer():
    observations = _run(extensions.ParameterStatistics(_model()))
    keys = set(observations[-1])
    # The root link has no name: Chainer names it 'None'.
    expected = {
        f"None/predictor/{p}/{a}/{s}"
        for p in ("W", "b")
        for a in ("data", "grad")
        for s in STATS
    }
    assert keys == expected


def test_named_link_and_prefix():
    model = _model()
    observations = _run(extensions.ParameterStatistics(model.predictor, prefix="pp"))
    assert "pp/predictor/W/data/mean" in observations[-1]
    assert "pp/predictor/b/grad/percentile/6" in observations[-1]


def test_values():
    obs = _run(extensions.ParameterStatistics(_model()))[-1]
    w = numpy.arange(6)
    assert obs["None/predictor/W/data/mean"] == pytest.approx(2.5)
    assert obs["None/predictor/W/data/std"] == pytest.approx(w.std())
    assert obs["None/predictor/W/data/min"] == 0
    assert obs["None/predictor/W/data/max"] == 5
    assert obs["None/predictor/W/data/zeros"] == 1
    assert obs["None/predictor/b/data/zeros"] == 2
    assert obs["None/predictor/W/grad/mean"] == 2
    assert obs["None/predictor/W/data/percentile/3"] == pytest.approx(2.5)
    assert obs["None/predictor/W/data/percentile/0"] == pytest.approx(
        numpy.percentile(w, 0.13)
    )


def test_reports_only_when_triggered_and_averages():
    model = _model()
    ext = extensions.ParameterStatistics(model, trigger=(2, "iteration"))
    trainer = testing.get_trainer_with_mock_updater((4, "iteration"), 10)
    seen = []

    @training.make_extension(priority=training.PRIORITY_WRITER + 1)
    def change(trainer):
        model.predictor.W.array += 1

    @training.make_extension()
    def record(trainer):
        seen.append(trainer.observation.get("None/predictor/W/data/mean"))

    trainer.extend(change)
    trainer.extend(ext)
    trainer.extend(record)
    trainer.run()
    # Means over iterations 1-2 (W mean 3.5, 4.5) and 3-4 (5.5, 6.5).
    assert seen == [None, pytest.approx(4.0), None, pytest.approx(6.0)]


def test_statistics_selection_and_register():
    ext = extensions.ParameterStatistics(_model(), statistics=None, report_grads=False)
    ext.register_statistics("sum", lambda x: x.sum())
    obs = _run(ext)[-1]
    assert sorted(obs) == ["None/predictor/W/data/sum", "None/predictor/b/data/sum"]
    assert obs["None/predictor/W/data/sum"] == 15

    custom = extensions.ParameterStatistics(
        _model(), statistics={"first": lambda x: x[0]}, report_params=False
    )
    obs = _run(custom)[-1]
    assert obs == {"None/predictor/W/grad/first": 2, "None/predictor/b/grad/first": 1}


def test_missing_grads_and_uninitialized_params_are_skipped():
    model = L.Classifier(L.Linear(None, 2))  # W uninitialized, so no W grad
    model.predictor.b.cleargrad()
    obs = _run(extensions.ParameterStatistics(model, statistics={"max": numpy.max}))[-1]
    assert obs == {"None/predictor/b/data/max": 0}
    # An initialized parameter's gradient starts as NaN (Chainer 7), and is
    # reported as it is unless skip_nan_params is set.
    model = L.Classifier(L.Linear(None, 2))
    obs = _run(extensions.ParameterStatistics(model, statistics={"max": numpy.max}))[-1]
    assert sorted(obs) == ["None/predictor/b/data/max", "None/predictor/b/grad/max"]
    assert numpy.isnan(obs["None/predictor/b/grad/max"])


def test_skip_nan_params():
    model = _model()
    model.predictor.W.array[0, 0] = numpy.nan
    ext = extensions.ParameterStatistics(
        model, statistics={"max": numpy.max}, skip_nan_params=True
    )
    obs = _run(ext)[-1]
    assert numpy.isnan(obs["None/predictor/W/data/max"])
    assert obs["None/predictor/b/data/max"] == 0


def test_serialize_keeps_the_running_summary():
    model = _model()
    ext = extensions.ParameterStatistics(model, statistics={"max": numpy.max})
    _run(ext, stop=(1, "iteration"), iter_per_epoch=2)
    target = {}
    serializers.DictionarySerializer(target).save(ext)
    model.predictor.W.array += 10
    resumed = extensions.ParameterStatistics(model, statistics={"max": numpy.max})
    serializers.NpzDeserializer(target).load(resumed)
    trainer = testing.get_trainer_with_mock_updater((2, "iteration"), 2)
    trainer.updater.iteration = 1
    trainer.extend(resumed)
    observation = {}

    @training.make_extension()
    def record(trainer):
        observation.update(trainer.observation)

    trainer.extend(record)
    trainer.run()
    # The mean of iteration 1 (max 5, restored) and iteration 2 (max 15).
    assert observation["None/predictor/W/data/max"] == 10


def test_bad_inputs():
    with pytest.raises(ValueError, match="'defaults'"):
        extensions.ParameterStatistics(_model(), statistics="defaults")
    with pytest.raises(TypeError, match="Links"):
        extensions.ParameterStatistics(chainer.Variable(numpy.zeros(2)))
    with pytest.raises(TypeError, match="'bad'"):
        extensions.ParameterStatistics(_model(), statistics={"bad": 3})
    with pytest.raises(TypeError, match="'bad'"):
        extensions.ParameterStatistics(_model()).register_statistics("bad", None)


def test_default_attributes():
    ext = extensions.ParameterStatistics(_model())
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_WRITER
    assert ext.default_name == "parameter_statistics"
    assert sorted(ext.default_statistics) == sorted(
        ["mean", "std", "min", "max", "zeros", "percentile"]
    )
    assert ext.report_key_template == (
        "{prefix}{link_name}{param_name}/{attr_name}/{function_name}"
    )
