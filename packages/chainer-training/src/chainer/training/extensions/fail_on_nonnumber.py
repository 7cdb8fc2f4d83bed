"""The :class:`FailOnNonNumber` trainer extension."""

from __future__ import annotations

from chainer import backend
from chainer.training import extension


class FailOnNonNumber(extension.Extension):
    """Stops the training with an error once a parameter holds NaN or Inf.

    At every iteration (by default) it checks the parameters of the target
    link of every optimizer of the updater, and stops the training with a
    :class:`RuntimeError` naming the optimizer and the parameter as soon as
    one of them holds NaN or infinity (the training diverged).
    Uninitialized parameters are skipped.
    """

    def __call__(self, trainer):
        """Checks the parameters.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        for name, optimizer in trainer.updater.get_all_optimizers().items():
            target = optimizer.target
            for path, param in target.namedparams():
                array = param.array
                if array is None:
                    continue
                xp = backend.get_array_module(array)
                if not xp.isfinite(array).all():
                    raise RuntimeError(
                        f"training diverged: the parameter {path!r} of the "
                        f"target {type(target).__name__} of optimizer {name!r} "
                        "contains NaN or Inf; stopping the training"
                    )
