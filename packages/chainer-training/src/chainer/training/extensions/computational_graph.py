"""The :class:`DumpGraph` trainer extension (also named ``dump_graph``)."""

from __future__ import annotations

import os
import shutil
import subprocess

from chainer import computational_graph
from chainer import configuration
from chainer import variable
from chainer.training import extension
from chainer.training.extensions import util

_VAR_STYLE = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_FUNC_STYLE = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}

# DumpGraph objects currently holding keep_graph_on_report, and the value
# the flag had before the first of them set it: with several DumpGraphs the
# flag is restored only when the last one releases it.
_holders = set()
_original_flag = [None]


def _hold(holder):
    if not _holders:
        _original_flag[0] = getattr(configuration.config, "keep_graph_on_report", False)
        configuration.config.keep_graph_on_report = True
    _holders.add(holder)


def _release(holder):
    if holder not in _holders:
        return
    _holders.discard(holder)
    if not _holders:
        configuration.config.keep_graph_on_report = _original_flag[0]


def is_graphviz_available():
    """Returns whether Graphviz's ``dot`` command can be run.

    :class:`DumpGraph` renders the dumped graph as a PNG image when it is.

    Returns:
        bool: ``True`` if ``dot`` is found on ``PATH``.
    """
    return shutil.which("dot") is not None


class DumpGraph(extension.Extension):
    """Writes the computational graph of a reported variable as a DOT file.

    It dumps, in the DOT language of Graphviz, the computational graph
    leading to the variable reported under ``root_name`` (such as
    ``'main/loss'``) at the first iteration, into ``filename`` in the output
    directory of the trainer (written atomically). When Graphviz's ``dot``
    command is available (see :func:`is_graphviz_available`), it also
    renders the graph as a PNG image beside it, with the same name and the
    extension ``.png``.

    Reported variables normally drop their graph (see
    :meth:`chainer.Reporter.report`), so the extension sets
    ``chainer.config.keep_graph_on_report`` to ``True`` from its
    :meth:`initialize` until the graph is dumped, and then restores the
    previous value. A resumed training run that already dumped the graph
    does not dump it again.

    Args:
        root_name (str): Key of the reported variable from which the graph
            is built.
        filename (str): Name of the output file under the output directory;
            ``None`` means ``'cg.dot'``. Chainer 7's ``out_name=`` keyword is
            accepted too.
        variable_style (dict): DOT attributes of the variable nodes;
            ``None`` gives grey octagons.
        function_style (dict): DOT attributes of the function nodes;
            ``None`` gives blue records.
    """

    default_name = "dump_graph"

    def __init__(
        self,
        root_name,
        filename=None,
        variable_style=None,
        function_style=None,
        **kwargs,
    ):
        out_name = kwargs.pop("out_name", "cg.dot")
        if kwargs:
            raise TypeError(
                "DumpGraph() got unexpected keyword argument(s) "
                + ", ".join(repr(k) for k in kwargs)
            )
        if not isinstance(root_name, str):
            raise TypeError(f"root_name must be a str, not {root_name!r}")
        if filename is None:
            filename = out_name
        if variable_style is None:
            variable_style = dict(_VAR_STYLE)
        if function_style is None:
            function_style = dict(_FUNC_STYLE)
        self._root_name = root_name
        self._filename = os.fspath(filename)
        self._variable_style = variable_style
        self._function_style = function_style
        self._flag_called = False  # whether the graph was dumped

    def initialize(self, _):
        """Makes the reporter keep graphs until the graph is dumped.

        Args:
            _ (~chainer.training.Trainer): Trainer object (unused).
        """
        if not self._flag_called:
            _hold(self)

    def trigger(self, _):
        """Fires until the graph has been dumped (normally only once).

        Args:
            _ (~chainer.training.Trainer): Trainer object (unused).

        Returns:
            bool: Whether the extension should be called.
        """
        return not self._flag_called

    def __call__(self, trainer):
        """Dumps the graph of the reported root variable.

        Args:
            trainer (~chainer.training.Trainer): Trainer object.
        """
        try:
            observation = trainer.observation
            if self._root_name not in observation:
                raise KeyError(
                    f"DumpGraph: {self._root_name!r} was not reported at iteration "
                    f"{trainer.updater.iteration}; reported keys: "
                    f"{sorted(observation)}"
                )
            var = observation[self._root_name]
            if not isinstance(var, variable.Variable):
                raise TypeError(
                    f"DumpGraph: the value reported as {self._root_name!r} is a "
                    f"{type(var).__name__}, not a Variable with a graph"
                )
            cg = computational_graph.build_computational_graph(
                [var],
                variable_style=self._variable_style,
                function_style=self._function_style,
            ).dump()
            path = os.path.join(trainer.out, self._filename)
            with util.open_atomic(path) as f:
                f.write(cg)
            self._flag_called = True
            if is_graphviz_available():
                image = os.path.splitext(path)[0] + ".png"
                subprocess.run(["dot", "-Tpng", path, "-o", image], check=True)
        finally:
            _release(self)

    def finalize(self):
        """Restores ``keep_graph_on_report`` if the graph was never dumped."""
        _release(self)

    def serialize(self, serializer):
        """Serializes whether the graph was already dumped.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        self._flag_called = bool(serializer("_flag_called", self._flag_called))


dump_graph = DumpGraph
