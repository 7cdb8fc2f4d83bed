"""Trainer extensions (Chainer 7's and those that plugins register).

A name that is not one of the built-in extensions is looked up among the
extensions registered through the ``chainer.plugins`` entry point.
"""

from chainer.utils import lazy_namespace as _lazy_namespace

_NAMES = {
    "DumpGraph": "computational_graph",
    "dump_graph": "computational_graph",
    "Evaluator": "evaluator",
    "ExponentialShift": "exponential_shift",
    "FailOnNonNumber": "fail_on_nonnumber",
    "InverseShift": "inverse_shift",
    "LinearShift": "linear_shift",
    "LogReport": "log_report",
    "MicroAverage": "micro_average",
    "MultistepShift": "multistep_shift",
    "ParameterStatistics": "parameter_statistics",
    "PlotReport": "plot_report",
    "PolynomialShift": "polynomial_shift",
    "PrintReport": "print_report",
    "ProgressBar": "progress_bar",
    "StepShift": "step_shift",
    "VariableStatisticsPlot": "variable_statistics_plot",
    "WarmupShift": "warmup_shift",
    "observe_lr": "value_observation",
    "observe_value": "value_observation",
    "snapshot": "_snapshot",
    "snapshot_object": "_snapshot",
    "unchain_variables": "variable_unchain",
}

# Chainer 7's extension modules, reachable as attributes of the package
# (``extensions.variable_statistics_plot.Reservoir``) as its import made them.
_SUBMODULES = (
    "_snapshot",
    "computational_graph",
    "evaluator",
    "exponential_shift",
    "fail_on_nonnumber",
    "inverse_shift",
    "linear_shift",
    "log_report",
    "micro_average",
    "multistep_shift",
    "parameter_statistics",
    "plot_report",
    "polynomial_shift",
    "print_report",
    "progress_bar",
    "snapshot_writers",
    "step_shift",
    "util",
    "value_observation",
    "variable_statistics_plot",
    "variable_unchain",
    "warmup_shift",
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = _lazy_namespace.attach(
    __name__, _NAMES, _SUBMODULES, plugin_kind="extensions"
)
