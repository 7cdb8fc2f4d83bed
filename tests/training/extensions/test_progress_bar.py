import io
import sys

import pytest

from chainer import testing
from chainer import training
from chainer.training import extensions
from chainer.training.extensions import util


class TtyIO(io.StringIO):
    def isatty(self):
        return True


def _run(stop=(2, "epoch"), iter_per_epoch=10, **kwargs):
    trainer = testing.get_trainer_with_mock_updater(stop, iter_per_epoch)
    out = kwargs.pop("out")
    trainer.extend(extensions.ProgressBar(out=out, **kwargs))
    trainer.run()
    return out.getvalue()


def test_live_bar_on_a_terminal():
    text = _run(update_interval=5, out=TtyIO())
    frames = text.split("\x1b[J")
    # One frame per update (iterations 5, 10, 15, 20), then the final erase.
    assert frames[0] == ""
    assert frames[-1] == ""
    frames = frames[1:-1]
    assert len(frames) == 4
    for frame in frames:
        assert frame.endswith("\x1b[4A")
        assert len(frame.split("\n")) == 5  # four lines, then the cursor move
    first = frames[0].splitlines()
    assert first[0] == "     total [" + "#" * 12 + "." * 38 + "] 25.00%"
    assert first[1] == "this epoch [" + "#" * 25 + "." * 25 + "] 50.00%"
    assert first[2] == "         5 iter, 0 epoch / 2 epochs"
    assert "iters/sec. Estimated time to finish: " in first[3]
    last = frames[-1].splitlines()
    assert last[0] == "     total [" + "#" * 50 + "] 100.00%"
    assert last[2] == "        20 iter, 2 epoch / 2 epochs"
    assert last[3].endswith("Estimated time to finish: 0:00:00.")


def test_bar_length():
    text = _run(update_interval=10, bar_length=10, out=TtyIO())
    assert "     total [#####.....] 50.00%" in text


def test_training_length_in_iterations():
    text = _run(
        stop=(40, "iteration"),
        training_length=(40, "iteration"),
        update_interval=10,
        out=TtyIO(),
    )
    assert "] 25.00%\n" in text
    assert "        10 iter, 1 epoch / 40 iterations" in text


def test_training_length_from_iteration_stop_trigger():
    text = _run(stop=(20, "iteration"), update_interval=10, out=TtyIO())
    assert "        10 iter, 1 epoch / 20 iterations" in text


def test_quiet_in_a_log():
    # A short run in a non-interactive output writes nothing at all.
    assert _run(update_interval=1, out=io.StringIO()) == ""


def test_summary_lines_in_a_log(monkeypatch):
    monkeypatch.setattr(util.ProgressBar, "log_period", 0)
    text = _run(update_interval=10, out=io.StringIO())
    lines = text.splitlines()
    assert len(lines) == 2
    assert "\x1b" not in text
    assert lines[0].startswith("10 iter, 1.00 epoch / 2 epochs (50.00%), ")
    assert "iters/sec, estimated time to finish: " in lines[0]
    assert lines[1].startswith("20 iter, 2.00 epoch / 2 epochs (100.00%), ")


def test_stop_trigger_without_training_length():
    trainer = testing.get_trainer_with_mock_updater((2, "epoch"), 10)
    trainer.stop_trigger = lambda trainer: trainer.updater.iteration >= 3
    trainer.extend(extensions.ProgressBar(update_interval=1, out=TtyIO()))
    with pytest.raises(TypeError, match="training_length"):
        trainer.run(show_loop_exception_msg=False)


def test_explicit_length_with_a_callable_stop_trigger():
    trainer = testing.get_trainer_with_mock_updater((2, "epoch"), 10)
    trainer.stop_trigger = lambda trainer: trainer.updater.iteration >= 3
    out = TtyIO()
    trainer.extend(
        extensions.ProgressBar(
            training_length=(6, "iteration"), update_interval=3, out=out
        )
    )
    trainer.run()
    assert "] 50.00%" in out.getvalue()


def test_bad_inputs():
    with pytest.raises(ValueError, match="'epochs'"):
        extensions.ProgressBar(training_length=(1, "epochs"))
    with pytest.raises(TypeError, match="training_length"):
        extensions.ProgressBar(training_length=10)
    with pytest.raises(ValueError, match="positive"):
        extensions.ProgressBar(training_length=(0, "epoch"))
    with pytest.raises(ValueError, match="update_interval"):
        extensions.ProgressBar(update_interval=0)
    with pytest.raises(ValueError, match="bar_length"):
        extensions.ProgressBar(bar_length=-1)


def test_default_attributes():
    ext = extensions.ProgressBar()
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER
    ext.finalize()  # nothing drawn, nothing to erase


def test_default_out_follows_sys_stdout(monkeypatch):
    out = TtyIO()
    monkeypatch.setattr(sys, "stdout", out)
    trainer = testing.get_trainer_with_mock_updater((2, "epoch"), 10)
    trainer.extend(extensions.ProgressBar(update_interval=10))
    trainer.run()
    assert out.getvalue().count("\x1b[4A") == 2
