"""Trigger firing only once."""

from __future__ import annotations

import warnings


class OnceTrigger:
    """Trigger that fires once, at its first call.

    With ``call_on_resume=True`` it fires once more at the first call after
    the trainer is resumed from a snapshot.

    Args:
        call_on_resume (bool): Whether the extension is called again on
            resume.
    """

    def __init__(self, call_on_resume=False):
        self._flag_first = True
        self._flag_resumed = call_on_resume

    @property
    def finished(self):
        """bool: ``True`` when the trigger will not fire any more."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer):
        """Decides whether the extension should be called on this iteration.

        Args:
            trainer (~chainer.training.Trainer): Trainer object that this
                trigger is associated with (not used).

        Returns:
            bool: ``True`` at the first call (and the first after resume).
        """
        fire = not self.finished
        self._flag_first = False
        self._flag_resumed = False
        return fire

    def serialize(self, serializer):
        """Serializes whether the trigger has fired already.

        A snapshot written without the flag (by an old version) loads with a
        warning, as if the trigger had fired.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        try:
            self._flag_first = bool(serializer("_flag_first", self._flag_first))
        except KeyError:
            warnings.warn(
                "the snapshot has no flag for OnceTrigger; it is taken as "
                "already fired, which is wrong if the snapshot was written "
                "before the first call",
                UserWarning,
                stacklevel=2,
            )
            self._flag_first = False
