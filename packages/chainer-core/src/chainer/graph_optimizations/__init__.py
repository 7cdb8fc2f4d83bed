"""Graph optimizations: the static subgraph decorators.

:func:`~chainer.graph_optimizations.static_graph.static_graph` marks the
``forward`` (or ``__call__``) of a chain as a static subgraph and
:func:`~chainer.graph_optimizations.static_graph_utilities.static_code` marks
code that must run on every call of such a chain. Both are also available as
``chainer.static_graph`` and ``chainer.static_code``.
"""

from chainer.graph_optimizations.static_graph import static_graph
from chainer.graph_optimizations.static_graph_utilities import static_code

__all__ = ["static_code", "static_graph"]
