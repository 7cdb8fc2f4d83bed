"""The :class:`unchain_variables` trainer extension."""

from __future__ import annotations

from chainer import variable
from chainer.training import extension


class unchain_variables(extension.Extension):
    """Trainer extension that unchains the graphs of the observed variables.

    At the end of every iteration, after the other extensions (its priority
    is 0, below ``PRIORITY_READER``), it calls
    :meth:`~chainer.Variable.unchain_backward` on every variable of the
    trainer's observation. The graphs kept by reported variables (with
    ``chainer.config.keep_graph_on_report`` set, say) are then released at
    once instead of staying alive until the next iteration.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.unchain_variables()
        >>> ext.trigger, ext.priority
        ((1, 'iteration'), 0)
    """

    trigger = 1, "iteration"
    priority = 0

    def __call__(self, trainer):
        """Unchains the observed variables.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        for value in trainer.observation.values():
            if isinstance(value, variable.Variable):
                value.unchain_backward()
