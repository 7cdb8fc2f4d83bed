"""The :class:`PrintReport` trainer extension."""

from __future__ import annotations

import sys
import warnings

from chainer.training import extension
from chainer.training.extensions import log_report as log_report_module
from chainer.training.extensions import util

# The default of `out`, evaluated when the signature below is.
_STDOUT = sys.stdout


class PrintReport(extension.Extension):
    """Prints selected columns of a LogReport's log as a text table.

    It prints the entries of a :class:`LogReport`'s log: a header with the
    given names at the first call, then one row per new log entry. Each
    column is as wide as its name, and at least 10 characters. A value
    missing from an entry (a validation loss of an epoch without
    evaluation, say) leaves its cell blank.

    A name that appears in no log entry is often a typo: a warning naming it
    and the available keys is given at the first report of an entry at or
    after the end of the first epoch whose log lacks the name in every entry
    (names that start with the name of a registered extension, as
    ``'validation/main/loss'`` of the :class:`Evaluator` named
    ``'validation'``, are exempt then), and at the end of training for names
    never logged at all. A training run stopped by an exception or Ctrl-C
    before any entry at or after the end of the first epoch was logged gives
    no such warning at its end: the names may simply not have come yet. Its
    column stays blank, as Chainer prints it: values
    that an extension reports rarely (a BLEU score every 500 iterations, say)
    are legitimate.

    Args:
        entries (list of str): Names of the log entries to print, such as
            ``['epoch', 'main/loss', 'validation/main/loss']``.
        log_report (str or LogReport): The log report whose log is printed:
            the name of a :class:`LogReport` registered to the trainer, or a
            :class:`LogReport` object that this extension then calls itself.
        out: Stream to which the table is written.
    """

    def __init__(self, entries, log_report="LogReport", out=sys.stdout):
        if isinstance(entries, str):
            raise TypeError(
                f"PrintReport entries must be a list of str, not the str {entries!r}"
            )
        entries = list(entries)
        for entry in entries:
            if not isinstance(entry, str):
                raise TypeError(f"PrintReport entries must be str, got {entry!r}")
        if not isinstance(log_report, (str, log_report_module.LogReport)):
            raise TypeError(
                "log_report must be the name of a LogReport extension or a "
                f"LogReport object, not {type(log_report).__name__}"
            )
        self._entries = entries
        self._log_report = log_report
        self._out = out
        self._log_len = 0  # number of log entries already printed
        widths = [max(10, len(entry)) for entry in entries]
        self._header = (
            "  ".join(e.ljust(w) for e, w in zip(entries, widths, strict=True)) + "\n"
        )
        self._header_printed = False
        self._templates = [
            (entry, f"{{:<{w}g}}  ", w, " " * (w + 2))
            for entry, w in zip(entries, widths, strict=True)
        ]
        # Entries not seen in the log yet; None once all of them were seen.
        self._unseen = set(entries) or None
        self._found = None  # (trainer, LogReport) of the last lookup
        self._last_epoch = 0  # "epoch" of the last entry printed
        self._failed = False  # set by on_error

    def __call__(self, trainer):
        """Prints the log entries added since the previous call.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        log_report = self._log_report
        if isinstance(log_report, str):
            log_report = self._find_log_report(trainer, log_report)
        else:
            log_report(trainer)  # update the log report

        out = util.resolve_out(self._out, _STDOUT)
        log = log_report.log
        log_len = self._log_len
        if self._header_printed and len(log) <= log_len:
            return
        if not self._header_printed:
            out.write(self._header)
            self._header_printed = True
        if len(log) > log_len:
            new_entries = log[log_len:]
            tty = util.isatty(out)
            for entry in new_entries:
                if tty:
                    # Erase a progress bar drawn below the table.
                    out.write("\x1b[J")
                self._print(out, entry)
            self._log_len = len(log)
            self._last_epoch = log[-1].get("epoch", 0)
            if self._unseen is not None:
                self._check_entries(trainer, log, new_entries)
        flush = getattr(out, "flush", None)
        if flush is not None:
            flush()

    def _find_log_report(self, trainer, name):
        # Looked up once per trainer: the extensions do not change in a run.
        cached = self._found
        if cached is not None and cached[0] is trainer:
            return cached[1]
        try:
            log_report = trainer.get_extension(name)
        except (KeyError, ValueError):
            raise KeyError(
                f"PrintReport needs the LogReport extension {name!r}, which is "
                "not registered to the trainer; add extensions.LogReport() to "
                "the trainer or pass a LogReport object as log_report"
            ) from None
        self._found = (trainer, log_report)
        return log_report

    def _print(self, out, observation):
        parts = []
        for entry, template, width, empty in self._templates:
            if entry in observation:
                value = observation[entry]
                try:
                    parts.append(template.format(value))
                except (TypeError, ValueError):
                    parts.append(str(value).ljust(width) + "  ")
            else:
                parts.append(empty)
        parts.append("\n")
        out.write("".join(parts))

    def _check_entries(self, trainer, log, new_entries):
        unseen = self._unseen
        for entry in new_entries:
            unseen.difference_update(entry.keys())
        if not unseen:
            self._unseen = None
            return
        if log[-1].get("epoch", 0) < 1:
            return  # values reported once per epoch may still come
        missing = sorted(
            name for name in unseen if not _has_extension_prefix(trainer, name)
        )
        if missing:
            unseen.difference_update(missing)  # each name is reported once
            available = sorted(set().union(*(entry.keys() for entry in log)))
            warnings.warn(
                f"PrintReport: {', '.join(repr(m) for m in missing)} has not "
                f"appeared in the log of the LogReport (after {len(log)} "
                f"entries); is the key misspelled? Available keys: {available}",
                stacklevel=2,
            )

    def on_error(self, trainer, exc, tb):
        """Notes that the training loop failed (see :meth:`finalize`).

        Args:
            trainer (~chainer.training.Trainer): Trainer that raised.
            exc (Exception): The exception.
            tb (traceback): Its traceback.
        """
        self._failed = True

    def finalize(self):
        """Warns about entry names that never appeared in the log.

        Nothing is said when nothing was printed, nor when the training
        stopped with an error or Ctrl-C before an entry at or after the end
        of the first epoch was logged.
        """
        if not (self._unseen and self._log_len):
            return
        # KeyboardInterrupt skips on_error; finalize then runs in the
        # trainer's `finally`, where sys.exc_info() shows it propagating.
        interrupted = self._failed or sys.exc_info()[0] is not None
        if interrupted and self._last_epoch < 1:
            return
        names = ", ".join(repr(name) for name in sorted(self._unseen))
        warnings.warn(f"PrintReport: {names} never appeared in the log during training")

    def serialize(self, serializer):
        """Serializes the LogReport object given to this extension, if any.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        if isinstance(self._log_report, log_report_module.LogReport):
            self._log_report.serialize(serializer["_log_report"])


def _has_extension_prefix(trainer, name):
    prefix = name.split("/", 1)[0]
    if prefix == name:
        return False
    try:
        trainer.get_extension(prefix)
    except (KeyError, ValueError):
        return False
    return True
