"""The :class:`LogReport` trainer extension."""

from __future__ import annotations

import json
import os

from chainer import reporter as reporter_module
from chainer import serializer as serializer_module
from chainer.training import extension
from chainer.training import trigger as trigger_module
from chainer.training.extensions import util


class LogReport(extension.Extension):
    """Keeps a log of averaged observations and writes it as a JSON file.

    It accumulates the observations of the trainer into a
    :class:`~chainer.DictSummary` at every iteration, and at each firing of
    ``trigger`` it appends the mean of each observed value, together with
    ``'epoch'``, ``'iteration'`` and ``'elapsed_time'``, to :attr:`log`.
    The whole log is then written as a JSON list to ``filename`` in the
    output directory of the trainer (atomically: readers never see a
    partial file), and the summary is reset.

    Args:
        keys (iterable of str): Keys of values to accumulate. ``None``
            accumulates every reported scalar.
        trigger: Trigger deciding when to output the accumulated results,
            such as ``(1, 'epoch')`` (see
            :func:`~chainer.training.get_trigger`).
        postprocess (callable): Called with the dictionary of each new log
            entry before it is appended; it may modify it in place (e.g. to
            add a perplexity computed from a loss).
        filename (str): Name of the log file under the output directory.
            It is formatted with the entry (``'log_{epoch}'`` works).
            ``None`` means ``'log'``. Chainer 7's ``log_name=`` keyword is
            accepted too; ``log_name=None`` disables the file.

    Attributes:
        log (list of dict): The entries output so far (read-only property).
    """

    def __init__(
        self, keys=None, trigger=(1, "epoch"), postprocess=None, filename=None, **kwargs
    ):
        log_name = "log"
        if kwargs:
            unknown = set(kwargs) - {"log_name"}
            if unknown:
                raise TypeError(
                    "LogReport() got unexpected keyword argument(s) "
                    + ", ".join(repr(k) for k in sorted(unknown))
                )
            log_name = kwargs["log_name"]
        if filename is None:
            filename = log_name
        if filename is not None and not isinstance(filename, (str, os.PathLike)):
            raise TypeError(
                f"LogReport filename must be a str or None, not {filename!r}"
            )
        if keys is not None:
            if isinstance(keys, str):
                raise TypeError(
                    f"LogReport keys must be an iterable of str, not the str {keys!r}"
                )
            keys = tuple(keys)
        if postprocess is not None and not callable(postprocess):
            raise TypeError(f"postprocess must be callable, not {postprocess!r}")
        self._keys = keys
        self._trigger = trigger_module.get_trigger(trigger)
        self._postprocess = postprocess
        self._log_name = None if filename is None else os.fspath(filename)
        self._log = []
        self._summary = reporter_module.DictSummary()

    def __call__(self, trainer):
        """Accumulates the observation and outputs the log when triggered.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        observation = trainer.observation
        keys = self._keys
        if keys is None:
            self._summary.add(observation)
        else:
            self._summary.add({k: observation[k] for k in keys if k in observation})

        # Called before training (call_before_training=True), it writes an
        # entry of its own, e.g. the validation results of the initial model.
        if trainer.is_before_training or self._trigger(trainer):
            self._output(trainer)

    def _output(self, trainer):
        entry = {
            name: float(value) for name, value in self._summary.compute_mean().items()
        }
        updater = trainer.updater
        entry["epoch"] = updater.epoch
        entry["iteration"] = updater.iteration
        entry["elapsed_time"] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(entry)
        self._log.append(entry)

        if self._log_name is not None:
            try:
                name = self._log_name.format(**entry)
            except (KeyError, IndexError, ValueError) as e:
                raise ValueError(
                    f"cannot format the LogReport filename {self._log_name!r} with "
                    f"the log entry (keys: {sorted(entry)}): {e!r}"
                ) from None
            with util.open_atomic(os.path.join(trainer.out, name), "w") as f:
                f.write(json.dumps(self._log, indent=4) + "\n")

        self._summary = reporter_module.DictSummary()

    @property
    def log(self):
        """The entries written so far, oldest first (a list of dicts)."""
        return self._log

    def serialize(self, serializer):
        """Serializes the trigger, the running summary and the log.

        A resumed training run continues the same log file and the same
        accumulation window.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        util.serialize_trigger(serializer, self._trigger, self._summary)
        if isinstance(serializer, serializer_module.Serializer):
            serializer("_log", json.dumps(self._log))
        else:
            self._log = json.loads(serializer("_log", ""))
