"""The :class:`unchain_variables` trainer extension."""

from __future__ import annotations

from chainer import variable
from chainer.training import extension


class unchain_variables(extension.Extension):
    """Cuts the computational graphs of the observed variables each iteration.

    At the end of every iteration, after the other extensions (its priority
    is 0, below ``PRIORITY_READER``), it calls
    :meth:`~chainer.Variable.unchain_backward` on every variable of the
    trainer's observation, so that graphs kept by reported variables (with
    ``chainer.config.keep_graph_on_report``, say) are released at once
    instead of staying alive until the next iteration.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.unchain_variables()
        >>> ext.priority
        0
    """

    priority = 0

    def trigger(self, _):
        """Fires at every iteration.

        Args:
            _ (~chainer.training.Trainer): Trainer object (unused).

        Returns:
            bool: Always ``True``.
        """
        return True

    def __call__(self, trainer):
        """Unchains the observed variables.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        for value in trainer.observation.values():
            if isinstance(value, variable.Variable):
                value.unchain_backward()
