"""Helpers shared by the reporting extensions.

:class:`ProgressBar` is the terminal-aware progress printer behind
:class:`~chainer.training.extensions.ProgressBar` and the ``progress_bar``
option of :class:`~chainer.training.extensions.Evaluator`;
:func:`open_atomic` writes the files of the extensions (logs, plots, graphs)
so that a reader, or a run killed mid-write, never sees a partial file.
"""

from __future__ import annotations

import abc
import collections
import datetime
import os
import sys
import time
import warnings

from chainer.utils import atomic_file
from chainer.utils import install_hint


def resolve_out(out, default):
    """Returns the stream to write to for an ``out=sys.stdout`` argument.

    The ``out=sys.stdout`` default of PrintReport and ProgressBar is the
    stream of the time their module was imported; that default follows later
    replacements of ``sys.stdout`` (``contextlib.redirect_stdout``, a
    notebook, a test runner's capture). Any other stream is returned as is.

    Args:
        out: The ``out`` argument given to an extension.
        default: The default value of that argument.

    Returns:
        The stream.
    """
    if out is default:
        return sys.stdout
    return out


def isatty(out):
    """Tells whether a stream is an interactive terminal.

    Args:
        out: A file-like object.

    Returns:
        bool: ``True`` if ``out.isatty()`` exists and returns ``True``.
    """
    method = getattr(out, "isatty", None)
    if method is None:
        return False
    try:
        return bool(method())
    except (OSError, ValueError):  # a closed or detached stream
        return False


def format_eta(seconds):
    """Formats an estimated time to finish as ``H:MM:SS``.

    Args:
        seconds (float): Remaining time in seconds; ``None``, infinite or
            NaN values mean unknown.

    Returns:
        str: The time (``'0:01:05'``), or ``'unknown'``.
    """
    if seconds is None or not (0 <= seconds < float("inf")):
        return "unknown"
    return str(datetime.timedelta(seconds=round(seconds)))


def open_atomic(path, mode="w", encoding="utf-8"):
    """Opens a file whose content replaces ``path`` atomically on success.

    It is :func:`chainer.utils.atomic_file.open_atomic` (see its rules: the
    data goes to a locked ``tmp.<12 hex digits>.<name>`` file in the same
    directory, synced and renamed over ``path``, whose mode is kept; a
    symbolic link is followed, a FIFO or device written directly), with
    text files in ``encoding`` and without newline translation, and missing
    parent directories created. On an exception ``path`` is left untouched.

    Args:
        path (str): Destination file.
        mode (str): ``'w'`` for text or ``'wb'`` for bytes.
        encoding (str): Encoding of text files.

    Returns:
        A context manager yielding the open temporary file.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"open_atomic mode must be 'w' or 'wb', not {mode!r}")
    directory = os.path.dirname(os.path.abspath(os.fspath(path)))
    os.makedirs(directory, exist_ok=True)
    if mode == "wb":
        return atomic_file.open_atomic(path, "wb")
    return atomic_file.open_atomic(path, "w", encoding=encoding, newline="")


class ProgressBar(abc.ABC):
    """Base class of progress printers, live on a terminal and quiet in a log.

    On an interactive terminal (``out.isatty()`` is true) :meth:`update`
    redraws the lines of :meth:`get_lines` in place: it erases from the
    cursor to the end of the screen (``ESC [J``), writes the lines and moves
    the cursor back up (``ESC [nA``), so the next update, or the rows that
    :class:`~chainer.training.extensions.PrintReport` writes, overwrite them.

    In a non-interactive output (a file, a pipe, a CI log) escape sequences
    would only clutter the text, so the bar stays quiet there: an update
    writes the one-line summary of :meth:`get_line` at most once every
    ``log_period`` seconds (30 by default), and nothing else.

    Args:
        out: Output stream; ``None`` means ``sys.stdout``.

    Attributes:
        log_period (float): Minimum number of seconds between two summary
            lines in a non-interactive output.
    """

    log_period = 30.0

    def __init__(self, out=None):
        self._out = sys.stdout if out is None else out
        self._tty = isatty(self._out)
        self._recent_timing = collections.deque(maxlen=100)
        self._last_log_time = None
        self._drawn = False

    def update_speed(self, iteration, epoch_detail):
        """Records the current progress and returns the recent speed.

        The speed is measured over the last (up to) 100 updates.

        Args:
            iteration (int): Number of iterations done.
            epoch_detail (float): Number of epochs done, with fraction.

        Returns:
            tuple: ``(iterations per second, epochs per second)``; both are
            infinite at the first call.
        """
        now = time.perf_counter()
        self._recent_timing.append((iteration, epoch_detail, now))
        old_iteration, old_epoch, old_time = self._recent_timing[0]
        span = now - old_time
        if span <= 0:
            return float("inf"), float("inf")
        return (iteration - old_iteration) / span, (epoch_detail - old_epoch) / span

    @abc.abstractmethod
    def get_lines(self):
        """Returns the lines of the live bar.

        Returns:
            list of str: Lines, each ending with ``'\\n'``.
        """

    def get_line(self):
        """Returns the one-line summary written to non-interactive outputs.

        The default joins the stripped lines of :meth:`get_lines`.

        Returns:
            str: One line without the trailing newline.
        """
        return "; ".join(line.strip() for line in self.get_lines())

    def tick(self):  # noqa: B027
        """Records the progress at each update (nothing by default).

        :meth:`update` calls it before drawing or deciding not to, so a
        subclass measuring speed (with :meth:`update_speed`) sees every
        update, including those that print nothing in a log.
        """

    def update(self):
        """Redraws the bar on a terminal, or logs a summary line at intervals."""
        self.tick()
        out = self._out
        if self._tty:
            lines = self.get_lines()
            out.write("\x1b[J")
            out.write("".join(lines))
            out.write(f"\x1b[{len(lines)}A")
            self._drawn = True
            self.flush()
            return
        now = time.monotonic()
        last = self._last_log_time
        if last is not None and now - last < self.log_period:
            return
        if last is None and self.log_period > 0:
            # The first summary comes one period after the start: short runs
            # leave a log untouched.
            self._last_log_time = now
            return
        self._last_log_time = now
        out.write(self.get_line() + "\n")
        self.flush()

    def close(self):
        """Erases the bar from a terminal (nothing to do in a log)."""
        if self._tty and self._drawn:
            self.erase_console()
            self._drawn = False
            self.flush()

    def erase_console(self):
        """Erases the screen from the cursor to the end."""
        self._out.write("\x1b[J")

    def move_cursor_up(self, n):
        """Moves the cursor up by ``n`` lines.

        Args:
            n (int): Number of lines.
        """
        self._out.write(f"\x1b[{n:d}A")

    def flush(self):
        """Flushes the output stream if it can be flushed."""
        flush = getattr(self._out, "flush", None)
        if flush is not None:
            flush()


def render_bar(rate, length):
    """Renders a bar such as ``'[#####.....]'``.

    Args:
        rate (float): Filled fraction, clipped to ``[0, 1]``.
        length (int): Number of characters between the brackets.

    Returns:
        str: The bar.
    """
    rate = min(max(rate, 0.0), 1.0)
    marks = int(rate * length)
    return "[" + "#" * marks + "." * (length - marks) + "]"


_NO_MATPLOTLIB = (
    "cannot import matplotlib, so this extension draws no figure; install it "
    "with: pip install matplotlib; or with chainer-training's extra plot: "
    f"{install_hint.install_hint('chainer-training', 'plot')}"
)


def serialize_trigger(serializer, trigger, summary=None):
    """Serializes an extension's trigger and running summary.

    They go under ``_trigger`` (when the trigger has a state to serialize)
    and ``_summary``.

    Args:
        serializer (~chainer.AbstractSerializer): Serializer or
            deserializer object.
        trigger: The extension's trigger.
        summary (~chainer.reporter.DictSummary): The summary of the values
            observed since the trigger last fired, or ``None``.
    """
    if hasattr(trigger, "serialize"):
        trigger.serialize(serializer["_trigger"])
    if summary is not None:
        summary.serialize(serializer["_summary"])


def matplotlib_available():
    """Tells whether matplotlib can be imported.

    Returns:
        bool: ``True`` if ``import matplotlib`` succeeds.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def check_matplotlib(what):
    """Tells whether an extension can plot; warns if matplotlib is missing.

    Args:
        what (str): Name of the extension, shown in the warning.

    Returns:
        bool: ``True`` if matplotlib can be imported.
    """
    if matplotlib_available():
        return True
    # stacklevel: the user's code that creates the extension.
    warnings.warn(f"{what}: {_NO_MATPLOTLIB}", stacklevel=3)
    return False


def plot_file_name(what, filename, kwargs, default):
    """Resolves the file name of a plotting extension.

    Args:
        what (str): Name of the extension, shown in the error.
        filename (str): The ``filename`` argument; ``None`` for the
            ``file_name`` keyword of Chainer 7, or else ``default``.
        kwargs (dict): The extension's other keyword arguments; only
            ``file_name`` is accepted.
        default (str): File name used when neither is given.

    Returns:
        str: The file name.
    """
    file_name = kwargs.pop("file_name", default)
    if kwargs:
        raise TypeError(
            f"{what}() got unexpected keyword argument(s) "
            + ", ".join(repr(k) for k in kwargs)
        )
    return file_name if filename is None else filename


def new_figure(figsize=None):
    """Creates a matplotlib figure drawn by the Agg backend.

    The figure is not registered to ``matplotlib.pyplot``, so neither the
    user's backend nor pyplot's list of open figures is touched; it is
    freed like any Python object.

    Args:
        figsize (tuple): ``(width, height)`` in inches, or ``None`` for
            matplotlib's default.

    Returns:
        matplotlib.figure.Figure: The figure.
    """
    from matplotlib import figure
    from matplotlib.backends import backend_agg

    fig = figure.Figure(figsize=figsize)
    backend_agg.FigureCanvasAgg(fig)
    return fig


def save_figure(fig, path, **kwargs):
    """Saves a figure atomically (see :func:`open_atomic`).

    The format follows the extension of ``path`` (``.png``, ``.pdf``,
    ``.svg``...), as ``Figure.savefig`` does; a path without an extension
    gives a PNG file.

    Args:
        fig (matplotlib.figure.Figure): The figure.
        path (str): Destination file.
        kwargs: Other arguments of ``Figure.savefig``.
    """
    ext = os.path.splitext(os.fspath(path))[1][1:].lower()
    if not ext:
        ext = "png"
    supported = fig.canvas.get_supported_filetypes()
    if ext not in supported:
        raise ValueError(
            f"cannot save a figure as {os.fspath(path)!r}: matplotlib does not "
            f"support the format {ext!r}; use one of {sorted(supported)}"
        )
    with open_atomic(path, "wb") as f:
        fig.savefig(f, format=ext, **kwargs)
