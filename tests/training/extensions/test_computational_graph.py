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


def _trainer(out, stop=(3, "iteration")):
    rng = numpy.random.RandomState(0)
    data = [(rng.randn(3).astype(numpy.float32), numpy.int32(i % 2)) for i in range(8)]
    model = L.Classifier(L.Linear(3, 2))
    optimizer = optimizers.SGD(0.1).setup(model)
    it = iterators.SerialIterator(data, 4)
    updater = training.updaters.StandardUpdater(it, optimizer)
    return training.Trainer(updater, stop, out=str(out))


def _record_creators(trainer, creators):
    @training.make_extension(priority=-1000)
    def record(trainer):
        creators.append(trainer.observation["main/loss"].creator)

    trainer.extend(record)


def test_dumps_dot_of_the_first_iteration(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # no Graphviz
    trainer = _trainer(tmp_path)
    trainer.extend(extensions.DumpGraph("main/loss"))
    creators = []
    _record_creators(trainer, creators)
    trainer.run()
    assert os.listdir(tmp_path) == ["cg.dot"]
    dot = (tmp_path / "cg.dot").read_text()
    assert dot.startswith("digraph")
    assert "SoftmaxCrossEntropy" in dot
    assert "LinearFunction" in dot
    assert 'shape="octagon"' in dot
    assert 'fillcolor="#6495ED"' in dot
    # The graph was kept at the first iteration only.
    assert creators[0] is not None
    assert creators[1:] == [None, None]
    assert chainer.config.keep_graph_on_report is False


def test_filename_styles_and_alias(tmp_path):
    assert extensions.dump_graph is extensions.DumpGraph
    trainer = _trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(
        extensions.dump_graph(
            "main/loss",
            filename="graph.dot",
            variable_style={"shape": "box"},
            function_style={"shape": "ellipse"},
        )
    )
    trainer.extend(extensions.DumpGraph("main/loss", out_name="old.dot"), name="old")
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ["graph.dot", "old.dot"]
    dot = (tmp_path / "graph.dot").read_text()
    assert 'shape="box"' in dot
    assert 'shape="ellipse"' in dot
    assert "octagon" not in dot


def test_missing_root_is_a_clear_error(tmp_path):
    trainer = _trainer(tmp_path)
    trainer.extend(extensions.DumpGraph("main/los"))
    with pytest.raises(KeyError, match="'main/los'.*main/loss"):
        trainer.run(show_loop_exception_msg=False)
    assert chainer.config.keep_graph_on_report is False
    assert os.listdir(tmp_path) == []


def test_non_variable_root_is_a_clear_error(tmp_path):
    trainer = _trainer(tmp_path)
    trainer.extend(
        extensions.observe_value("value", lambda t: 1.0), trigger=(1, "iteration")
    )
    trainer.extend(extensions.DumpGraph("value"))
    with pytest.raises(TypeError, match="'value'.*float"):
        trainer.run(show_loop_exception_msg=False)


def test_resumed_run_does_not_dump_again(tmp_path):
    first = _trainer(tmp_path / "a", stop=(1, "iteration"))
    dump = extensions.DumpGraph("main/loss")
    first.extend(dump)
    first.run()
    target = {}
    serializers.DictionarySerializer(target).save(dump)

    resumed = extensions.DumpGraph("main/loss")
    serializers.NpzDeserializer(target).load(resumed)
    second = _trainer(tmp_path / "b", stop=(2, "iteration"))
    second.extend(resumed)
    creators = []
    _record_creators(second, creators)
    second.run()
    assert not os.path.exists(tmp_path / "b" / "cg.dot")
    assert creators == [None, None]  # graphs were not kept either


def test_flag_restored_when_training_never_iterates(tmp_path):
    trainer = _trainer(tmp_path, stop=lambda trainer: True)
    trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.run()
    assert chainer.config.keep_graph_on_report is False


def test_bad_inputs():
    with pytest.raises(TypeError, match="root_name"):
        extensions.DumpGraph(None)
    with pytest.raises(TypeError, match="'outname'"):
        extensions.DumpGraph("main/loss", outname="x")


def test_default_attributes():
    ext = extensions.DumpGraph("main/loss")
    assert ext.priority == training.PRIORITY_READER
    assert ext.default_name == "dump_graph"
    assert ext.trigger(None) is True


def _fake_dot(bin_dir):
    # Stands for Graphviz: writes the arguments it got into the image file.
    bin_dir.mkdir()
    dot = bin_dir / "dot"
    dot.write_text('#!/bin/sh\nfor a; do out="$a"; done\necho "$@" > "$out"\n')
    dot.chmod(0o755)


def test_renders_png_when_graphviz_is_available(tmp_path, monkeypatch):
    from chainer.training.extensions import computational_graph

    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert not computational_graph.is_graphviz_available()
    _fake_dot(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert computational_graph.is_graphviz_available()
    out = tmp_path / "out"
    trainer = _trainer(out, stop=(1, "iteration"))
    trainer.extend(extensions.DumpGraph("main/loss", filename="g.dot"))
    trainer.run()
    assert sorted(os.listdir(out)) == ["g.dot", "g.png"]
    args = (out / "g.png").read_text().split()
    assert args == ["-Tpng", str(out / "g.dot"), "-o", str(out / "g.png")]
