"""The standard training loop, :class:`Trainer`."""

from __future__ import annotations

import os
import sys
import traceback

from chainer import reporter as reporter_module
from chainer import serializer as serializer_module
from chainer.training import extension as extension_module
from chainer.training import trigger as trigger_module
from chainer.training import util


class _ExtensionEntry:
    __slots__ = ("call_before_training", "extension", "priority", "trigger")

    def __init__(self, extension, priority, trigger, call_before_training):
        self.extension = extension
        self.trigger = trigger
        self.priority = priority
        self.call_before_training = call_before_training


class _ExtensionNotFound(KeyError, ValueError):
    # KeyError as a mapping lookup; ValueError is what Chainer 7 raised.
    def __str__(self):
        return str(self.args[0])


class Trainer:
    """The standard training loop in Chainer.

    Each iteration of :meth:`run` first calls the updater (load a minibatch,
    forward, backward, update the parameters), then the extensions whose
    triggers fire, in descending order of priority (registration order among
    equal priorities). Values reported during the iteration are collected
    into a fresh :attr:`observation` dictionary; the target link of each
    optimizer is registered to :attr:`reporter` under the optimizer's name
    (``'main'``) and its child links under ``<optimizer name><link path>``,
    so that a loss reported by the main model appears as ``'main/loss'``.

    The trainer is serializable: saving it (e.g. with
    :func:`~chainer.serializers.save_npz` or the
    :func:`~chainer.training.extensions.snapshot` extension) stores the
    updater (iterators, optimizers, models), the extensions, their triggers
    and the elapsed time, so that training can be suspended and resumed.
    The stop trigger may be changed on resume.

    Args:
        updater (~chainer.training.Updater): Updater object; it defines how
            to update the models.
        stop_trigger: Trigger that stops the training loop, e.g.
            ``(20, 'epoch')``; see :func:`~chainer.training.get_trigger`.
            ``None`` never stops.
        out (str): Output directory of the extensions (logs, snapshots).
        extensions (list): Extensions registered with default arguments of
            :meth:`extend`.

    Attributes:
        updater: The updater object.
        stop_trigger: Trigger that determines when to stop the training
            loop; the loop stops at the iteration on which it returns
            ``True``.
        observation (dict): Values observed at the last iteration.
        out (str): Output directory.
        reporter (~chainer.Reporter): Reporter that collects observed
            values; other observers can be registered to it.
    """

    def __init__(self, updater, stop_trigger=None, out="result", extensions=None):
        self.updater = updater
        self.stop_trigger = trigger_module.get_trigger(stop_trigger)
        self.observation = {}
        self.out = out
        if extensions is None:
            extensions = []

        reporter = reporter_module.Reporter()
        for name, optimizer in updater.get_all_optimizers().items():
            target = optimizer.target
            if target is None:
                raise ValueError(
                    f"optimizer {name!r} has no target link: call "
                    "optimizer.setup(model) before creating the Trainer"
                )
            reporter.add_observer(name, target)
            reporter.add_observers(name, target.namedlinks(skipself=True))
        self.reporter = reporter

        self._done = False
        self._extensions = {}
        self._start_at = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time = None

        updater.connect_trainer(self)
        for ext in extensions:
            self.extend(ext)

    @property
    def is_before_training(self):
        """Whether no update has been made yet (``updater.iteration == 0``).

        Returns:
            bool: ``True`` before the first iteration.
        """
        return self.updater.iteration == 0

    @property
    def elapsed_time(self):
        """Total time used for the training, in seconds.

        After a resume it includes the time of the training before the
        snapshot.

        Returns:
            float: Elapsed seconds.
        """
        if self._done:
            return self._final_elapsed_time
        if self._start_at is None:
            raise RuntimeError(
                "trainer.elapsed_time is only available once the training has "
                "started (inside run())"
            )
        return util._get_time() - self._start_at + self._snapshot_elapsed_time

    def extend(
        self,
        extension,
        name=None,
        trigger=None,
        priority=None,
        *,
        call_before_training=False,
        **kwargs,
    ):
        """Registers an extension to the trainer.

        If an extension of the same name is registered already, the new one
        gets the suffix ``_N``, N being the ordinal of the duplicate
        (``'LogReport_1'``, ...). The final name is stored in
        ``extension.name``.

        Args:
            extension: Extension to register: an
                :class:`~chainer.training.Extension`, a function made by
                :func:`~chainer.training.make_extension` or any callable
                taking the trainer.
            name (str): Name of the extension; by default its ``name``,
                ``default_name`` or ``__name__`` attribute.
            trigger: Trigger deciding when to call it. ``None`` uses
                ``extension.trigger``, or every iteration if it has none.
                Non-callables are passed to
                :class:`~chainer.training.triggers.IntervalTrigger`.
            priority (int): Invocation priority; higher ones run earlier.
                ``None`` uses ``extension.priority`` (default
                ``PRIORITY_READER``).
            call_before_training (bool): If ``True``, the extension is also
                called once before the first iteration of :meth:`run`.
        """
        if kwargs:
            if "invoke_before_training" in kwargs:
                raise ValueError(extension_module._REMOVED_INVOKE_BEFORE_TRAINING)
            names = ", ".join(repr(k) for k in kwargs)
            raise TypeError(f"extend() got unexpected keyword argument(s) {names}")
        if not callable(extension):
            raise TypeError(
                "an extension must be callable with the trainer as its argument; "
                f"got {type(extension).__name__} object {extension!r}"
            )
        if name is None:
            # NOTE: an object's own name attribute need not be a str (a mock
            # of an extension has a mock there); Chainer keys it as it is,
            # and its text does as well here.
            name = _default_extension_name(extension)
            if not isinstance(name, str):
                name = str(name)
        elif not isinstance(name, str):
            raise TypeError(f"extension name must be a str; got {name!r}")
        if name == "training":
            raise ValueError('the name "training" is prohibited as an extension name')

        if trigger is None:
            trigger = getattr(extension, "trigger", None)
            if trigger is None:
                trigger = (1, "iteration")
        trigger = trigger_module.get_trigger(trigger)

        if priority is None:
            priority = getattr(extension, "priority", None)
            if priority is None:
                priority = extension_module.PRIORITY_READER

        modified_name = name
        ordinal = 0
        while modified_name in self._extensions:
            ordinal += 1
            modified_name = f"{name}_{ordinal}"
        try:
            extension.name = modified_name
        except (AttributeError, TypeError):
            pass  # bound methods and builtins cannot carry a name
        self._extensions[modified_name] = _ExtensionEntry(
            extension, priority, trigger, bool(call_before_training)
        )

    def get_extension(self, name):
        """Returns the extension registered under ``name``.

        Args:
            name (str): Name of the extension.

        Returns:
            The extension object.
        """
        entry = self._extensions.get(name)
        if entry is None:
            known = ", ".join(repr(n) for n in self._extensions) or "none"
            raise _ExtensionNotFound(
                f"extension {name!r} not found; registered extensions: {known}"
            )
        return entry.extension

    def run(self, show_loop_exception_msg=True):
        """Executes the training loop.

        It creates the output directory, calls each extension's
        ``initialize`` (skipped for extensions whose trigger reports
        ``finished``), calls the extensions registered with
        ``call_before_training``, then updates and calls the triggered
        extensions until the stop trigger fires. If the loop raises, each
        extension's ``on_error`` is called and the exception is re-raised.
        In every case the extensions' ``finalize`` and the updater's
        ``finalize`` are called at the end. A trainer runs only once.

        Args:
            show_loop_exception_msg (bool): If ``True``, an exception raised
                in the loop is printed to stderr before the error handlers
                run.
        """
        if self._done:
            raise RuntimeError("cannot run the training loop of a Trainer twice")
        try:
            os.makedirs(self.out, exist_ok=True)
        except FileExistsError:
            raise FileExistsError(
                f"cannot create the output directory {self.out!r}: a file of that "
                "name exists"
            ) from None

        entries = sorted(
            self._extensions.values(), key=lambda e: e.priority, reverse=True
        )
        # The loop reads (trigger, extension) pairs only.
        triggered = [(e.trigger, e.extension) for e in entries]
        self._start_at = util._get_time()
        failed = True
        try:
            for entry in entries:
                initializer = getattr(entry.extension, "initialize", None)
                if initializer and not getattr(entry.trigger, "finished", False):
                    initializer(self)
            self._loop(entries, triggered)
            failed = False
        except Exception as e:
            self._handle_error(e, entries, show_loop_exception_msg)
            raise
        finally:
            self._finalize(entries, failed)
        self._final_elapsed_time = self.elapsed_time
        self._done = True

    def _loop(self, entries, triggered):
        reporter = self.reporter
        self.observation = {}
        with reporter.scope(self.observation):
            for entry in entries:
                if entry.call_before_training:
                    entry.extension(self)

        update = self.updater.update
        stop_trigger = self.stop_trigger
        # What reporter.scope(observation) does, unrolled: the generator-based
        # context manager is a noticeable part of an iteration's overhead.
        previous = reporter.observation
        try:
            while not stop_trigger(self):
                self.observation = reporter.observation = {}
                with reporter:
                    update()
                    for trigger, ext in triggered:
                        if trigger(self):
                            ext(self)
        finally:
            reporter.observation = previous

    def _finalize(self, entries, failed):
        # Every finalizer runs, so that one failing does not leak the worker
        # processes of the iterators. A finalizer's error is raised after the
        # others ran, unless the loop's own error is already propagating.
        finalizers = [getattr(entry.extension, "finalize", None) for entry in entries]
        finalizers.append(self.updater.finalize)
        first = None
        for finalize in finalizers:
            if not finalize:
                continue
            try:
                finalize()
            except Exception as e:
                if failed:
                    sys.stderr.write(f"Exception in finalizer: {e!r}\n")
                elif first is None:
                    first = e
        if first is not None:
            raise first

    def _handle_error(self, exc, entries, show_msg):
        tb = exc.__traceback__
        f = sys.stderr
        if show_msg:
            f.write(f"Exception in main training loop: {exc}\n")
            f.write("Traceback (most recent call last):\n")
            traceback.print_tb(tb, file=f)
            f.write(
                "Will finalize trainer extensions and updater before "
                "reraising the exception.\n"
            )
        for entry in entries:
            handler = getattr(entry.extension, "on_error", None)
            if not handler:
                continue
            try:
                handler(self, exc, tb)
            except Exception as he:
                f.write(f"Exception in error handler: {he}\n")
                f.write("Traceback (most recent call last):\n")
                traceback.print_tb(he.__traceback__, file=f)

    def serialize(self, serializer):
        """Serializes or deserializes the trainer.

        It (de)serializes the updater (under ``updater``), the stop trigger,
        each extension (under ``extensions/<name>``) and its trigger (under
        ``extension_triggers/<name>``), and the elapsed time.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        self.updater.serialize(serializer["updater"])
        if hasattr(self.stop_trigger, "serialize"):
            self.stop_trigger.serialize(serializer["stop_trigger"])

        s = serializer["extensions"]
        t = serializer["extension_triggers"]
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, "serialize"):
                entry.extension.serialize(s[name])
            if hasattr(entry.trigger, "serialize"):
                entry.trigger.serialize(t[name])

        if isinstance(serializer, serializer_module.Serializer):
            if self._done or self._start_at is not None:
                elapsed = self.elapsed_time
            else:
                elapsed = self._snapshot_elapsed_time
            serializer("_snapshot_elapsed_time", elapsed)
        else:
            self._snapshot_elapsed_time = serializer("_snapshot_elapsed_time", 0.0)


def _default_extension_name(extension):
    for attr in ("name", "default_name", "__name__"):
        name = getattr(extension, attr, None)
        if name is not None:
            return name
    raise TypeError(
        f"name is not given for the extension {extension!r}: pass name= to "
        "extend() or give it a default_name"
    )
