import contextlib
import functools
import io

import pytest

import chainer
from chainer import serializers
from chainer import training
from chainer.training import extensions


class TtyIO(io.StringIO):
    def isatty(self):
        return True


def _values(i):
    return {"main/loss": float(i)}


@pytest.fixture
def make_trainer(mock_trainer):
    """``mock_trainer`` reporting ``main/loss``, 2 epochs of 4 iterations."""
    return functools.partial(
        mock_trainer, stop=(2, "epoch"), iter_per_epoch=4, values=_values
    )


def test_header_and_rows(make_trainer):
    trainer = make_trainer()
    trainer.extend(extensions.LogReport())
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(["epoch", "main/loss"], out=out))
    trainer.run()
    assert out.getvalue() == (
        "epoch       main/loss \n1           2.5         \n2           6.5         \n"
    )


def test_column_width_follows_long_names(make_trainer):
    trainer = make_trainer(values=lambda i: {"validation/main/accuracy": 0.5})
    trainer.extend(extensions.LogReport())
    out = io.StringIO()
    trainer.extend(
        extensions.PrintReport(["epoch", "validation/main/accuracy"], out=out)
    )
    trainer.run()
    header, row = out.getvalue().splitlines()[:2]
    assert header == "epoch       validation/main/accuracy"
    assert row == "1           0.5" + " " * 21 + "  "


def test_header_printed_once_before_any_entry(make_trainer):
    trainer = make_trainer(stop=(2, "iteration"))
    trainer.extend(extensions.LogReport())
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(["epoch"], out=out))
    trainer.run()
    assert out.getvalue() == "epoch     \n"


def test_value_missing_in_some_entries_is_blank(make_trainer):
    def values(i):
        return {"main/loss": 1.0, "rare": 3.0} if i <= 4 else {"main/loss": 1.0}

    trainer = make_trainer(values=values)
    trainer.extend(extensions.LogReport())
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(["epoch", "rare"], out=out))
    trainer.run()
    lines = out.getvalue().splitlines()
    assert lines[1] == "1" + " " * 11 + "3" + " " * 11
    assert lines[2] == "2" + " " * 11 + " " * 12


def test_misspelled_key_is_warned_once_and_printed_blank(make_trainer):
    trainer = make_trainer()
    trainer.extend(extensions.LogReport())
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(["epoch", "main/los"], out=out))
    with pytest.warns(UserWarning) as record:
        trainer.run()
    assert len(record) == 1
    message = str(record[0].message)
    assert "'main/los'" in message
    assert "main/loss" in message  # the available keys are listed
    rows = out.getvalue().splitlines()[1:]
    assert [row.split() for row in rows[:2]] == [["1"], ["2"]]


def test_rarely_reported_key_of_an_unnamed_extension_does_not_stop_training(
    make_trainer,
):
    # Chainer's seq2seq example: BLEU, reported under 'validation/main/bleu'
    # by an extension of another name, first arrives after several epochs.
    trainer = make_trainer()
    trainer.extend(extensions.LogReport(trigger=(2, "iteration")))

    @training.make_extension(
        trigger=(6, "iteration"), priority=training.PRIORITY_WRITER
    )
    def bleu(trainer):
        chainer.report({"validation/main/bleu": 0.5})

    trainer.extend(bleu)
    out = io.StringIO()
    trainer.extend(
        extensions.PrintReport(["iteration", "validation/main/bleu"], out=out)
    )
    with pytest.warns(UserWarning, match="validation/main/bleu"):
        trainer.run()
    rows = [row.split() for row in out.getvalue().splitlines()[1:]]
    assert ["6", "0.5"] in rows


def test_key_logged_once_per_epoch_is_not_an_error(make_trainer):
    # LogReport every 2 iterations; 'lr' is observed only at epoch ends.
    trainer = make_trainer()
    trainer.extend(extensions.LogReport(trigger=(2, "iteration")))
    trainer.extend(extensions.observe_value("lr", lambda t: 0.1))
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(["iteration", "lr"], out=out))
    trainer.run()
    rows = out.getvalue().splitlines()[1:]
    assert len(rows) == 4
    assert rows[0].split() == ["2"]
    assert rows[1].split() == ["4", "0.1"]


def test_key_of_a_registered_extension_may_come_later(make_trainer):
    # 'validation/...' is reported by the extension named 'validation' only
    # from the second epoch on; the first-epoch rows are blank there.
    @training.make_extension(trigger=(2, "epoch"), priority=training.PRIORITY_WRITER)
    def late(trainer):
        chainer.report({"validation/main/loss": 1.5})

    trainer = make_trainer()
    trainer.extend(late, name="validation")
    trainer.extend(extensions.LogReport())
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(["epoch", "validation/main/loss"], out=out))
    trainer.run()
    rows = out.getvalue().splitlines()[1:]
    assert rows[0].split() == ["1"]
    assert rows[1].split() == ["2", "1.5"]


def test_key_never_logged_warns_at_the_end(make_trainer):
    @training.make_extension(trigger=(9, "epoch"))
    def never(trainer):
        pass

    trainer = make_trainer()
    trainer.extend(never, name="validation")
    trainer.extend(extensions.LogReport())
    trainer.extend(
        extensions.PrintReport(["epoch", "validation/main/loss"], out=io.StringIO())
    )
    with pytest.warns(UserWarning, match="'validation/main/loss' never appeared"):
        trainer.run()


def test_log_report_object(make_trainer):
    trainer = make_trainer()
    log_report = extensions.LogReport(log_name=None)
    out = io.StringIO()
    print_report = extensions.PrintReport(
        ["epoch", "main/loss"], log_report=log_report, out=out
    )
    trainer.extend(print_report)  # the LogReport is not registered itself
    trainer.run()
    assert len(log_report.log) == 2
    assert out.getvalue().count("\n") == 3

    target = {}
    serializers.DictionarySerializer(target).save(print_report)
    assert any(k.startswith("_log_report/") for k in target)


def test_missing_log_report_extension(make_trainer):
    trainer = make_trainer()
    trainer.extend(extensions.PrintReport(["epoch"], out=io.StringIO()))
    with pytest.raises(KeyError, match="'LogReport'"):
        trainer.run(show_loop_exception_msg=False)


def test_named_log_report(make_trainer):
    trainer = make_trainer()
    trainer.extend(extensions.LogReport(), name="mylog")
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(["epoch"], log_report="mylog", out=out))
    trainer.run()
    assert out.getvalue().count("\n") == 3


def test_escape_sequences_only_on_a_terminal(make_trainer):
    for out, expected in ((TtyIO(), 2), (io.StringIO(), 0)):
        trainer = make_trainer()
        trainer.extend(extensions.LogReport(log_name=None))
        trainer.extend(extensions.PrintReport(["epoch"], out=out))
        trainer.run()
        assert out.getvalue().count("\x1b[J") == expected


def test_non_numeric_values_are_printed_as_text(make_trainer):
    trainer = make_trainer()

    def postprocess(entry):
        entry["note"] = "ok"

    trainer.extend(extensions.LogReport(postprocess=postprocess))
    out = io.StringIO()
    trainer.extend(extensions.PrintReport(["epoch", "note"], out=out))
    trainer.run()
    assert out.getvalue().splitlines()[1] == "1           ok          "


def test_bad_inputs():
    with pytest.raises(TypeError, match="list of str"):
        extensions.PrintReport("epoch")
    with pytest.raises(TypeError, match="must be str"):
        extensions.PrintReport(["epoch", 3])
    with pytest.raises(TypeError, match="log_report"):
        extensions.PrintReport(["epoch"], log_report=3)


def test_default_attributes():
    ext = extensions.PrintReport(["epoch"])
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER


def test_default_out_follows_sys_stdout(make_trainer):
    trainer = make_trainer()
    trainer.extend(extensions.LogReport(log_name=None))
    trainer.extend(extensions.PrintReport(["epoch"]))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        trainer.run()
    assert out.getvalue() == "epoch     \n1           \n2           \n"


def _interrupting_trainer(make_trainer, at_iteration, error):
    """A trainer whose run stops with ``error`` raised at ``at_iteration``.

    An extension named ``validation`` reports ``validation/main/loss`` before
    training and every epoch, as an Evaluator called before training does;
    LogReport and PrintReport are called before training as well.
    """

    @training.make_extension(trigger=(1, "epoch"), priority=training.PRIORITY_WRITER)
    def validation(trainer):
        chainer.report({"validation/main/loss": 1.0})

    @training.make_extension(trigger=(1, "iteration"))
    def interrupt(trainer):
        if trainer.updater.iteration == at_iteration:
            raise error

    trainer = make_trainer()
    trainer.extend(validation, name="validation", call_before_training=True)
    trainer.extend(extensions.LogReport(), call_before_training=True)
    trainer.extend(interrupt)
    return trainer


@pytest.mark.parametrize("error", [KeyboardInterrupt(), RuntimeError("failed")])
def test_interrupted_before_the_first_epoch_ends_does_not_warn(
    make_trainer, recwarn, error
):
    # Ctrl-C during the first epoch: only the entry logged before training
    # exists, and 'main/loss' has simply not been logged yet.
    trainer = _interrupting_trainer(make_trainer, 2, error)
    out = io.StringIO()
    entries = ["epoch", "main/loss", "validation/main/loss"]
    trainer.extend(extensions.PrintReport(entries, out=out), call_before_training=True)
    with pytest.raises(type(error)):
        trainer.run(show_loop_exception_msg=False)
    assert [str(w.message) for w in recwarn] == []
    assert out.getvalue().splitlines()[1].split() == ["0", "1"]


def test_interrupted_later_still_warns_about_a_typo(make_trainer):
    # Interrupted in the second epoch: the first epoch was logged, so a name
    # still missing then is a typo, as at the end of a full run.
    trainer = _interrupting_trainer(make_trainer, 6, KeyboardInterrupt)
    entries = ["epoch", "main/loss", "validation/main/los"]
    trainer.extend(
        extensions.PrintReport(entries, out=io.StringIO()), call_before_training=True
    )
    with (
        pytest.raises(KeyboardInterrupt),
        pytest.warns(UserWarning, match="'validation/main/los' never appeared"),
    ):
        trainer.run(show_loop_exception_msg=False)


def test_no_warning_when_nothing_was_printed(make_trainer, recwarn):
    # Interrupted before the first log entry: no table, no warning.
    trainer = _interrupting_trainer(make_trainer, 1, KeyboardInterrupt)
    trainer.extend(extensions.PrintReport(["epoch", "main/los"], out=io.StringIO()))
    with pytest.raises(KeyboardInterrupt):
        trainer.run(show_loop_exception_msg=False)
    assert [str(w.message) for w in recwarn] == []
