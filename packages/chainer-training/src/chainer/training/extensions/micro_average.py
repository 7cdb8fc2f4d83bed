"""The :class:`MicroAverage` trainer extension."""

from __future__ import annotations

from chainer import reporter as reporter_module
from chainer import serializer as serializer_module
from chainer import variable
from chainer.training import extension
from chainer.training import trigger as trigger_module
from chainer.training.extensions import util


def _scalar(value, key):
    # Values stay on their device (no synchronization per iteration); they
    # are converted to a Python float when the ratio is reported.
    if isinstance(value, variable.Variable):
        value = value.array
    if isinstance(value, (int, float)) or getattr(value, "ndim", None) == 0:
        return value
    raise TypeError(
        f"MicroAverage: the observed value of {key!r} must be a scalar, got "
        f"{type(value).__name__} {getattr(value, 'shape', '')}"
    )


class MicroAverage(extension.Extension):
    """Reports a ratio of sums (a micro average) of two observed values.

    A macro-average, such as :class:`LogReport`'s mean of per-batch
    accuracies, weighs every batch equally; a micro-average divides the sum
    of the numerators by the sum of the denominators over all batches,
    which weighs every example equally. For example, report the number of
    correct answers and the number of examples of each batch::

        chainer.report({'n_correct': n_correct, 'n_total': n_total}, self)

    and register::

        trainer.extend(MicroAverage(
            'main/n_correct', 'main/n_total', 'main/accuracy'))

    Iterations in which either key was not observed are skipped. At each
    firing of ``trigger`` the ratio is reported under ``result_key`` and
    the sums restart from zero; NaN is reported when the denominators sum
    to zero.

    Args:
        numerator_key (str): Key of the numerator values.
        denominator_key (str): Key of the denominator values.
        result_key (str): Key of the reported ratio.
        trigger: Trigger deciding when to report the ratio.
    """

    priority = extension.PRIORITY_EDITOR

    def __init__(
        self, numerator_key, denominator_key, result_key, trigger=(1, "epoch")
    ):
        for key, what in (
            (numerator_key, "numerator_key"),
            (denominator_key, "denominator_key"),
            (result_key, "result_key"),
        ):
            if not isinstance(key, str):
                raise TypeError(f"{what} must be a str, not {key!r}")
        self._trigger = trigger_module.get_trigger(trigger)
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator = 0.0
        self._denominator = 0.0

    def __call__(self, trainer):
        """Accumulates the observed values and reports the ratio when triggered.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        observation = trainer.observation
        num_key, den_key = self._numerator_key, self._denominator_key
        if num_key not in observation or den_key not in observation:
            return
        self._numerator += _scalar(observation[num_key], num_key)
        self._denominator += _scalar(observation[den_key], den_key)

        if self._trigger(trainer):
            numerator = float(self._numerator)
            denominator = float(self._denominator)
            result = numerator / denominator if denominator else float("nan")
            self._numerator = 0.0
            self._denominator = 0.0
            reporter_module.report({self._result_key: result})

    def serialize(self, serializer):
        """Serializes the trigger and the running sums.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        util.serialize_trigger(serializer, self._trigger)
        if isinstance(serializer, serializer_module.Serializer):
            serializer("_numerator", float(self._numerator))
            serializer("_denominator", float(self._denominator))
        else:
            self._numerator = float(serializer("_numerator", None))
            self._denominator = float(serializer("_denominator", None))
