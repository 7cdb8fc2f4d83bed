"""Base class of trainer extensions and the :func:`make_extension` decorator."""

from __future__ import annotations

from chainer import training

PRIORITY_WRITER = training.PRIORITY_WRITER
PRIORITY_EDITOR = training.PRIORITY_EDITOR
PRIORITY_READER = training.PRIORITY_READER

_REMOVED_INVOKE_BEFORE_TRAINING = (
    "invoke_before_training has been removed since Chainer v2.0.0; use "
    "initializer= (make_extension) or Extension.initialize instead"
)


class Extension:
    """Base class of trainer extensions.

    An extension is a callable taking the :class:`~chainer.training.Trainer`.
    Besides subclassing this class, a function decorated by
    :func:`make_extension`, or any callable (a lambda included), can be
    registered with :meth:`Trainer.extend() <chainer.training.Trainer.extend>`;
    a callable without these attributes gets the defaults of this class.

    The trainer calls :meth:`initialize` once before the training loop, the
    extension itself at the iterations its trigger accepts, :meth:`on_error`
    if the loop raises, and :meth:`finalize` when the loop ends.

    Attributes:
        trigger: Default trigger, ``(1, 'iteration')``.
        priority (int): Default priority, ``PRIORITY_READER``. Extensions of
            higher priorities run earlier in an iteration.
        name (str): Name under which the trainer registered the extension
            (``None`` before registration).
    """

    trigger = 1, "iteration"
    priority = PRIORITY_READER
    name = None

    @property
    def default_name(self):
        """Default name of the extension: the name of its class.

        Returns:
            str: The class name. Subclasses may override it, as a property or
            a class attribute.
        """
        return type(self).__name__

    def __call__(self, trainer):
        """Invokes the extension.

        Implementations override this; the trainer calls it at the
        iterations its trigger accepts.

        Args:
            trainer (~chainer.training.Trainer): Trainer calling it.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must override Extension.__call__(trainer)"
        )

    def __getattr__(self, name):
        # Only reached for missing attributes; names the removed v1 flag.
        if name == "invoke_before_training":
            raise AttributeError(_REMOVED_INVOKE_BEFORE_TRAINING)
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}"
        )

    # The hooks below are optional and do nothing by default.
    def finalize(self):
        """Finalizes the extension; called at the end of the training loop."""

    def initialize(self, trainer):
        """Initializes the extension before the training loop starts.

        It runs on resume as well, so extensions that modify the training
        state (a learning rate, say) recover it here.

        Args:
            trainer (~chainer.training.Trainer): Trainer that is about to run.
        """

    def on_error(self, trainer, exc, tb):
        """Handles an error raised in the training loop.

        Called before the error is re-raised and before :meth:`finalize`.

        Args:
            trainer (~chainer.training.Trainer): Trainer that raised.
            exc (Exception): The exception.
            tb (traceback): Its traceback.
        """

    def serialize(self, serializer):
        """Serializes the extension state (nothing by default).

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """


def make_extension(
    trigger=None,
    default_name=None,
    priority=None,
    finalizer=None,
    initializer=None,
    on_error=None,
    **kwargs,
):
    """Decorator that turns a function into a trainer extension.

    It only sets attributes on the decorated function (or class); unset
    arguments take the defaults of :class:`Extension`.

    Args:
        trigger: Default trigger of the extension, e.g. ``(1, 'epoch')``.
        default_name (str): Default name; the function's ``__name__`` if
            omitted.
        priority (int): Default priority.
        finalizer (callable): Called with no argument at the end of
            training.
        initializer (callable): Called with the trainer before training.
        on_error (callable): Called as ``on_error(trainer, exc, tb)`` when
            the training loop raises.

    Returns:
        callable: The decorator.

    Example:
        >>> from chainer import training
        >>> @training.make_extension(trigger=(1, 'epoch'))
        ... def halve_lr(trainer):
        ...     trainer.updater.get_optimizer('main').lr *= 0.5
        >>> halve_lr.default_name, halve_lr.trigger
        ('halve_lr', (1, 'epoch'))
    """
    if kwargs:
        if "invoke_before_training" in kwargs:
            raise ValueError(_REMOVED_INVOKE_BEFORE_TRAINING)
        names = ", ".join(repr(k) for k in kwargs)
        raise TypeError(f"make_extension() got unexpected keyword argument(s) {names}")
    if trigger is None:
        trigger = Extension.trigger
    if priority is None:
        priority = Extension.priority

    def decorator(ext):
        ext.trigger = trigger
        ext.default_name = default_name or getattr(ext, "__name__", None)
        ext.priority = priority
        ext.finalize = finalizer
        ext.on_error = on_error
        ext.initialize = initializer
        return ext

    return decorator
