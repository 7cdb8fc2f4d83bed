"""The :class:`PlotReport` trainer extension."""

from __future__ import annotations

import json
import os

import numpy

from chainer import reporter as reporter_module
from chainer import serializer as serializer_module
from chainer.training import extension
from chainer.training import trigger as trigger_module
from chainer.training.extensions import util


class PlotReport(extension.Extension):
    """Plots averaged observed values against the iteration or epoch.

    It accumulates the observed values of ``y_keys`` at every iteration,
    and at each firing of ``trigger`` appends their means, against the
    value of ``x_key``, to its data and redraws the whole plot into
    ``filename`` in the output directory of the trainer (written
    atomically). The plot is drawn with matplotlib's Agg backend on a
    figure of its own: pyplot and the user's backend are left alone.

    Without matplotlib the extension warns once, when it is created, and
    does nothing; :meth:`available` tells whether it can plot.

    Args:
        y_keys (str or iterable of str): Keys of the values to plot on the
            y axis.
        x_key (str): Key of the value on the x axis: ``'iteration'``,
            ``'epoch'``, or a reported value.
        trigger: Trigger deciding when to add a point and save the plot,
            such as ``(1, 'epoch')``.
        postprocess (callable): Called as ``postprocess(figure, axes,
            summary)`` before the figure is saved, to customize it.
        filename (str): Name of the figure file under the output directory;
            its extension gives the format. ``None`` means ``'plot.png'``.
            Chainer 7's ``file_name=`` keyword is accepted too.
        marker (str): Marker of the data points (a matplotlib marker such as
            ``'x'``), or ``None`` for lines only.
        grid (bool): Whether to draw a grid.
    """

    def __init__(
        self,
        y_keys,
        x_key="iteration",
        trigger=(1, "epoch"),
        postprocess=None,
        filename=None,
        marker="x",
        grid=True,
        **kwargs,
    ):
        filename = util.plot_file_name("PlotReport", filename, kwargs, "plot.png")
        if not isinstance(filename, (str, os.PathLike)):
            raise TypeError(f"PlotReport filename must be a str, not {filename!r}")
        if isinstance(y_keys, str):
            y_keys = (y_keys,)
        y_keys = tuple(y_keys)
        if not y_keys or not all(isinstance(k, str) for k in y_keys):
            raise ValueError(
                f"y_keys must be a key or a non-empty list of keys, got {y_keys!r}"
            )
        if not isinstance(x_key, str):
            raise TypeError(f"x_key must be a str, not {x_key!r}")
        if postprocess is not None and not callable(postprocess):
            raise TypeError(f"postprocess must be callable, not {postprocess!r}")
        self._x_key = x_key
        self._y_keys = y_keys
        self._trigger = trigger_module.get_trigger(trigger)
        self._file_name = os.fspath(filename)
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._summary = reporter_module.DictSummary()
        self._data = {k: [] for k in y_keys}
        self._available = util.check_matplotlib("PlotReport")

    @staticmethod
    def available():
        """Returns whether the extension can plot, warning if it cannot.

        Returns:
            bool: ``True`` if matplotlib can be imported; otherwise a
            :class:`UserWarning` says that nothing will be plotted.
        """
        return util.check_matplotlib("PlotReport")

    def __call__(self, trainer):
        """Accumulates the observation and saves the plot when triggered.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        if not self._available:
            return
        observation = trainer.observation
        keys = self._y_keys
        if self._x_key in observation:
            keys = (*keys, self._x_key)
        self._summary.add({k: observation[k] for k in keys if k in observation})

        # Called before training (call_before_training=True), it plots a
        # point of its own, e.g. the validation results of the initial model.
        if trainer.is_before_training or self._trigger(trainer):
            stats = {k: float(v) for k, v in self._summary.compute_mean().items()}
            updater = trainer.updater
            stats["epoch"] = updater.epoch
            stats["iteration"] = updater.iteration
            if self._x_key not in stats:
                raise KeyError(
                    f"PlotReport: the x_key {self._x_key!r} was not observed; use "
                    "'iteration', 'epoch' or a reported key"
                )
            x = stats[self._x_key]
            for k in self._y_keys:
                if k in stats:
                    self._data[k].append((x, stats[k]))
            self._plot(trainer)
            self._summary = reporter_module.DictSummary()

    def _plot(self, trainer):
        fig = util.new_figure()
        ax = fig.add_subplot(111)
        ax.set_xlabel(self._x_key)
        if self._grid:
            ax.grid()
        for k in self._y_keys:
            xy = self._data[k]
            if not xy:
                continue
            xy = numpy.asarray(xy, dtype=numpy.float64)
            ax.plot(xy[:, 0], xy[:, 1], marker=self._marker, label=k)
        if not ax.has_data():
            return
        if self._postprocess is not None:
            self._postprocess(fig, ax, self._summary)
        legend = ax.legend(bbox_to_anchor=(1.05, 1), loc="upper left", borderaxespad=0)
        util.save_figure(
            fig,
            os.path.join(trainer.out, self._file_name),
            bbox_extra_artists=(legend,),
            bbox_inches="tight",
        )

    def serialize(self, serializer):
        """Serializes the plotted data, the trigger and the running summary.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        key = f"_plot_{self._file_name}"
        util.serialize_trigger(serializer, self._trigger, self._summary)
        if isinstance(serializer, serializer_module.Serializer):
            serializer(key, json.dumps(self._data))
        else:
            data = json.loads(serializer(key, ""))
            self._data = {k: [tuple(p) for p in data.get(k, [])] for k in self._y_keys}
