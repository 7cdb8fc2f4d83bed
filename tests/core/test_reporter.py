import threading
import warnings

import numpy
import pytest

import chainer
from chainer import reporter
from chainer import serializers


def test_doc_example_observer_prefix():
    rep = chainer.Reporter()
    observer = object()
    rep.add_observer("my_observer:", observer)
    observation = {}
    with rep.scope(observation):
        rep.report({"x": 1}, observer)
    assert observation == {"my_observer:/x": 1}

    observation = {}
    with rep.scope(observation):
        chainer.report({"x": 1}, observer)
    assert observation == {"my_observer:/x": 1}


def test_report_without_observer_and_own_observation():
    rep = reporter.Reporter()
    with rep:
        reporter.report({"a": 1.5})
    assert rep.observation == {"a": 1.5}


def test_report_without_current_reporter_is_noop():
    reporter.report({"x": 1})


def test_scope_restores_observation_and_current():
    rep = reporter.Reporter()
    outer = {}
    inner = {}
    with rep.scope(outer):
        assert reporter.get_current_reporter() is rep
        with reporter.report_scope(inner):
            reporter.report({"x": 1})
        reporter.report({"y": 2})
    assert inner == {"x": 1}
    assert outer == {"y": 2}
    assert rep.observation == {}
    with pytest.raises(IndexError, match="no reporter is current"):
        reporter.get_current_reporter()


def test_nested_reporters():
    a, b = reporter.Reporter(), reporter.Reporter()
    with a:
        with b:
            assert reporter.get_current_reporter() is b
            reporter.report({"x": 1})
        assert reporter.get_current_reporter() is a
    assert b.observation == {"x": 1}
    assert a.observation == {}


def test_add_observers_with_prefix():
    rep = reporter.Reporter()
    links = [("/predictor", object()), ("/predictor/l1", object())]
    rep.add_observers("main", links)
    obs = {}
    with rep.scope(obs):
        reporter.report({"loss": 1}, links[0][1])
        reporter.report({"sum": 2}, links[1][1])
    assert obs == {"main/predictor/loss": 1, "main/predictor/l1/sum": 2}


def test_unregistered_observer():
    rep = reporter.Reporter()
    with rep, pytest.raises(KeyError, match="not registered"):
        reporter.report({"x": 1}, object())


def test_bad_arguments():
    rep = reporter.Reporter()
    with pytest.raises(TypeError, match="dict"):
        rep.report([("x", 1)])
    with pytest.raises(TypeError, match="str"):
        rep.add_observer(1, object())
    with pytest.raises(TypeError, match="str"):
        rep.add_observers(None, [])
    with pytest.raises(TypeError, match="dict"), rep.scope([]):
        pass


def test_reported_variables_are_cut_from_graph():
    x = chainer.Variable(numpy.array(2.0, dtype=numpy.float32))
    y = x * x
    assert y.creator_node is not None
    rep = reporter.Reporter()
    with rep:
        reporter.report({"y": y})
    reported = rep.observation["y"]
    assert isinstance(reported, chainer.Variable)
    assert reported.creator_node is None
    assert reported.array is y.array


def test_keep_graph_on_report():
    x = chainer.Variable(numpy.array(2.0, dtype=numpy.float32))
    y = x * x
    rep = reporter.Reporter()
    with chainer.using_config("keep_graph_on_report", True), rep:
        reporter.report({"y": y})
    assert rep.observation["y"] is y


def test_current_reporter_is_thread_local():
    rep = reporter.Reporter()
    seen = []

    def worker():
        reporter.report({"from_thread": 1})
        try:
            reporter.get_current_reporter()
        except IndexError:
            seen.append("none")

    with rep:
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen == ["none"]
    assert rep.observation == {}


# -- Summary ------------------------------------------------------------------------


def test_summary_statistics():
    s = reporter.Summary()
    values = [1.0, 2.0, 4.0]
    for v in values:
        s.add(v)
    assert s.compute_mean() == pytest.approx(numpy.mean(values))
    mean, std = s.make_statistics()
    assert mean == pytest.approx(numpy.mean(values))
    assert std == pytest.approx(numpy.std(values))


def test_summary_weights_arrays_and_variables():
    s = reporter.Summary()
    s.add(numpy.array(1.0, dtype=numpy.float32), weight=3)
    s.add(chainer.Variable(numpy.array(5.0, dtype=numpy.float32)))
    assert s.compute_mean() == pytest.approx(2.0)


def test_summary_constant_values_have_zero_std():
    s = reporter.Summary()
    for _ in range(3):
        s.add(0.1)  # E[x^2] - E[x]^2 rounds to about -1.7e-18 here
    _, std = s.make_statistics()
    assert std == 0.0


def test_summary_errors():
    s = reporter.Summary()
    with pytest.raises(ZeroDivisionError, match="no values"):
        s.compute_mean()
    with pytest.raises(ZeroDivisionError, match="no values"):
        s.make_statistics()
    with pytest.raises(TypeError, match="str"):
        s.add("x")


def test_summary_serialize_round_trip():
    s = reporter.Summary()
    s.add(1.0, weight=0.5)
    s.add(3.0, weight=1.5)
    target = serializers.DictionarySerializer()
    s.serialize(target)
    loaded = reporter.Summary()
    loaded.serialize(serializers.NpzDeserializer(target.target))
    assert loaded.compute_mean() == pytest.approx(s.compute_mean())
    assert loaded.make_statistics()[1] == pytest.approx(s.make_statistics()[1])


def test_summary_serialize_missing_warns():
    s = reporter.Summary()
    with pytest.warns(UserWarning, match="not saved"):
        s.serialize(serializers.NpzDeserializer({}))


# -- DictSummary -------------------------------------------------------------------


def test_dict_summary():
    d = reporter.DictSummary()
    d.add({"a": 1.0, "b": numpy.array(2.0), "skip": numpy.ones(3), "s": "text"})
    d.add({"a": 3.0, "b": chainer.Variable(numpy.array(4.0))})
    mean = d.compute_mean()
    assert set(mean) == {"a", "b"}
    assert mean["a"] == pytest.approx(2.0)
    assert mean["b"] == pytest.approx(3.0)
    stats = d.make_statistics()
    assert set(stats) == {"a", "a.std", "b", "b.std"}
    assert stats["a.std"] == pytest.approx(1.0)


def test_dict_summary_weights():
    d = reporter.DictSummary()
    d.add({"a": (1.0, 3)})
    d.add({"a": (5.0, numpy.array(1))})
    assert d.compute_mean()["a"] == pytest.approx(2.0)


def test_dict_summary_bad_input():
    d = reporter.DictSummary()
    with pytest.raises(ValueError, match="weight to a was not scalar"):
        d.add({"a": (1.0, numpy.ones(2))})
    with pytest.raises(ValueError, match="pair"):
        d.add({"a": (1.0, 2, 3)})
    with pytest.raises(TypeError, match="dict"):
        d.add([1.0])


def test_dict_summary_serialize_round_trip(tmp_path):
    d = reporter.DictSummary()
    d.add({"main/loss": 1.0, "main/acc": 0.5})
    d.add({"main/loss": 3.0})

    class Holder:
        def __init__(self, summary):
            self.summary = summary

        def serialize(self, s):
            self.summary.serialize(s["summary"])

    path = tmp_path / "s.npz"
    serializers.save_npz(str(path), Holder(d))
    loaded = reporter.DictSummary()
    loaded.add({"stale": 1.0})
    serializers.load_npz(str(path), Holder(loaded))
    assert loaded.compute_mean() == pytest.approx(d.compute_mean())
    assert list(loaded.compute_mean()) == ["main/loss", "main/acc"]


def test_dict_summary_serialize_missing_warns():
    d = reporter.DictSummary()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d.serialize(serializers.NpzDeserializer({}))
    assert any("names of statistics" in str(w.message) for w in caught)


def test_summary_accumulates_float32_values_in_float64():
    summary = chainer.reporter.Summary()
    for _ in range(3):
        summary.add(numpy.float32(0.1))
    summary.add(numpy.array(0.1, numpy.float32))
    mean = summary.compute_mean()
    assert mean.dtype == numpy.float64
    assert abs(float(mean) - float(numpy.float32(0.1))) < 1e-12
