"""Trigger stopping the training when a monitored value stops improving."""

from __future__ import annotations

import operator
import warnings

from chainer import reporter as reporter_module
from chainer import serializer as serializer_module
from chainer.training import trigger as trigger_module
from chainer.training.triggers import minmax_value_trigger


class EarlyStoppingTrigger:
    """Trigger for early stopping, used as a trainer's stop trigger.

    At each check (the iterations ``check_trigger`` accepts) it compares the
    mean of ``monitor`` since the previous check with the best mean so far.
    It fires, stopping the training, when the value has not improved for
    ``patience`` consecutive checks, or when ``max_trigger`` fires.

    Args:
        check_trigger: Trigger deciding when to check the monitored value.
        monitor (str): Observation key to monitor, e.g.
            ``'validation/main/loss'``.
        patience (int): Number of checks without improvement tolerated;
            ``3`` if ``None``. ``patients`` is accepted as an alias.
        mode (str): ``'max'`` if larger values are better, ``'min'`` if
            smaller ones are, ``'auto'`` to choose ``'max'`` for keys
            containing ``'accuracy'`` and ``'min'`` otherwise.
        verbose (bool): Print the comparison mode and when it stops.
        max_trigger: Trigger ending the training regardless of the monitored
            value. The deprecated keyword ``max_epoch=N`` means
            ``max_trigger=(N, 'epoch')``.

    Attributes:
        count (int): Consecutive checks without improvement.
        patience (int): Checks without improvement that stop the training.
        monitor (str): The monitored key.
        best (float): Best value seen at a check.
    """

    def __init__(
        self,
        check_trigger=(1, "epoch"),
        monitor="main/loss",
        patience=None,
        mode="auto",
        verbose=False,
        max_trigger=(100, "epoch"),
        **kwargs,
    ):
        patients = kwargs.pop("patients", None)
        max_epoch = kwargs.pop("max_epoch", None)
        if kwargs:
            names = ", ".join(repr(k) for k in kwargs)
            raise TypeError(
                f"EarlyStoppingTrigger got unexpected keyword argument(s) {names}"
            )
        if patients is not None:
            if patience is not None:
                raise TypeError(
                    "both 'patience' and its alias 'patients' are given; give "
                    "only 'patience'"
                )
            patience = patients
        if patience is None:
            patience = 3
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"patience must be a non-negative int; got {patience!r}")
        if max_epoch is not None:
            warnings.warn(
                "max_epoch of EarlyStoppingTrigger is deprecated; use "
                "max_trigger=(max_epoch, 'epoch')",
                DeprecationWarning,
                stacklevel=2,
            )
            max_trigger = (max_epoch, "epoch")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"unknown mode {mode!r}; use 'auto', 'min' or 'max'")

        self.count = 0
        self.patience = patience
        self.monitor = monitor
        self.verbose = verbose
        self._max_trigger = trigger_module.get_trigger(max_trigger)
        self._interval_trigger = trigger_module.get_trigger(check_trigger)
        self._init_summary()

        if mode == "max" or (mode == "auto" and "accuracy" in monitor):
            self._compare = operator.gt
            self.best = float("-inf")
            if verbose:
                print("early stopping: operator is greater")
        else:
            self._compare = operator.lt
            self.best = float("inf")
            if verbose:
                print("early stopping: operator is less")

    def __call__(self, trainer):
        """Decides whether the training loop should be stopped.

        Args:
            trainer (~chainer.training.Trainer): Trainer object that this
                trigger is associated with. Its ``observation`` is read.

        Returns:
            bool: ``True`` if the training loop should be stopped.
        """
        observation = trainer.observation
        monitor = self.monitor
        if monitor in observation:
            self._summary.add({monitor: observation[monitor]})

        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False

        stats = self._summary.compute_mean()
        if monitor not in stats:
            warnings.warn(
                f"EarlyStoppingTrigger: {monitor!r} is not in the observation; "
                f"observed keys: {sorted(observation)}",
                stacklevel=2,
            )
            return False
        current = minmax_value_trigger._host_float(stats[monitor])
        self._init_summary()

        if self._compare(current, self.best):
            self.best = current
            self.count = 0
        else:
            self.count += 1

        if self._stop_condition():
            if self.verbose:
                print(f"Epoch {trainer.updater.epoch}: early stopping")
            return True
        return False

    def _stop_condition(self):
        return self.count >= self.patience

    def _init_summary(self):
        self._summary = reporter_module.DictSummary()

    def get_training_length(self):
        """Returns the training length of the max trigger.

        Returns:
            tuple: ``(length, unit)`` of ``max_trigger`` (progress bars use
            it).
        """
        return self._max_trigger.get_training_length()

    def serialize(self, serializer):
        """Serializes the count, the best value and the accumulated values.

        A snapshot without these entries (such as one written by Chainer
        7, whose trigger keeps no state) leaves the trigger as it is.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        if not isinstance(serializer, serializer_module.Serializer):
            try:
                serializer("count", self.count)
            except KeyError:
                return
        self.count = int(serializer("count", self.count))
        self.best = float(serializer("best", self.best))
        self._summary.serialize(serializer["summary"])
        for name, trigger in (
            ("interval_trigger", self._interval_trigger),
            ("max_trigger", self._max_trigger),
        ):
            if hasattr(trigger, "serialize"):
                trigger.serialize(serializer[name])
