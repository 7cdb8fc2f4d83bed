import io
import sys

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import dataset
from chainer import iterators
from chainer import optimizers
from chainer import testing
from chainer import training
from chainer.training import extensions


def _data(n=25, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(n, 3).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    return list(zip(x, t, strict=True))


def _model():
    return L.Classifier(L.Linear(3, 2))


def _iterator(data, batch_size=10):
    return iterators.SerialIterator(data, batch_size, repeat=False, shuffle=False)


class Recorder(chainer.Link):
    """Evaluation target recording its calls and reporting a value."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def forward(self, *args, **kwargs):
        self.calls.append(
            (args, kwargs, chainer.config.train, chainer.config.enable_backprop)
        )
        chainer.report({"value": float(len(self.calls))}, self)


def test_result_is_mean_over_batches():
    data = _data()
    model = _model()
    result = extensions.Evaluator(_iterator(data), model)()
    assert sorted(result) == ["main/accuracy", "main/loss"]

    losses, accuracies = [], []
    for start in range(0, len(data), 10):
        x, t = dataset.concat_examples(data[start : start + 10])
        y = model.predictor(x)
        losses.append(float(F.softmax_cross_entropy(y, t).array))
        accuracies.append(float(F.accuracy(y, t).array))
    # DictSummary averages the batch means (the last batch has 5 examples).
    assert float(result["main/loss"]) == pytest.approx(numpy.mean(losses), rel=1e-6)
    assert float(result["main/accuracy"]) == pytest.approx(numpy.mean(accuracies))


def test_evaluation_runs_in_test_mode_without_backprop():
    target = Recorder()
    extensions.Evaluator(_iterator(_data()), target)()
    assert len(target.calls) == 3
    for _, _, train, enable_backprop in target.calls:
        assert train is False
        assert enable_backprop is False
    assert chainer.config.train is True


def test_iterator_is_reset_so_repeated_calls_agree():
    evaluator = extensions.Evaluator(_iterator(_data()), _model())
    first = evaluator()
    second = evaluator()
    assert first == second


def test_iterator_without_reset_is_copied():
    class NoReset:
        def __init__(self, batches):
            self.batches = batches

        def __iter__(self):
            return iter(self.batches)

    target = Recorder()
    evaluator = extensions.Evaluator(NoReset([[1.0], [2.0]]), target)
    with pytest.warns(DeprecationWarning, match="reset"):
        result = evaluator()
    assert result == {"main/value": 1.5}


def test_reports_into_the_trainer_with_validation_prefix(tmp_path):
    data = _data(40)
    model = _model()
    optimizer = optimizers.SGD(0.1).setup(model)
    train_iter = iterators.SerialIterator(data, 10, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (2, "epoch"), out=str(tmp_path))
    trainer.extend(extensions.Evaluator(_iterator(data), model))
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.run()
    assert len(log_report.log) == 2
    for entry in log_report.log:
        assert "validation/main/loss" in entry
        assert "validation/main/accuracy" in entry
        assert "main/loss" in entry


def test_custom_name_and_child_link_observers():
    class Predictor(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(3, 2)

        def forward(self, x):
            y = self.l1(x)
            chainer.report({"sum_y": F.sum(y)}, self)
            return y

    model = L.Classifier(Predictor())
    trainer = testing.get_trainer_with_mock_updater((1, "epoch"), 2)
    evaluator = extensions.Evaluator(_iterator(_data()), model)
    trainer.extend(evaluator, name="val")
    assert evaluator.name == "val"
    observation = {}
    with trainer.reporter.scope(observation):
        result = evaluator(trainer)
    assert sorted(result) == [
        "val/main/accuracy",
        "val/main/loss",
        "val/main/predictor/sum_y",
    ]
    assert observation == result


def test_batches_are_passed_as_args_kwargs_or_single():
    tuple_target = Recorder()
    extensions.Evaluator(_iterator([(1.0, 2.0)] * 2), tuple_target)()
    args, kwargs, _, _ = tuple_target.calls[0]
    assert len(args) == 2
    assert kwargs == {}

    dict_target = Recorder()
    extensions.Evaluator(_iterator([{"a": 1.0}] * 2), dict_target)()
    args, kwargs, _, _ = dict_target.calls[0]
    assert args == ()
    assert list(kwargs) == ["a"]

    single_target = Recorder()
    extensions.Evaluator(_iterator([1.0, 2.0]), single_target)()
    args, kwargs, _, _ = single_target.calls[0]
    assert len(args) == 1
    numpy.testing.assert_array_equal(args[0], [1.0, 2.0])


def test_eval_func_and_eval_hook():
    hooked = []
    calls = []

    def eval_func(x, t):
        calls.append(len(x))
        chainer.report({"n": float(len(x))})

    evaluator = extensions.Evaluator(
        _iterator(_data()), _model(), eval_hook=hooked.append, eval_func=eval_func
    )
    assert evaluator() == {"n": pytest.approx(25 / 3)}
    assert hooked == [evaluator]
    assert calls == [10, 10, 5]


def test_old_style_converter_gets_legacy_device():
    seen = []

    def convert(batch, device=None):
        seen.append(device)
        return dataset.concat_examples(batch)

    extensions.Evaluator(_iterator(_data()), _model(), converter=convert)()
    extensions.Evaluator(_iterator(_data()), _model(), converter=convert, device=-1)()
    extensions.Evaluator(
        _iterator(_data()), _model(), converter=convert, device="@numpy"
    )()
    assert seen == [None] * 3 + [-1] * 6


def test_new_style_converter_gets_device_object():
    seen = []

    @dataset.converter()
    def convert(batch, device):
        seen.append(device)
        return dataset.concat_examples(batch, device)

    evaluator = extensions.Evaluator(
        _iterator(_data()), _model(), converter=convert, device=-1
    )
    evaluator()
    assert evaluator.device == chainer.get_device("@numpy")
    assert seen == [chainer.get_device("@numpy")] * 3


def test_accessors_and_dict_arguments():
    it = _iterator(_data())
    model = _model()
    evaluator = extensions.Evaluator({"main": it}, {"main": model})
    assert evaluator.get_iterator("main") is it
    assert evaluator.get_all_iterators() == {"main": it}
    assert evaluator.get_target("main") is model
    assert evaluator.get_all_targets() == {"main": model}


def test_finalize_finalizes_iterators():
    finalized = []

    class It(iterators.SerialIterator):
        def finalize(self):
            finalized.append(True)

    extensions.Evaluator(It(_data(), 10, repeat=False), _model()).finalize()
    assert finalized == [True]


def test_progress_bar_on_a_terminal(monkeypatch):
    class TtyIO(io.StringIO):
        def isatty(self):
            return True

    out = TtyIO()
    monkeypatch.setattr(sys, "stdout", out)
    extensions.Evaluator(_iterator(_data()), _model(), progress_bar=True)()
    text = out.getvalue()
    assert "validation [" in text
    assert "100.00%" in text
    assert "         3 iterations" in text
    assert text.endswith("\x1b[J")


def test_repeating_iterator_is_an_error():
    it = iterators.SerialIterator(_data(), 10)  # repeat=True
    with pytest.raises(ValueError, match="repeat"):
        extensions.Evaluator(it, _model())


def test_empty_iterator_is_an_error():
    evaluator = extensions.Evaluator(_iterator([]), _model())
    with pytest.raises(ValueError, match="no batch"):
        evaluator()


def test_bad_arguments():
    with pytest.raises(TypeError, match="'progressbar'"):
        extensions.Evaluator(_iterator(_data()), _model(), progressbar=True)
    with pytest.raises(TypeError, match="Link"):
        extensions.Evaluator(_iterator(_data()), lambda x: x)
    with pytest.raises(KeyError, match="'main'"):
        extensions.Evaluator({"val": _iterator(_data())}, _model())
    with pytest.raises(KeyError, match="'main'"):
        extensions.Evaluator(_iterator(_data()), {"other": _model()})
    with pytest.raises(TypeError, match="eval_hook"):
        extensions.Evaluator(_iterator(_data()), _model(), eval_hook=3)


def test_default_attributes():
    evaluator = extensions.Evaluator(_iterator(_data()), _model())
    assert evaluator.trigger == (1, "epoch")
    assert evaluator.priority == training.PRIORITY_WRITER
    assert evaluator.default_name == "validation"
    assert evaluator.name is None
