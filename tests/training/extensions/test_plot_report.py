import functools
import os
import sys

import numpy
import pytest

import chainer
from chainer import serializers
from chainer import training
from chainer.training import extensions

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _needs_matplotlib():
    pytest.importorskip(
        "matplotlib", reason="matplotlib is not installed (PlotReport cannot draw)"
    )


def _values(i):
    return {"main/loss": 1.0 / i, "main/accuracy": 0.1 * i}


@pytest.fixture
def make_trainer(mock_trainer):
    """``mock_trainer`` reporting loss and accuracy, 3 epochs of 2 iterations."""
    return functools.partial(
        mock_trainer, stop=(3, "epoch"), iter_per_epoch=2, values=_values
    )


class _Capture:
    """A postprocess recording the plotted lines."""

    def __init__(self):
        self.calls = []

    def __call__(self, figure, axes, summary):
        lines = {
            line.get_label(): numpy.asarray(line.get_xydata()) for line in axes.lines
        }
        self.calls.append((figure, axes, summary, lines))


def test_png_is_written(tmp_path, make_trainer):
    _needs_matplotlib()
    trainer = make_trainer()
    trainer.extend(extensions.PlotReport(["main/loss", "main/accuracy"], "epoch"))
    trainer.run()
    assert os.listdir(tmp_path) == ["plot.png"]
    assert (tmp_path / "plot.png").read_bytes().startswith(PNG_SIGNATURE)


def test_plotted_points_are_means_per_trigger(make_trainer):
    _needs_matplotlib()
    trainer = make_trainer()
    capture = _Capture()
    trainer.extend(
        extensions.PlotReport(
            ["main/accuracy", "never"], "iteration", postprocess=capture
        )
    )
    trainer.run()
    assert len(capture.calls) == 3
    _, axes, summary, lines = capture.calls[-1]
    assert list(lines) == ["main/accuracy"]  # 'never' has no data
    numpy.testing.assert_allclose(
        lines["main/accuracy"], [[2, 0.15], [4, 0.35], [6, 0.55]]
    )
    assert axes.get_xlabel() == "iteration"
    assert isinstance(summary, chainer.DictSummary)


def test_file_name_keyword_and_filename(tmp_path, make_trainer):
    _needs_matplotlib()
    trainer = make_trainer()
    trainer.extend(extensions.PlotReport("main/loss", file_name="loss.png"))
    trainer.extend(extensions.PlotReport("main/loss", filename="loss2.png"))
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ["loss.png", "loss2.png"]


def test_reported_x_key(make_trainer):
    _needs_matplotlib()
    trainer = make_trainer()
    capture = _Capture()
    trainer.extend(
        extensions.PlotReport("main/loss", x_key="main/accuracy", postprocess=capture)
    )
    trainer.run()
    numpy.testing.assert_allclose(capture.calls[0][3]["main/loss"], [[0.15, 0.75]])


def test_unobserved_x_key_is_an_error(make_trainer):
    _needs_matplotlib()
    trainer = make_trainer()
    trainer.extend(extensions.PlotReport("main/loss", x_key="epochs"))
    with pytest.raises(KeyError, match="'epochs'"):
        trainer.run(show_loop_exception_msg=False)


def test_marker_and_grid(make_trainer):
    _needs_matplotlib()
    trainer = make_trainer(stop=(1, "epoch"))
    capture = _Capture()
    trainer.extend(
        extensions.PlotReport("main/loss", marker="o", grid=False, postprocess=capture)
    )
    trainer.run()
    axes = capture.calls[0][1]
    assert axes.lines[0].get_marker() == "o"
    assert not any(line.get_visible() for line in axes.get_xgridlines())


def test_pyplot_is_not_used(make_trainer):
    _needs_matplotlib()
    had_pyplot = "matplotlib.pyplot" in sys.modules
    trainer = make_trainer()
    trainer.extend(extensions.PlotReport("main/loss"))
    trainer.run()
    if not had_pyplot:
        assert "matplotlib.pyplot" not in sys.modules


def test_call_before_training_plots_a_point_of_its_own(make_trainer):
    # Chainer 7: a point at epoch 0, not mixed into the first epoch's mean.
    _needs_matplotlib()

    @training.make_extension(priority=training.PRIORITY_WRITER)
    def report_initial(trainer):
        if trainer.is_before_training:
            chainer.report({"main/loss": 5.0})

    trainer = make_trainer()
    trainer.extend(report_initial, call_before_training=True)
    capture = _Capture()
    plot = extensions.PlotReport("main/loss", "epoch", postprocess=capture)
    trainer.extend(plot, call_before_training=True)
    trainer.run()
    numpy.testing.assert_allclose(
        capture.calls[-1][3]["main/loss"],
        [[0, 5.0], [1, 0.75], [2, (1 / 3 + 1 / 4) / 2], [3, (1 / 5 + 1 / 6) / 2]],
    )


def test_resume_keeps_plotted_data(tmp_path, make_trainer):
    _needs_matplotlib()
    first = make_trainer(stop=(2, "epoch"))
    plot = extensions.PlotReport("main/loss", "epoch")
    first.extend(plot)
    first.run()
    serializers.save_npz(tmp_path / "state.npz", plot)

    capture = _Capture()
    resumed = extensions.PlotReport("main/loss", "epoch", postprocess=capture)
    serializers.load_npz(tmp_path / "state.npz", resumed)
    second = make_trainer(stop=(3, "epoch"))
    second.updater.iteration = 4
    second.extend(resumed)
    second.run()
    numpy.testing.assert_allclose(
        capture.calls[0][3]["main/loss"],
        [[1, 0.75], [2, (1 / 3 + 1 / 4) / 2], [3, (1 / 5 + 1 / 6) / 2]],
    )


def test_without_matplotlib_warns_and_does_nothing(tmp_path, monkeypatch, make_trainer):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.warns(UserWarning, match="cannot import matplotlib"):
        assert extensions.PlotReport.available() is False
    with pytest.warns(UserWarning, match="cannot import matplotlib"):
        plot = extensions.PlotReport("main/loss")
    trainer = make_trainer()
    trainer.extend(plot)
    trainer.run()  # no further warning (filterwarnings=error), no file
    assert os.listdir(tmp_path) == []


def test_available():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.warns(UserWarning, match="cannot import matplotlib"):
            assert extensions.PlotReport.available() is False
    else:
        assert extensions.PlotReport.available() is True


def test_bad_inputs():
    with pytest.raises(ValueError, match="y_keys"):
        extensions.PlotReport([])
    with pytest.raises(TypeError, match="x_key"):
        extensions.PlotReport("main/loss", x_key=1)
    with pytest.raises(TypeError, match="'filenme'"):
        extensions.PlotReport("main/loss", filenme="a.png")
    with pytest.raises(TypeError, match="postprocess"):
        extensions.PlotReport("main/loss", postprocess="x")
    with pytest.raises(ValueError, match="'epochs'"):
        extensions.PlotReport("main/loss", trigger=(1, "epochs"))


def test_unsupported_file_format(tmp_path, make_trainer):
    _needs_matplotlib()
    trainer = make_trainer()
    trainer.extend(extensions.PlotReport("main/loss", filename="plot.xyz"))
    with pytest.raises(ValueError, match="'xyz'"):
        trainer.run(show_loop_exception_msg=False)
    assert os.listdir(tmp_path) == []


def test_default_attributes():
    _needs_matplotlib()
    ext = extensions.PlotReport("main/loss")
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER
