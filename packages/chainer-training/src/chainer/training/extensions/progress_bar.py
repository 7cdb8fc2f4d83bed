"""The :class:`ProgressBar` trainer extension."""

from __future__ import annotations

import sys

from chainer.training import extension
from chainer.training.extensions import util

_UNITS = ("epoch", "iteration")

# The default of `out`, evaluated when the signature below is.
_STDOUT = sys.stdout


class ProgressBar(extension.Extension):
    """Shows how far the training is, how fast it goes and when it ends.

    On an interactive terminal it draws, every ``update_interval``
    iterations, the total progress, the progress within the current epoch,
    the iteration and epoch counts, the speed in iterations per second and
    the estimated time to finish, redrawn in place with ANSI escapes. It is
    erased at the end of training.

    When ``out`` is not a terminal (``out.isatty()`` is false: a file, a
    pipe, a CI log) the extension stays quiet: it writes a single summary
    line (iterations, epochs, progress, speed, estimated time to finish) at
    most every 30 seconds, and no escape sequences.

    Args:
        training_length (tuple): Length of the whole training as
            ``(length, unit)``, where unit is ``'epoch'`` or ``'iteration'``.
            ``None`` takes it from the stop trigger of the trainer
            (``get_training_length()``).
        update_interval (int): Number of iterations between two updates of
            the bar.
        bar_length (int): Number of characters of each bar.
        out: Stream to which the bar is written.
    """

    def __init__(
        self, training_length=None, update_interval=100, bar_length=50, out=sys.stdout
    ):
        if training_length is not None:
            training_length = _check_length(training_length, "training_length")
        if not isinstance(update_interval, int) or update_interval < 1:
            raise ValueError(
                f"update_interval must be a positive int, got {update_interval!r}"
            )
        if not isinstance(bar_length, int) or bar_length < 1:
            raise ValueError(f"bar_length must be a positive int, got {bar_length!r}")
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar_length = bar_length
        self._out = out
        self._pbar = None

    def __call__(self, trainer):
        """Updates the bar every ``update_interval`` iterations.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        if trainer.updater.iteration % self._update_interval:
            return
        pbar = self._pbar
        if pbar is None:
            length = self._training_length
            if length is None:
                length = _length_from_stop_trigger(trainer.stop_trigger)
            pbar = self._pbar = _TrainerProgressBar(
                trainer, length, self._bar_length, util.resolve_out(self._out, _STDOUT)
            )
        pbar.update()

    def finalize(self):
        """Erases the bar from the terminal."""
        if self._pbar is not None:
            self._pbar.close()


def _check_length(length, what):
    try:
        value, unit = length
    except (TypeError, ValueError):
        raise TypeError(
            f"{what} must be a (length, unit) pair such as (20, 'epoch'), "
            f"got {length!r}"
        ) from None
    if unit not in _UNITS:
        raise ValueError(
            f"unknown unit {unit!r} in {what} {length!r}; use 'epoch' or 'iteration'"
        )
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"the length in {what} must be positive, got {value!r}")
    return value, unit


def _length_from_stop_trigger(stop_trigger):
    get_length = getattr(stop_trigger, "get_training_length", None)
    if get_length is None:
        raise TypeError(
            "ProgressBar cannot tell the training length: the stop trigger "
            f"{stop_trigger!r} has no get_training_length(); pass "
            "training_length=(length, 'epoch' or 'iteration') to ProgressBar"
        )
    return _check_length(get_length(), "the stop trigger's training length")


class _TrainerProgressBar(util.ProgressBar):
    def __init__(self, trainer, training_length, bar_length, out):
        super().__init__(out)
        self._trainer = trainer
        self._length, self._unit = training_length
        self._bar_length = bar_length
        self._speed = (float("inf"), float("inf"))

    def tick(self):
        updater = self._trainer.updater
        self._speed = self.update_speed(updater.iteration, updater.epoch_detail)

    def _state(self):
        updater = self._trainer.updater
        iteration = updater.iteration
        epoch = updater.epoch_detail
        done = iteration if self._unit == "iteration" else epoch
        speed_t, speed_e = self._speed
        speed = speed_t if self._unit == "iteration" else speed_e
        remaining = max(self._length - done, 0)
        eta = remaining / speed if speed > 0 else None
        if remaining == 0:
            eta = 0.0
        return iteration, epoch, min(done / self._length, 1.0), speed_t, eta

    def get_lines(self):
        iteration, epoch, rate, speed_t, eta = self._state()
        n = self._bar_length
        epoch_rate = epoch - int(epoch)
        return [
            f"     total {util.render_bar(rate, n)} {rate:6.2%}\n",
            f"this epoch {util.render_bar(epoch_rate, n)} {epoch_rate:6.2%}\n",
            f"{iteration:10} iter, {int(epoch)} epoch / {self._length} {self._unit}s\n",
            f"{speed_t:10.5g} iters/sec. Estimated time to finish: "
            f"{util.format_eta(eta)}.\n",
        ]

    def get_line(self):
        iteration, epoch, rate, speed_t, eta = self._state()
        return (
            f"{iteration} iter, {epoch:.2f} epoch / {self._length} {self._unit}s "
            f"({rate:.2%}), {speed_t:.5g} iters/sec, "
            f"estimated time to finish: {util.format_eta(eta)}"
        )
