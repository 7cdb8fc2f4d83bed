"""The :class:`Evaluator` trainer extension."""

from __future__ import annotations

import copy
import time
import warnings

from chainer import backend
from chainer import configuration
from chainer import function
from chainer import link as link_module
from chainer import reporter as reporter_module
from chainer.dataset import convert
from chainer.training import extension
from chainer.training.extensions import util


class Evaluator(extension.Extension):
    """Measures a model on a validation set once per epoch (by default).

    At each call it sweeps the ``'main'`` iterator once (from its beginning:
    the iterator is reset first), converts each batch with ``converter``,
    calls the evaluation function on it in test mode
    (``chainer.config.train`` is ``False``) without building computational
    graphs (:func:`~chainer.no_backprop_mode`), and averages the values
    that the function reports over the batches. The averages are reported
    to the trainer's reporter, prefixed with the name of the extension:
    ``'validation/main/loss'``, ``'validation/main/accuracy'`` for an
    :class:`~chainer.links.Classifier` target under the default name
    ``'validation'``.

    It may be called outside a trainer as ``evaluator()``; it then returns
    the averages without the name prefix (``result['main/loss']``).

    Args:
        iterator: Dataset iterator of the validation set, or a dict of them
            (the ``'main'`` one is swept). It must not repeat (create a
            :class:`~chainer.iterators.SerialIterator` with
            ``repeat=False``), or the sweep would never end.
        target (~chainer.Link or dict): Link to evaluate, or a dict of links
            (the ``'main'`` one is the default evaluation function). Values
            reported by a target, and by its child links, are named after
            it.
        converter: Converter turning a batch into the arguments of the
            evaluation function (see
            :func:`~chainer.dataset.concat_examples`).
        device: Device to which the converted batches are sent (any
            specifier of :func:`chainer.get_device`, or an int as in
            Chainer 6).
        eval_hook (callable): Called with this extension before each
            evaluation (to reset the state of a recurrent model, say).
        eval_func (callable): Evaluation function called with the converted
            batch (a tuple is passed as positional arguments, a dict as
            keyword arguments). ``None`` uses the ``'main'`` target.
        progress_bar (bool): Keyword only. If ``True``, shows the progress
            of the evaluation on a terminal (see
            :class:`~chainer.training.extensions.ProgressBar`).

    Attributes:
        converter: The converter.
        device: The :class:`~chainer.backend.Device`, or ``None``.
        eval_hook: The evaluation hook.
        eval_func: The evaluation function.
    """

    trigger = 1, "epoch"
    default_name = "validation"
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(
        self,
        iterator,
        target,
        converter=convert.concat_examples,
        device=None,
        eval_hook=None,
        eval_func=None,
        **kwargs,
    ):
        progress_bar = kwargs.pop("progress_bar", False)
        if kwargs:
            raise TypeError(
                "Evaluator() got unexpected keyword argument(s) "
                + ", ".join(repr(k) for k in kwargs)
            )
        if device is not None:
            device = backend.get_device(device)
        if not isinstance(iterator, dict):
            iterator = {"main": iterator}
        if "main" not in iterator:
            raise KeyError(
                f"Evaluator needs an iterator named 'main'; got {sorted(iterator)}"
            )
        for name, it in iterator.items():
            if getattr(it, "repeat", False) is True:
                raise ValueError(
                    f"the iterator {name!r} of the Evaluator repeats forever "
                    "(repeat=True), so the evaluation would never end; create it "
                    "with repeat=False"
                )
        if isinstance(target, link_module.Link):
            target = {"main": target}
        elif not isinstance(target, dict):
            raise TypeError(
                "Evaluator target must be a Link or a dict of Links, not "
                f"{type(target).__name__}"
            )
        if eval_func is None and "main" not in target:
            raise KeyError(
                "Evaluator needs a target named 'main' (or an eval_func); got "
                f"{sorted(target)}"
            )
        for fn, what in ((eval_hook, "eval_hook"), (eval_func, "eval_func")):
            if fn is not None and not callable(fn):
                raise TypeError(f"{what} must be callable, not {fn!r}")
        self._iterators = iterator
        self._targets = target
        self.converter = converter
        self.device = device
        self.eval_hook = eval_hook
        self.eval_func = eval_func
        self._progress_bar = bool(progress_bar)

    def get_iterator(self, name):
        """Returns the iterator of the given name.

        Args:
            name (str): Name of the iterator.

        Returns:
            The iterator.
        """
        return self._iterators[name]

    def get_all_iterators(self):
        """Returns the iterators, keyed by name.

        Returns:
            dict: Names to iterators.
        """
        return dict(self._iterators)

    def get_target(self, name):
        """Returns the target link of the given name.

        Args:
            name (str): Name of the target.

        Returns:
            ~chainer.Link: The target link.
        """
        return self._targets[name]

    def get_all_targets(self):
        """Returns the target links, keyed by name.

        Returns:
            dict: Names to links.
        """
        return dict(self._targets)

    def __call__(self, trainer=None):
        """Evaluates the targets and reports the averaged values.

        It evaluates under a reporter of its own, in which each target (and
        each of its child links) is registered as an observer named
        ``<extension name>/<target name>``, and reports the result to the
        current reporter (the trainer's, inside a training loop).

        Args:
            trainer (~chainer.training.Trainer): Trainer object calling this
                extension; ``None`` when it is called by hand.

        Returns:
            dict: The mean of each reported value over the validation set.
        """
        reporter = reporter_module.Reporter()
        prefix = "" if self.name is None else self.name + "/"
        for name, target in self._targets.items():
            reporter.add_observer(prefix + name, target)
            reporter.add_observers(prefix + name, target.namedlinks(skipself=True))
        with reporter, configuration.using_config("train", False):
            result = self.evaluate()
        reporter_module.report(result)
        return result

    def evaluate(self):
        """Sweeps the validation iterator once and averages what is reported.

        The ``'main'`` iterator is reset (or, if it has no ``reset`` method,
        copied) and swept once; each batch is evaluated under a fresh
        observation, and the observations are averaged with a
        :class:`~chainer.DictSummary`. Subclasses may override this method
        for a custom evaluation routine.

        Returns:
            dict: The mean of each reported value.
        """
        iterator = self._iterators["main"]
        eval_func = self.eval_func
        if eval_func is None:
            eval_func = self._targets["main"]
        if self.eval_hook is not None:
            self.eval_hook(self)

        if hasattr(iterator, "reset"):
            iterator.reset()
            it = iterator
        else:
            warnings.warn(
                f"the Evaluator's iterator {type(iterator).__name__} has no "
                "reset() method, so a copy of it is swept instead; relying on "
                "that copy is deprecated: give the iterator a reset() method",
                DeprecationWarning,
            )
            it = copy.copy(iterator)

        pbar = _IteratorProgressBar(it) if self._progress_bar else None
        summary = reporter_module.DictSummary()
        n_batches = 0
        for batch in it:
            observation = {}
            with reporter_module.report_scope(observation):
                in_arrays = _call_converter(self.converter, batch, self.device)
                with function.no_backprop_mode():
                    if isinstance(in_arrays, tuple):
                        eval_func(*in_arrays)
                    elif isinstance(in_arrays, dict):
                        eval_func(**in_arrays)
                    else:
                        eval_func(in_arrays)
            summary.add(observation)
            n_batches += 1
            if pbar is not None:
                pbar.update()
        if pbar is not None:
            pbar.close()
        if n_batches == 0:
            raise ValueError(
                "the Evaluator's iterator 'main' yielded no batch: the validation "
                "dataset is empty, or the iterator was exhausted and cannot be reset"
            )
        return summary.compute_mean()

    def finalize(self):
        """Finalizes the iterators."""
        for it in self._iterators.values():
            finalize = getattr(it, "finalize", None)
            if finalize is not None:
                finalize()


def _call_converter(converter, batch, device):
    # New-style converters take the Device (or None); old-style functions
    # take the legacy int id (-1 for the CPU), or nothing when device is None.
    if isinstance(converter, convert.Converter):
        return converter(batch, device)
    if device is None:
        return converter(batch)
    if isinstance(device, backend.CpuDevice):
        return converter(batch, -1)
    name = device.name
    if name.startswith("@cupy:"):
        return converter(batch, int(name[len("@cupy:") :]))
    raise TypeError(
        f"the converter {converter!r} is an old-style function, which cannot take "
        f"the device {device}; decorate it with chainer.dataset.converter()"
    )


class _IteratorProgressBar(util.ProgressBar):
    def __init__(self, iterator, bar_length=50, out=None):
        super().__init__(out)
        self._iterator = iterator
        self._bar_length = bar_length
        try:
            self._total = len(iterator.dataset)
        except (AttributeError, TypeError):
            self._total = None
        self._batch_size = getattr(iterator, "batch_size", None)
        self._count = 0
        self._start = time.perf_counter()

    def update(self):
        self._count += 1
        super().update()

    def _done(self):
        if self._total and self._batch_size:
            return min(self._count * self._batch_size / self._total, 1.0)
        return None

    def get_lines(self):
        elapsed = time.perf_counter() - self._start
        speed = self._count / elapsed if elapsed > 0 else float("inf")
        lines = []
        rate = self._done()
        if rate is not None:
            bar = util.render_bar(rate, self._bar_length)
            lines.append(f"validation {bar} {rate:6.2%}\n")
        lines.append(f"{self._count:10} iterations\n")
        lines.append(f"{speed:10.5g} iters/sec.\n")
        return lines
