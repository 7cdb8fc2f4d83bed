"""Extensions observing a value: :func:`observe_value` and :func:`observe_lr`."""

from __future__ import annotations

from chainer.training import extension


def observe_value(observation_key, target_func):
    """Makes an extension that stores a computed value in the observation.

    The extension stores ``target_func(trainer)`` in the observation of the
    trainer under ``observation_key`` (once per epoch by default, with
    priority ``PRIORITY_WRITER``), where :class:`LogReport` picks it up.

    Args:
        observation_key (str): Key of the observation to record.
        target_func (callable): Function taking the trainer and returning
            the value to record.

    Returns:
        The extension function.

    Example:
        >>> from chainer.training import extensions
        >>> ext = extensions.observe_value(
        ...     'alpha', lambda trainer: trainer.updater.get_optimizer('main').alpha)
        >>> ext.trigger
        (1, 'epoch')
    """
    if not isinstance(observation_key, str):
        raise TypeError(f"observation_key must be a str, not {observation_key!r}")
    if not callable(target_func):
        raise TypeError(f"target_func must be callable, not {target_func!r}")

    @extension.make_extension(trigger=(1, "epoch"), priority=extension.PRIORITY_WRITER)
    def _observe_value(trainer):
        trainer.observation[observation_key] = target_func(trainer)

    return _observe_value


def observe_lr(optimizer_name="main", observation_key="lr"):
    """Makes an extension that stores an optimizer's learning rate.

    Args:
        optimizer_name (str): Name of the optimizer of the updater whose
            ``lr`` is recorded.
        observation_key (str): Key of the observation to record.

    Returns:
        The extension function.
    """

    def lr(trainer):
        optimizer = trainer.updater.get_optimizer(optimizer_name)
        try:
            return optimizer.lr
        except AttributeError:
            raise AttributeError(
                f"observe_lr: the optimizer {optimizer_name!r} "
                f"({type(optimizer).__name__}) has no attribute 'lr'; record "
                "its own hyperparameter with observe_value"
            ) from None

    return observe_value(observation_key, lr)
