"""ParallelUpdater: synchronous data-parallel training over devices in one process."""

from __future__ import annotations

from chainer import backend
from chainer import function
from chainer.dataset import convert
from chainer.training.updaters import _step
from chainer.training.updaters import standard_updater


class ParallelUpdater(standard_updater.StandardUpdater):
    """Implementation of a parallel GPU Updater.

    This is an implementation of :class:`~chainer.training.Updater` that uses
    multiple devices in one process. It behaves like
    :class:`~chainer.training.updaters.StandardUpdater`, with the update
    routine changed for synchronous data-parallel SGD: every minibatch of the
    main iterator is split between the devices (example ``i`` goes to device
    ``i % n``), each part's loss and gradients are computed by the model copy
    on its device, the gradients are accumulated into the main model, the
    main optimizer updates it, and the updated parameters (and persistent
    values) are copied back to the other copies.

    Each part's gradient is weighted by the part's share of the minibatch
    (``1 / n`` when the batch divides evenly), so that with a loss averaged
    over the examples (``mean`` reduction, as in
    :class:`~chainer.links.Classifier`) an update equals the one a single
    device makes on the whole minibatch. Chainer 7 summed the parts'
    gradients unweighted, which scales the effective learning rate by the
    number of devices.

    Devices may repeat: ``devices={'main': '@numpy', 'second': '@numpy'}``
    runs two model copies on the CPU one after the other, which gives the
    same result as one device.

    Each copy other than the main one is registered to the trainer's
    reporter under its name in ``devices`` (``'second/loss'``...); the main
    model reports under ``'main'`` as usual.

    Args:
        iterator: Dataset iterator for the training dataset. It can also be a
            dictionary of iterators. If this is just an iterator, then the
            iterator is registered by the name ``'main'``.
        optimizer: Optimizer to update parameters. It can also be a
            dictionary of optimizers. If this is just an optimizer, then the
            optimizer is registered by the name ``'main'``.
        converter: Converter function to build input arrays. Each batch
            extracted by the main iterator is split between the devices and
            each part is passed with the corresponding device to this
            function. :func:`~chainer.dataset.concat_examples` is used by
            default.
        models (dict): Dictionary of models, name -> link. The ``'main'``
            model must be the target link of the ``'main'`` optimizer. If
            omitted, the main optimizer's target is copied (``copy('copy')``)
            to every device of ``devices`` other than ``'main'``.
        devices (dict): Dictionary of devices, name -> device specifier (an
            integer id, a string such as ``'@numpy'`` or ``'@cupy:1'``, or a
            :class:`~chainer.backend.Device`), with the same keys as
            ``models``; it must contain ``'main'``. If ``models`` is given
            without ``devices``, each model's current device is used.
        loss_func: Loss function. The model is used as a loss function by
            default.
        loss_scale (float): Loss scaling factor. Loss scaling is a useful
            technique to mitigate the vanishing gradient issue that tends to
            happen when a low precision data type like float16 is used
            during training. If you set a loss scaling factor, gradients of
            loss values are multiplied by the factor before backprop starts;
            the update divides it out again.
        auto_new_epoch (bool): If ``True``,
            :meth:`~chainer.Optimizer.new_epoch` of the main optimizer is
            automatically called when the ``is_new_epoch`` attribute of the
            main iterator is ``True``.
    """

    def __init__(
        self,
        iterator,
        optimizer,
        converter=convert.concat_examples,
        models=None,
        devices=None,
        loss_func=None,
        loss_scale=None,
        auto_new_epoch=True,
    ):
        super().__init__(
            iterator=iterator,
            optimizer=optimizer,
            converter=converter,
            loss_func=loss_func,
            loss_scale=loss_scale,
            auto_new_epoch=auto_new_epoch,
        )
        master = self.get_optimizer("main").target
        if models is None:
            if devices is None:
                raise ValueError(
                    "ParallelUpdater needs `devices` (a dict of name -> device "
                    "with a 'main' entry) or `models`"
                )
            devices = _resolve_devices(devices, "devices")
            models = {"main": master}
            for name, device in devices.items():
                if name != "main":
                    models[name] = master.copy(mode="copy").to_device(device)
            master.to_device(devices["main"])
        else:
            models = _check_models(models, master)
            if devices is None:
                devices = {name: model.device for name, model in models.items()}
            else:
                devices = _resolve_devices(devices, "devices")
                if set(devices) != set(models):
                    raise ValueError(
                        "`devices` and `models` must have the same keys; got "
                        f"devices {sorted(devices)} and models {sorted(models)}"
                    )
        # The main model first: the others copy its lazily initialized
        # parameters before their own first forward pass.
        self._models = {"main": models["main"]}
        self._models.update(models)
        self._devices = {name: devices[name] for name in self._models}
        self._others = [m for n, m in self._models.items() if n != "main"]
        self._sync_pending = True

    def connect_trainer(self, trainer):
        """Registers the model copies as observers of the trainer's reporter.

        The copy on device ``name`` (and its child links) report under
        ``name``, e.g. ``'second/loss'``; the main model is registered by the
        trainer itself.

        Args:
            trainer (~chainer.training.Trainer): Trainer object to which the
                updater is registered.
        """
        super().connect_trainer(trainer)
        reporter = trainer.reporter
        for name, model in self._models.items():
            if name == "main":
                continue
            reporter.add_observer(name, model)
            reporter.add_observers(name, model.namedlinks(skipself=True))

    def update_core(self):
        """Runs one data-parallel iteration over all devices.

        Raises:
            ValueError: The minibatch has fewer examples than there are
                devices, so some device would get an empty part.
        """
        optimizer = self.get_optimizer("main")
        master = optimizer.target
        iterator = self.get_iterator("main")
        batch = _step.next_batch(iterator)
        n = len(self._models)
        total = len(batch)
        if total < n:
            raise ValueError(
                f"ParallelUpdater cannot split a minibatch of {total} example(s) "
                f"between {n} devices; use a batch size of at least {n}"
            )

        sync = self._sync_pending
        converter = self.converter
        loss_func = self.loss_func
        losses = []
        with function.force_backprop_mode():
            for i, (name, model) in enumerate(self._models.items()):
                if sync and model is not master:
                    model.copyparams(master)
                device = self._devices[name]
                part = batch[i::n]
                in_arrays = _step.convert_batch(converter, part, device)
                with backend.using_device(device):
                    loss = _step.call_loss(loss_func or model, in_arrays)
                losses.append((loss, len(part) / total))

        # Forward passes may have initialized parameters lazily.
        for model in self._models.values():
            model.cleargrads()
        loss_scale = self.loss_scale
        for loss, weight in losses:
            _backward(loss, weight, loss_scale)
        del losses, loss

        for model in self._others:
            master.addgrads(model)
        optimizer.update()
        for model in self._others:
            model.copyparams(master)
        self._sync_pending = False

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer):
        """Serializes the current state of the updater object.

        After loading, the other model copies receive the main model's
        parameters before their next forward pass.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        super().serialize(serializer)
        self._sync_pending = True


def _resolve_devices(devices, what):
    if not isinstance(devices, dict):
        raise TypeError(
            f"`{what}` must be a dict of name -> device, not {type(devices).__name__}"
        )
    if "main" not in devices:
        raise KeyError(
            f"`{what}` must contain a 'main' key; got keys {sorted(devices)}"
        )
    return {name: backend.get_device(spec) for name, spec in devices.items()}


def _check_models(models, master):
    if not isinstance(models, dict):
        raise TypeError(
            f"`models` must be a dict of name -> link, not {type(models).__name__}"
        )
    if "main" not in models:
        raise KeyError(f"`models` must contain a 'main' key; got keys {sorted(models)}")
    if models["main"] is not master:
        raise ValueError(
            "models['main'] must be the target link of the 'main' optimizer"
        )
    seen = set()
    for name, model in models.items():
        if id(model) in seen:
            raise ValueError(
                f"models[{name!r}] is the same link as another entry; each device "
                "needs its own copy (use model.copy(mode='copy'))"
            )
        seen.add(id(model))
    return dict(models)


def _backward(loss, weight, loss_scale):
    if weight != 1.0 and loss.array.size == 1:
        # Weighting the initial gradient, not the loss, keeps the reported
        # loss and the graph as the model made them.
        grad = loss.xp.full_like(loss.array, weight)
        if loss_scale is not None:
            grad *= loss_scale
        loss.grad = grad
    loss.backward(loss_scale=loss_scale)
