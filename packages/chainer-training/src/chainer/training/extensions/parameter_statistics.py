"""The :class:`ParameterStatistics` trainer extension."""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import reporter as reporter_module
from chainer.training import extension
from chainer.training import trigger as trigger_module
from chainer.training.extensions import util


def _mean(x):
    return backend.get_array_module(x).mean(x)


def _std(x):
    return backend.get_array_module(x).std(x)


def _min(x):
    return backend.get_array_module(x).min(x)


def _max(x):
    return backend.get_array_module(x).max(x)


def _zeros(x):
    return backend.get_array_module(x).count_nonzero(x == 0)


def _percentile(x):
    xp = backend.get_array_module(x)
    return xp.percentile(x, xp.asarray((0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)))


class ParameterStatistics(extension.Extension):
    """Reports summary statistics of link parameters and of their gradients.

    At every iteration it computes, for each parameter of the target links,
    each statistic of its data and of its gradient (flattened to 1-D), and
    accumulates them; at each firing of ``trigger`` it reports their means
    over the iterations since the previous report, and starts over. The
    keys are ``'{prefix}/{link name}{parameter path}/{data or
    grad}/{statistic}'``, e.g. ``'predictor/l1/W/data/mean'`` for the
    parameter ``/l1/W`` of a link named ``'predictor'`` (a link without a
    name, like a root model, is named ``'None'``, as in Chainer). A
    statistic returning several values (the default ``'percentile'`` gives
    seven) is reported under ``'.../percentile/0'``, ``'.../percentile/1'``
    and so on. Uninitialized parameters, and gradients not computed yet,
    are skipped.

    The default statistics are ``'mean'``, ``'std'``, ``'min'``, ``'max'``,
    ``'zeros'`` (the number of zero elements) and ``'percentile'`` (the
    percentiles 0.13, 2.28, 15.87, 50, 84.13, 97.72 and 99.87: the median
    and the bounds of 1, 2 and 3 sigmas of a normal distribution).

    Args:
        links (~chainer.Link or list of Links): Links whose parameters are
            observed.
        statistics (dict): Statistic names to functions taking a 1-D array
            and returning a scalar or an array; ``'default'`` uses
            :attr:`default_statistics` and ``None`` none (add some with
            :meth:`register_statistics`).
        report_params (bool): Whether to report statistics of the data.
        report_grads (bool): Whether to report statistics of the gradients.
        prefix (str): Prefix of the report keys; ``None`` for none.
        trigger: Trigger deciding when to report the accumulated means.
        skip_nan_params (bool): If ``True``, a parameter (or gradient)
            containing NaN is not passed to the statistics functions; NaN is
            reported for each of its statistics instead.
    """

    default_name = "parameter_statistics"
    priority = extension.PRIORITY_WRITER

    # The prefix ends with '/' and the parameter name starts with '/'.
    report_key_template = "{prefix}{link_name}{param_name}/{attr_name}/{function_name}"

    default_statistics = {
        "mean": _mean,
        "std": _std,
        "min": _min,
        "max": _max,
        "zeros": _zeros,
        "percentile": _percentile,
    }

    def __init__(
        self,
        links,
        statistics="default",
        report_params=True,
        report_grads=True,
        prefix=None,
        trigger=(1, "epoch"),
        skip_nan_params=False,
    ):
        if not isinstance(links, (list, tuple)):
            links = (links,)
        for link in links:
            if not hasattr(link, "namedparams"):
                raise TypeError(
                    f"ParameterStatistics observes Links, got {type(link).__name__}"
                )
        self._links = tuple(links)
        if statistics is None:
            statistics = {}
        elif isinstance(statistics, str):
            if statistics != "default":
                raise ValueError(
                    f"statistics must be 'default', None or a dict, got {statistics!r}"
                )
            statistics = self.default_statistics
        self._statistics = dict(statistics)
        for name, fun in self._statistics.items():
            if not callable(fun):
                raise TypeError(f"the statistic {name!r} is not callable: {fun!r}")
        self._attrs = [
            a for a, on in (("data", report_params), ("grad", report_grads)) if on
        ]
        self._prefix = prefix
        self._trigger = trigger_module.get_trigger(trigger)
        self._summary = reporter_module.DictSummary()
        self._skip_nan_params = skip_nan_params

    def __call__(self, trainer):
        """Computes the statistics, and reports their means when triggered.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        statistics = {}
        prefix = self._prefix + "/" if self._prefix else ""
        template = self.report_key_template
        for link in self._links:
            link_name = getattr(link, "name", "None")
            for param_name, param in link.namedparams():
                for attr_name in self._attrs:
                    values = param.array if attr_name == "data" else param.grad
                    if values is None:
                        continue
                    values = values.ravel()
                    skip = (
                        self._skip_nan_params
                        and backend.get_array_module(values).isnan(values).any()
                    )
                    for function_name, function in self._statistics.items():
                        value = numpy.nan if skip else function(values)
                        key = template.format(
                            prefix=prefix,
                            link_name=link_name,
                            param_name=param_name,
                            attr_name=attr_name,
                            function_name=function_name,
                        )
                        if getattr(value, "size", 1) > 1:
                            for i, v in enumerate(value):
                                statistics[f"{key}/{i}"] = v
                        else:
                            statistics[key] = value
        self._summary.add(statistics)

        if self._trigger(trainer):
            reporter_module.report(self._summary.compute_mean())
            self._summary = reporter_module.DictSummary()

    def register_statistics(self, name, function):
        """Adds (or replaces) a statistic computed for every parameter.

        The registered function is called with the 1-D array of the data
        (or gradient) of each parameter, and its result is reported under
        ``name``.

        Args:
            name (str): Name of the statistic.
            function (callable): Function taking an array and returning a
                scalar or an array.
        """
        if not callable(function):
            raise TypeError(f"the statistic {name!r} is not callable: {function!r}")
        self._statistics[name] = function

    def serialize(self, serializer):
        """Serializes the trigger and the running summary.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        util.serialize_trigger(serializer, self._trigger, self._summary)
