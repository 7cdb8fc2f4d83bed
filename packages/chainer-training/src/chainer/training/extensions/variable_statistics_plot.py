"""The :class:`VariableStatisticsPlot` trainer extension."""

from __future__ import annotations

import os

import numpy

from chainer import backend
from chainer import link as link_module
from chainer import variable
from chainer.training import extension
from chainer.training import trigger as trigger_module
from chainer.training.extensions import util

_COLOR = "#1f77b4"
_FILL = {"color": _COLOR, "alpha": 0.2, "linewidth": 0}


def _unpack_variables(x):
    if isinstance(x, variable.Variable):
        return (x,)
    if isinstance(x, link_module.Link):
        return tuple(x.params(include_uninit=True))
    if isinstance(x, (list, tuple)):
        out = ()
        for xi in x:
            out += _unpack_variables(xi)
        return out
    raise TypeError(
        "VariableStatisticsPlot targets must be Variables, Links, or lists of "
        f"them; got {type(x).__name__}"
    )


class Reservoir:
    """Uniform sample of at most ``size`` items of a stream.

    It keeps the first ``size`` items, then replaces a random one of them
    with the ``n``-th item with probability ``size / n`` (reservoir
    sampling), so that every item seen so far is kept with the same
    probability. :class:`VariableStatisticsPlot` samples its statistics this
    way.

    Args:
        size (int): Number of items kept.
        data_shape (tuple of ints): Shape of one item.
        dtype: Data type of the buffer of items.

    Attributes:
        data (numpy.ndarray): Buffer of the kept items, of shape
            ``(size,) + data_shape``.
        idxs (numpy.ndarray): Index of each kept item.
        counter (int): Number of items added so far.
    """

    def __init__(self, size, data_shape, dtype=numpy.float32):
        self.size = size
        self.data = numpy.zeros((size, *data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int64)
        self.counter = 0
        # numpy.random.Generator drawing the replacements; None uses NumPy's
        # global random state.
        self._rng = None

    def add(self, x, idx=None):
        """Offers an item to the sample.

        Args:
            x (numpy.ndarray): The item, of shape ``data_shape``.
            idx (int): Index recorded with it; ``None`` means its position
                in the stream.
        """
        position = self.counter
        slot = self._slot()
        if slot is not None:
            self.data[slot] = x
            self.idxs[slot] = position if idx is None else idx

    def _slot(self):
        # Where the next item goes, or None if it is dropped.
        counter = self.counter
        self.counter += 1
        if counter < self.size:
            return counter
        rng = self._rng
        if rng is None:
            if numpy.random.random() < self.size / (counter + 1):
                return int(numpy.random.randint(self.size))
        elif rng.random() < self.size / (counter + 1):
            return int(rng.integers(self.size))
        return None

    def get_data(self):
        """Returns the kept items, ordered by index.

        Returns:
            tuple: ``(idxs, data)``, the indexes (sorted) and the items.
        """
        n = min(self.counter, self.size)
        order = numpy.argsort(self.idxs[:n], kind="stable")
        return self.idxs[:n][order], self.data[:n][order]


class Statistician:
    """Computes the mean, standard deviation and percentiles of an array.

    Args:
        collect_mean (bool): Whether to compute the mean.
        collect_std (bool): Whether to compute the standard deviation.
        percentile_sigmas (float or tuple of floats): Percentiles to compute,
            each in ``[0, 100]``; an empty tuple computes none.
    """

    def __init__(self, collect_mean, collect_std, percentile_sigmas):
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = percentile_sigmas

    def __call__(self, x, axis=0, dtype=None, xp=None):
        """Computes the statistics of ``x`` along ``axis``.

        Args:
            x (:ref:`ndarray`): Input array.
            axis (int, tuple of ints or None): Axes to reduce; ``None``
                reduces all of them.
            dtype: Data type of the results; ``None`` keeps NumPy's.
            xp: Array module of ``x``; ``None`` finds it from ``x``.

        Returns:
            dict: ``'mean'``, ``'std'`` and ``'percentile'`` (stacked along
            a new first axis, one entry per percentile) as requested.
        """
        if axis is None:
            axis = tuple(range(x.ndim))
        elif not isinstance(axis, (tuple, list)):
            axis = (axis,)
        axis = tuple(axis)
        if xp is None:
            xp = backend.get_array_module(x)
        out = {}
        if self.collect_mean:
            out["mean"] = x.mean(axis=axis)
        if self.collect_std:
            out["std"] = x.std(axis=axis)
        if self.percentile_sigmas is not None and len(
            numpy.atleast_1d(self.percentile_sigmas)
        ):
            q = xp.asarray(self.percentile_sigmas)
            out["percentile"] = xp.percentile(x, q, axis=axis)
        if dtype is not None:
            out = {k: xp.asarray(v).astype(dtype, copy=False) for k, v in out.items()}
        return out


class VariableStatisticsPlot(extension.Extension):
    """Plots how the distribution of variables and of their gradients evolves.

    At every iteration it may sample (reservoir sampling keeps a uniform
    sample of at most ``max_sample_size`` iterations) the mean, standard
    deviation and percentiles of all elements of the target variables
    together, separately for their data and their gradients; at each firing
    of ``trigger`` it plots the sampled statistics against the iteration
    into ``filename`` in the output directory of the trainer (written
    atomically). With the default ``percentile_sigmas`` the shaded bands
    show the ranges of 1, 2 and 3 standard deviations of a normal
    distribution and the whole range.

    Without matplotlib the extension warns once, when it is created, and
    does nothing.

    Args:
        targets (~chainer.Variable, ~chainer.Link or list of them): Variables
            to observe; a link stands for all its parameters.
        max_sample_size (int): Maximum number of sampled iterations.
        report_data (bool): Whether to plot statistics of the data.
        report_grad (bool): Whether to plot statistics of the gradients.
        plot_mean (bool): Whether to plot the mean.
        plot_std (bool): Whether to plot the standard deviation (as error
            bars around the mean when both are plotted).
        percentile_sigmas (float or tuple of floats): Percentiles to plot,
            each in ``[0, 100]``; an empty tuple plots none.
        trigger: Trigger deciding when to save the plot.
        filename (str): Name of the figure file under the output directory.
            ``None`` means ``'statistics.png'``. Chainer 7's ``file_name=``
            keyword is accepted too.
        figsize (tuple): Size of the figure in inches, as matplotlib's
            ``figsize``.
        marker (str): Marker of the data points, or ``None``.
        grid (bool): Whether to draw a grid.
    """

    def __init__(
        self,
        targets,
        max_sample_size=1000,
        report_data=True,
        report_grad=True,
        plot_mean=True,
        plot_std=True,
        percentile_sigmas=(0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100),
        trigger=(1, "epoch"),
        filename=None,
        figsize=None,
        marker=None,
        grid=True,
        **kwargs,
    ):
        filename = util.plot_file_name(
            "VariableStatisticsPlot", filename, kwargs, "statistics.png"
        )
        self._vars = _unpack_variables(targets)
        if not self._vars:
            raise ValueError(
                "VariableStatisticsPlot needs at least one variable to observe; "
                "the targets hold none"
            )
        if isinstance(percentile_sigmas, (int, float)):
            percentile_sigmas = (percentile_sigmas,)
        percentile_sigmas = tuple(float(p) for p in percentile_sigmas)
        for p in percentile_sigmas:
            if not 0 <= p <= 100:
                raise ValueError(f"percentile_sigmas must be in [0, 100], got {p!r}")
        if not (plot_mean or plot_std or percentile_sigmas):
            raise ValueError(
                "nothing to plot: plot_mean and plot_std are False and "
                "percentile_sigmas is empty"
            )
        self._keys = [
            k for k, on in (("data", report_data), ("grad", report_grad)) if on
        ]
        if not self._keys:
            raise ValueError(
                "nothing to plot: report_data and report_grad are both False"
            )
        if not isinstance(max_sample_size, int) or max_sample_size < 1:
            raise ValueError(
                f"max_sample_size must be a positive int, got {max_sample_size!r}"
            )
        self._plot_mean = bool(plot_mean)
        self._plot_std = bool(plot_std)
        self._percentiles = percentile_sigmas
        self._trigger = trigger_module.get_trigger(trigger)
        self._filename = os.fspath(filename)
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        n_stats = int(self._plot_mean) + int(self._plot_std) + len(percentile_sigmas)
        self._data_shape = (len(self._keys), n_stats)
        self._statistician = Statistician(
            self._plot_mean, self._plot_std, percentile_sigmas
        )
        self._samples = Reservoir(max_sample_size, self._data_shape)
        self._samples._rng = numpy.random.default_rng(0)
        self._available = util.check_matplotlib("VariableStatisticsPlot")

    @staticmethod
    def available():
        """Returns whether the extension can plot, warning if it cannot.

        Returns:
            bool: ``True`` if matplotlib can be imported; otherwise a
            :class:`UserWarning` says that nothing will be plotted.
        """
        return util.check_matplotlib("VariableStatisticsPlot")

    def __call__(self, trainer):
        """Samples the statistics and saves the plot when triggered.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        if not self._available:
            return
        slot = self._samples._slot()
        if slot is not None:
            self._samples.data[slot] = self._statistics()
            self._samples.idxs[slot] = trainer.updater.iteration
        if self._trigger(trainer):
            self._plot(os.path.join(trainer.out, self._filename))

    def _statistics(self):
        stats = numpy.full(self._data_shape, numpy.nan, dtype=numpy.float32)
        for i, key in enumerate(self._keys):
            xs = [getattr(v, "array" if key == "data" else key) for v in self._vars]
            xs = [x.ravel() for x in xs if x is not None and x.size]
            if not xs:
                continue
            xp = backend.get_array_module(xs[0])
            x = xp.concatenate(xs).astype(numpy.float64, copy=False)
            stat = self._statistician(x, axis=None, xp=xp)
            row = [
                stat[k].reshape(-1) for k in ("mean", "std", "percentile") if k in stat
            ]
            row = xp.concatenate(row)
            stats[i] = backend.CpuDevice().send(row)
        return stats

    def _plot(self, path):
        idxs, data = self._samples.get_data()
        if not len(idxs):
            return
        has_moments = self._plot_mean or self._plot_std
        nrows = int(has_moments) + int(bool(self._percentiles))
        ncols = len(self._keys)
        fig = util.new_figure(self._figsize)
        axes = fig.subplots(nrows, ncols, sharex=True, squeeze=False)
        offset = int(self._plot_mean) + int(self._plot_std)
        n_pct = len(self._percentiles)
        for col, key in enumerate(self._keys):
            row = 0
            axes[0, col].set_title(key)
            if has_moments:
                ax = axes[row, col]
                if self._plot_mean and self._plot_std:
                    ax.errorbar(
                        idxs,
                        data[:, col, 0],
                        data[:, col, 1],
                        color=_COLOR,
                        ecolor=(0.12, 0.47, 0.71, 0.3),
                        label="mean, std",
                        marker=self._marker,
                    )
                else:
                    label = "mean" if self._plot_mean else "std"
                    ax.plot(
                        idxs,
                        data[:, col, 0],
                        color=_COLOR,
                        label=label,
                        marker=self._marker,
                    )
                row += 1
            if n_pct:
                ax = axes[row, col]
                # Percentiles pair up from the outside in (lowest with
                # highest) into shaded bands; an odd middle one is a line.
                for i in range(n_pct // 2):
                    label = "percentiles" if i == n_pct // 2 - 1 else "_nolegend_"
                    ax.fill_between(
                        idxs,
                        data[:, col, offset + i],
                        data[:, col, offset + n_pct - 1 - i],
                        label=label,
                        **_FILL,
                    )
                if n_pct % 2:
                    ax.plot(
                        idxs,
                        data[:, col, offset + n_pct // 2],
                        color=_COLOR,
                        label=f"percentile {self._percentiles[n_pct // 2]:g}",
                        marker=self._marker,
                    )
            axes[nrows - 1, col].set_xlabel("iteration")
        for ax in axes.ravel():
            ax.legend()
            if self._grid:
                ax.grid()
                ax.set_axisbelow(True)
        util.save_figure(fig, path)
