"""Reporting observed values (``chainer.report``) and summarizing them."""

from __future__ import annotations

import collections.abc
import contextlib
import json
import threading
import warnings

import numpy

from chainer import backend
from chainer import configuration
from chainer import serializer as serializer_module
from chainer import variable

_local = threading.local()


def _get_reporters():
    try:
        return _local.reporters
    except AttributeError:
        reporters = _local.reporters = []
        return reporters


class Reporter:
    """Object to which observed values are reported.

    A reporter holds a dictionary from value names to observed values, the
    *observation*. A value may be reported with an *observer* (any object,
    typically a link); its registered name then prefixes the value name, as
    in ``'main/loss'``. The reporter becomes *current* inside ``with
    reporter:`` or :meth:`scope`, so that :func:`report` called anywhere in
    that block reaches it.

    Example:
        >>> from chainer import Reporter
        >>> reporter = Reporter()
        >>> observer = object()
        >>> reporter.add_observer('my_observer', observer)
        >>> observation = {}
        >>> with reporter.scope(observation):
        ...     reporter.report({'x': 1}, observer)
        >>> observation
        {'my_observer/x': 1}

    Attributes:
        observation (dict): Dictionary of observed values.
    """

    def __init__(self):
        self._observer_names = {}
        self.observation = {}

    def __enter__(self):
        """Makes this reporter object current."""
        _get_reporters().append(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        """Recovers the previous reporter object to the current."""
        _get_reporters().pop()

    @contextlib.contextmanager
    def scope(self, observation):
        """Creates a scope to report observed values to ``observation``.

        Inside the ``with`` block this reporter is current and writes into
        ``observation`` instead of its own :attr:`observation`.

        Args:
            observation (dict): Observation dictionary. All values reported
                inside the ``with`` statement are written to it.
        """
        if not isinstance(observation, dict):
            raise TypeError(
                f"observation must be a dict, not {type(observation).__name__}"
            )
        old = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__(None, None, None)
            self.observation = old

    def add_observer(self, name, observer):
        """Registers an observer of values.

        Values reported with ``observer`` are named ``name + '/' + key``.

        Args:
            name (str): Name of the observer.
            observer: The observer object. The reporter distinguishes
                observers by ``id(observer)``, not by equality.
        """
        if not isinstance(name, str):
            raise TypeError(f"observer name must be a str, not {type(name).__name__}")
        self._observer_names[id(observer)] = name

    def add_observers(self, prefix, observers):
        """Registers multiple observers at once.

        Args:
            prefix (str): Prefix of each name of observers.
            observers: Iterable of ``(name, observer)`` pairs, such as
                ``link.namedlinks()``.
        """
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str, not {type(prefix).__name__}")
        names = self._observer_names
        for name, observer in observers:
            names[id(observer)] = prefix + name

    def report(self, values, observer=None):
        """Reports observed values.

        Unless ``chainer.config.keep_graph_on_report`` is set, reported
        Variables are replaced by new Variables holding the same arrays, so
        that the observation does not keep computational graphs alive.

        Args:
            values (dict): Dictionary of observed values (Variables, arrays
                or scalars).
            observer: Observer object registered with :meth:`add_observer`;
                its name prefixes the keys.
        """
        if not isinstance(values, dict):
            if isinstance(values, collections.abc.Mapping):
                values = dict(values)
            else:
                raise TypeError(
                    "values must be a dict of observed values, not "
                    f"{type(values).__name__}"
                )
        if not getattr(configuration.config, "keep_graph_on_report", False):
            values = {k: _unchain(v) for k, v in values.items()}
        if observer is None:
            self.observation.update(values)
            return
        name = self._observer_names.get(id(observer))
        if name is None:
            raise KeyError(
                f"the observer {observer!r} is not registered to the reporter; "
                "register it with add_observer first"
            )
        observation = self.observation
        for key, value in values.items():
            observation[f"{name}/{key}"] = value


def _unchain(value):
    if isinstance(value, variable.Variable):
        return variable.Variable(value.array)
    return value


def get_current_reporter():
    """Returns the current reporter object.

    Returns:
        Reporter: The innermost reporter made current by ``with``.
    """
    reporters = _get_reporters()
    if not reporters:
        raise IndexError(
            "no reporter is current: use `with reporter:` or reporter.scope(...)"
        )
    return reporters[-1]


def report(values, observer=None):
    """Reports observed values with the current reporter object.

    If no reporter is current, this function does nothing, so links may call
    it unconditionally. Inside a Trainer, values reported by the target link
    are named e.g. ``'main/loss'``, and ``'validation/main/loss'`` inside an
    Evaluator.

    Args:
        values (dict): Dictionary of observed values.
        observer: Observer object; its registered name prefixes the keys.
    """
    reporters = _get_reporters()
    if reporters:
        reporters[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation):
    """Returns a context manager that reports values into ``observation``.

    It redirects the current reporter into ``observation`` for the block
    (see :meth:`Reporter.scope`).

    Args:
        observation (dict): Observation dictionary.
    """
    with get_current_reporter().scope(observation):
        yield


def _is_host(value):
    return isinstance(value, (int, float, numpy.ndarray, numpy.generic))


class Summary:
    """Online summarization of a sequence of scalars.

    It keeps the weighted sum, sum of squares and total weight, so that the
    mean and standard deviation are available at any time.
    """

    def __init__(self):
        self._x = 0.0
        self._x2 = 0.0
        self._n = 0

    def add(self, value, weight=1):
        """Adds a scalar value.

        Args:
            value: Scalar, 0-dimensional array or Variable to accumulate.
            weight: Weight of the value.
        """
        if isinstance(value, variable.Variable):
            value = value.array
        if isinstance(weight, variable.Variable):
            weight = weight.array
        if _is_host(value):
            if (
                isinstance(value, (numpy.ndarray, numpy.generic))
                and value.dtype.kind == "f"
                and value.dtype.itemsize < 8
            ):
                # Sums of many float32/float16 values are kept in float64
                # (NumPy 2 would keep them in the values' precision).
                value = value.astype(numpy.float64)
            self._accumulate(value, weight)
        elif value is None or isinstance(value, (str, bytes)):
            raise TypeError(f"cannot summarize a value of type {type(value).__name__}")
        else:
            with backend.get_device_from_array(value):
                self._accumulate(value, weight)

    def _accumulate(self, value, weight):
        wv = weight * value
        self._x += wv
        self._x2 += wv * value
        self._n += weight

    def compute_mean(self):
        """Computes the mean.

        Returns:
            The weighted mean of the added values.
        """
        if isinstance(self._n, int) and self._n == 0:
            raise ZeroDivisionError("no values have been added to this Summary")
        x, n = self._x, self._n
        if _is_host(x):
            return x / n
        with backend.get_device_from_array(x):
            return x / n

    def make_statistics(self):
        """Computes the mean and standard deviation.

        Returns:
            tuple: ``(mean, std)``.
        """
        if isinstance(self._n, int) and self._n == 0:
            raise ZeroDivisionError("no values have been added to this Summary")
        x, n = self._x, self._n
        if _is_host(x):
            return self._statistics(numpy, x, n)
        with backend.get_device_from_array(x):
            return self._statistics(backend.get_array_module(x), x, n)

    def _statistics(self, xp, x, n):
        mean = x / n
        var = self._x2 / n - mean * mean
        # Rounding can make E[x^2] - E[x]^2 slightly negative for constant data.
        std = xp.sqrt(xp.maximum(var, 0))
        return mean, std

    def serialize(self, serializer):
        """Serializes or deserializes the accumulated statistics.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer object.
        """
        if isinstance(serializer, serializer_module.Serializer):
            serializer("_x", self._x)
            serializer("_x2", self._x2)
            serializer("_n", self._n)
            return
        try:
            # Loaded with value None and converted here: the total weight may
            # be a float (weighted adds) although it starts as an int.
            x = serializer("_x", None)
            x2 = serializer("_x2", None)
            n = serializer("_n", None)
        except KeyError:
            warnings.warn("The previous statistics are not saved.")
            return
        if x is not None:
            self._x = _to_scalar(x)
        if x2 is not None:
            self._x2 = _to_scalar(x2)
        if n is not None:
            self._n = _to_scalar(n)


def _to_scalar(value):
    if isinstance(value, numpy.ndarray) and value.ndim == 0:
        return value.item()
    return value


class DictSummary:
    """Online summarization of a sequence of dictionaries.

    It computes statistics of the scalar entries of the added dictionaries,
    one :class:`Summary` per key. Entries that are not scalars (arrays of
    more than zero dimensions, strings...) are ignored.
    """

    def __init__(self):
        self._summaries = {}

    def add(self, d):
        """Adds a dictionary of scalars.

        Args:
            d (dict): Dictionary of scalars to accumulate. Only scalars,
                zero-dimensional arrays and Variables of zero-dimensional
                arrays are accumulated. A value may be a ``(value, weight)``
                tuple.
        """
        if not isinstance(d, dict):
            raise TypeError(f"DictSummary.add expects a dict, not {type(d).__name__}")
        summaries = self._summaries
        for key, v in d.items():
            w = 1
            if isinstance(v, tuple):
                if len(v) != 2:
                    raise ValueError(
                        f"entry {key!r} must be a value or a (value, weight) pair, "
                        f"not a tuple of length {len(v)}"
                    )
                v, w = v
                if isinstance(w, variable.Variable):
                    w = w.array
                if not (numpy.isscalar(w) or getattr(w, "ndim", -1) == 0):
                    raise ValueError(f"Given weight to {key} was not scalar.")
            if isinstance(v, variable.Variable):
                v = v.array
            if isinstance(v, (str, bytes)):
                continue
            if numpy.isscalar(v) or getattr(v, "ndim", -1) == 0:
                summary = summaries.get(key)
                if summary is None:
                    summary = summaries[key] = Summary()
                summary.add(v, weight=w)

    def compute_mean(self):
        """Creates a dictionary of mean values.

        Returns:
            dict: The mean value of each entry added to the summary.
        """
        return {name: s.compute_mean() for name, s in self._summaries.items()}

    def make_statistics(self):
        """Creates a dictionary of statistics.

        For an entry ``'key'`` the mean is stored as ``'key'`` and the
        standard deviation as ``'key.std'``.

        Returns:
            dict: Statistics of all entries.
        """
        stats = {}
        for name, summary in self._summaries.items():
            mean, std = summary.make_statistics()
            stats[name] = mean
            stats[name + ".std"] = std
        return stats

    def serialize(self, serializer):
        """Serializes or deserializes the summaries.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer object.
        """
        if isinstance(serializer, serializer_module.Serializer):
            names = list(self._summaries)
            serializer("_names", json.dumps(names))
            for index, name in enumerate(names):
                self._summaries[name].serialize(serializer["_summaries"][str(index)])
            return
        self._summaries.clear()
        try:
            names = json.loads(serializer("_names", ""))
        except KeyError:
            warnings.warn("The names of statistics are not saved.")
            return
        for index, name in enumerate(names):
            summary = self._summaries[name] = Summary()
            summary.serialize(serializer["_summaries"][str(index)])
