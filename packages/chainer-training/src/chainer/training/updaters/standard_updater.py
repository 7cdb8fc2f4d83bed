"""The standard updater: one minibatch, one loss, one optimizer step."""

from __future__ import annotations

from chainer import backend
from chainer.dataset import convert
from chainer.training import updater as updater_module
from chainer.training.updaters import _step


def _as_named_dict(value, what):
    if isinstance(value, dict):
        if not value:
            raise ValueError(f"the dict of {what}s is empty")
        return dict(value)
    return {"main": value}


class StandardUpdater(updater_module.Updater):
    """Standard implementation of :class:`~chainer.training.Updater`.

    Each :meth:`update` takes a minibatch from the main iterator, converts it
    with ``converter(batch, device)`` and updates the main optimizer with the
    loss function: a tuple batch is passed as positional arguments
    (``loss_func(x, t)``), a dict as keyword arguments, anything else as the
    single argument. Override :meth:`update_core` for other update
    procedures (BPTT, GANs); it may use several iterators and optimizers.

    Args:
        iterator: Dataset iterator of the training dataset, or a dict of
            iterators; a single iterator is registered as ``'main'``.
        optimizer: Optimizer, or a dict of optimizers; a single one is
            registered as ``'main'``.
        converter: Converter building the input arrays from a batch;
            :func:`~chainer.dataset.concat_examples` by default. A
            :class:`~chainer.dataset.Converter` receives a
            :class:`~chainer.backend.Device` (or ``None``), a plain function
            the legacy form (``-1`` for the CPU, the GPU id for CUDA).
        device: Device (specifier) to which the models of all optimizers are
            sent and, unless ``input_device`` is given, the training data.
            ``None`` leaves the models where they are.
        loss_func: Loss function; the target link of the main optimizer is
            used if ``None``.
        loss_scale (float): Static loss scale given to every optimizer
            (``None`` turns it off).
        auto_new_epoch (bool): If ``True``, ``new_epoch(auto=True)`` of the
            main optimizer is called at the end of each epoch of the main
            iterator.
        input_device: (keyword only) Device to which the training data is
            sent; ``device`` by default. Unlike ``device``, it does not move
            the models.

    Attributes:
        converter: Converter function.
        loss_func: Loss function, or ``None`` for the main target link.
        iteration (int): Number of completed updates.
        auto_new_epoch (bool): Whether the optimizer's epoch is advanced
            automatically.
    """

    def __init__(
        self,
        iterator,
        optimizer,
        converter=convert.concat_examples,
        device=None,
        loss_func=None,
        loss_scale=None,
        auto_new_epoch=True,
        **kwargs,
    ):
        input_device = kwargs.pop("input_device", None)
        if kwargs:
            names = ", ".join(repr(k) for k in kwargs)
            raise TypeError(
                f"StandardUpdater got unexpected keyword argument(s) {names}"
            )
        if device is not None and input_device is not None:
            raise ValueError("device and input_device cannot be given at the same time")

        self._iterators = _as_named_dict(iterator, "iterator")
        for name, it in self._iterators.items():
            if not (hasattr(it, "next") or hasattr(it, "__next__")):
                raise TypeError(
                    f"iterator {name!r} must be a dataset iterator (such as "
                    f"SerialIterator); got {type(it).__name__}"
                )
        if "main" not in self._iterators:
            raise ValueError(
                "the dict of iterators needs a 'main' entry (the trainer reads "
                f"epochs from it); got {sorted(self._iterators)}"
            )
        self._optimizers = _as_named_dict(optimizer, "optimizer")
        for name, opt in self._optimizers.items():
            if not (hasattr(opt, "update") and hasattr(opt, "target")):
                raise TypeError(f"optimizer {name!r} must be an Optimizer; got {opt!r}")

        if device is not None:
            device = backend.get_device(device)
            for name, opt in self._optimizers.items():
                if opt.target is None:
                    raise ValueError(
                        f"optimizer {name!r} has no target link to send to "
                        f"{device}: call optimizer.setup(model) first"
                    )
                opt.target.to_device(device)
        if input_device is not None:
            input_device = backend.get_device(input_device)
        else:
            input_device = device

        if not callable(converter):
            raise TypeError(f"converter must be callable; got {converter!r}")
        self.converter = converter
        self.loss_func = loss_func
        self._device = device
        self._input_device = input_device
        self.iteration = 0

        self.loss_scale = loss_scale
        if loss_scale is not None:
            for opt in self._optimizers.values():
                opt.set_loss_scale(loss_scale)
        self.auto_new_epoch = auto_new_epoch
        if auto_new_epoch:
            for opt in self._optimizers.values():
                opt.use_auto_new_epoch = True

    @property
    def device(self):
        """~chainer.backend.Device: Device of the models (``None`` if not moved)."""
        return self._device

    @property
    def input_device(self):
        """~chainer.backend.Device: Device to which the training data is sent.

        It is ``device`` unless ``input_device`` was given; ``None`` leaves
        the arrays where the converter puts them. It may be reassigned with
        any device specifier.
        """
        return self._input_device

    @input_device.setter
    def input_device(self, device):
        self._input_device = None if device is None else backend.get_device(device)

    @property
    def epoch(self):
        """int: Number of completed sweeps over the main iterator."""
        return self._iterators["main"].epoch

    @property
    def epoch_detail(self):
        """float: Epoch of the main iterator as a float (``2.5`` mid third)."""
        return self._iterators["main"].epoch_detail

    @property
    def previous_epoch_detail(self):
        """float: ``epoch_detail`` before the last update (``None`` before any)."""
        return self._iterators["main"].previous_epoch_detail

    @property
    def is_new_epoch(self):
        """bool: ``True`` if the last update finished an epoch."""
        return self._iterators["main"].is_new_epoch

    def finalize(self):
        """Finalizes the updater: finalizes every iterator."""
        for it in self._iterators.values():
            finalize = getattr(it, "finalize", None)
            if finalize is not None:
                finalize()

    def get_optimizer(self, name):
        """Gets the optimizer of a given name.

        Args:
            name (str): Name of the optimizer (``'main'`` for a single one).

        Returns:
            ~chainer.Optimizer: The optimizer.
        """
        try:
            return self._optimizers[name]
        except KeyError:
            raise KeyError(
                f"no optimizer named {name!r}; known: {sorted(self._optimizers)}"
            ) from None

    def get_all_optimizers(self):
        """Gets a dictionary of all optimizers for this updater.

        Returns:
            dict: Dictionary that maps names to optimizers.
        """
        return dict(self._optimizers)

    def get_iterator(self, name):
        """Gets the dataset iterator of a given name.

        Args:
            name (str): Name of the iterator (``'main'`` for a single one).

        Returns:
            ~chainer.dataset.Iterator: The iterator.
        """
        try:
            return self._iterators[name]
        except KeyError:
            raise KeyError(
                f"no iterator named {name!r}; known: {sorted(self._iterators)}"
            ) from None

    def update(self):
        """Updates the parameters of the target model (one iteration).

        It calls :meth:`update_core` and increments :attr:`iteration`.
        """
        self.update_core()
        self.iteration += 1

    def update_core(self):
        """Performs one update: reads a batch, converts it, updates."""
        iterator = self._iterators["main"]
        batch = _step.next_batch(iterator)
        in_arrays = _step.convert_batch(self.converter, batch, self._input_device)

        optimizer = self._optimizers["main"]
        loss_func = self.loss_func
        if loss_func is None:
            loss_func = optimizer.target
        if isinstance(in_arrays, tuple):
            optimizer.update(loss_func, *in_arrays)
        elif isinstance(in_arrays, dict):
            optimizer.update(loss_func, **in_arrays)
        else:
            optimizer.update(loss_func, in_arrays)

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer):
        """Serializes the iterators, optimizers, models and iteration count.

        Entries are named ``iterator:<name>``, ``optimizer:<name>``,
        ``model:<name>`` and ``iteration``, as in Chainer's snapshots.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        for name, it in self._iterators.items():
            it.serialize(serializer["iterator:" + name])
        for name, opt in self._optimizers.items():
            opt.serialize(serializer["optimizer:" + name])
            opt.target.serialize(serializer["model:" + name])
        self.iteration = serializer("iteration", self.iteration)
