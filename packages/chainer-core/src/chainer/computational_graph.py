"""Visualization of computational graphs in the DOT language (Graphviz)."""

from __future__ import annotations

import heapq

from chainer import function_node
from chainer import variable

_var_style = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_func_style = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}
_RANKDIRS = ("TB", "BT", "LR", "RL")


def _quote(value):
    text = str(value)
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


class _UnsupportedFormat(ValueError, NotImplementedError):
    # A ValueError, and the NotImplementedError Chainer raises for a format
    # other than DOT.
    pass


class DotNode:
    """Node of the computational graph, with its attributes in the DOT language.

    Args:
        node (~chainer.variable.VariableNode or ~chainer.FunctionNode): The
            graph node to represent.
        attribute (dict): DOT attributes of the node (e.g. ``{'shape':
            'box'}``); they override the defaults.
        show_name (bool): If ``True``, a variable's name is prepended to its
            label.

    Attributes:
        node: The represented graph node.
        id_ (int): Identifier of the node in the DOT output.
        attribute (dict): All DOT attributes, including ``label``.
    """

    def __init__(self, node, attribute=None, show_name=True):
        if not isinstance(node, (variable.VariableNode, function_node.FunctionNode)):
            raise TypeError(
                "node must be a VariableNode or FunctionNode, not "
                f"{type(node).__name__}"
            )
        if attribute is not None and not isinstance(attribute, dict):
            raise TypeError(
                f"attribute must be a dict or None, not {type(attribute).__name__}"
            )
        self.node = node
        self.id_ = id(node)
        label = node.label
        if isinstance(node, variable.VariableNode):
            if show_name and node.name is not None:
                label = f"{node.name}: {label}"
            self.attribute = {"label": label, "shape": "oval"}
        else:
            self.attribute = {"label": label, "shape": "box"}
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self):
        """The node statement in the DOT language, e.g. ``'1234 [label="f"];'``."""
        attrs = ",".join(f"{k}={_quote(v)}" for k, v in self.attribute.items())
        return f"{self.id_} [{attrs}];"


def _style(style, default, what):
    if isinstance(style, str) and style == "default":
        return default
    if not isinstance(style, dict):
        raise TypeError(f"{what} must be 'default' or a dict of DOT attributes")
    return style


class ComputationalGraph:
    """Class that represents a computational graph.

    It is usually made by :func:`build_computational_graph`.

    Args:
        nodes (list): VariableNodes and FunctionNodes of the graph.
        edges (list): ``(head, tail)`` pairs of nodes, from input to output.
        variable_style (dict or 'default'): DOT attributes of variable nodes.
        function_style (dict or 'default'): DOT attributes of function nodes.
        rankdir (str): Direction of the graph: ``'TB'``, ``'BT'``, ``'LR'``
            or ``'RL'``.
        remove_variable (bool): If ``True``, variable nodes are left out and
            functions are connected directly.
        show_name (bool): If ``True``, variable names are shown in labels.

    Attributes:
        nodes (list): The nodes.
        edges (list): The edges.
    """

    def __init__(
        self,
        nodes,
        edges,
        variable_style="default",
        function_style="default",
        rankdir="TB",
        remove_variable=False,
        show_name=True,
    ):
        if rankdir not in _RANKDIRS:
            raise ValueError(f"rankdir must be one of {_RANKDIRS}, not {rankdir!r}")
        self.nodes = nodes
        self.edges = edges
        self.variable_style = _style(variable_style, _var_style, "variable_style")
        self.function_style = _style(function_style, _func_style, "function_style")
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def _function_edges(self):
        # A function-to-function edge for each variable passed between them.
        in_graph = {id(n) for n in self.nodes}
        edges = []
        for head, tail in self.edges:
            if not isinstance(head, variable.VariableNode):
                continue
            creator = head.creator_node
            if creator is not None and id(creator) in in_graph:
                edges.append((creator, tail))
        return edges

    def _to_dot(self):
        parts = [f"digraph graphname{{rankdir={self.rankdir};"]
        for node in self.nodes:
            if isinstance(node, variable.VariableNode):
                if not self.remove_variable:
                    parts.append(
                        DotNode(node, self.variable_style, self.show_name).label
                    )
            elif isinstance(node, function_node.FunctionNode):
                parts.append(DotNode(node, self.function_style, self.show_name).label)
            else:
                raise TypeError(
                    "nodes must be VariableNodes or FunctionNodes, not "
                    f"{type(node).__name__}"
                )
        edges = self._function_edges() if self.remove_variable else self.edges
        drawn = set()
        for head, tail in edges:
            if (
                isinstance(head, variable.VariableNode)
                == isinstance(tail, variable.VariableNode)
                and not self.remove_variable
            ):
                raise TypeError(
                    "an edge must connect a VariableNode and a FunctionNode"
                )
            edge = (id(head), id(tail))
            if edge in drawn:
                continue
            drawn.add(edge)
            parts.append("%d -> %d;" % edge)
        parts.append("}")
        return "".join(parts)

    def dump(self, format="dot"):
        """Dumps the graph as text.

        Args:
            format (str): Output format; only ``'dot'`` is supported.

        Returns:
            str: The graph in the DOT language.
        """
        if format != "dot":
            raise _UnsupportedFormat(
                f"unsupported format {format!r}: only 'dot' is supported"
            )
        return self._to_dot()


def build_computational_graph(
    outputs,
    remove_split=True,
    variable_style="default",
    function_style="default",
    rankdir="TB",
    remove_variable=False,
    show_name=True,
):
    """Builds a graph of functions and variables backward-reachable from outputs.

    The walk goes from each output to its creator function, from a function
    to its inputs, and so on. It stops at variables without a creator,
    including those cut by ``unchain_backward``.

    Args:
        outputs (~chainer.Variable, ~chainer.variable.VariableNode,
            ~chainer.FunctionNode or list of them): Node(s) from which the
            graph is built.
        remove_split (bool): Must be ``True``; split nodes of Chainer v1 no
            longer exist.
        variable_style (dict or 'default'): DOT attributes of variable nodes.
        function_style (dict or 'default'): DOT attributes of function nodes.
        rankdir (str): Direction of the graph: ``'TB'`` (top to bottom),
            ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable (bool): If ``True``, variable nodes are omitted and
            functions are connected directly.
        show_name (bool): If ``True``, variable names are shown in labels.

    Returns:
        ComputationalGraph: The graph of all nodes and edges backward-reachable
        from ``outputs``.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> from chainer import computational_graph as c
        >>> x = chainer.Variable(np.ones(3, np.float32), name='x')
        >>> y = x * 2
        >>> g = c.build_computational_graph([y])
        >>> dot = g.dump()
        >>> dot.startswith('digraph graphname{rankdir=TB;')
        True
    """
    if not remove_split:
        raise ValueError("remove_split=False is not supported anymore")
    if rankdir not in _RANKDIRS:
        raise ValueError(f"rankdir must be one of {_RANKDIRS}, not {rankdir!r}")
    kinds = (variable.Variable, variable.VariableNode, function_node.FunctionNode)
    if isinstance(outputs, kinds):
        outputs = [outputs]
    else:
        outputs = list(outputs)
        for o in outputs:
            if not isinstance(o, kinds):
                raise TypeError(
                    "element of outputs must be either Variable, VariableNode, or "
                    f"FunctionNode, not {type(o).__name__}"
                )

    # Visit in decreasing rank so that each node is expanded after everything
    # that consumes it; the counter keeps heap entries comparable.
    heap = []
    count = 0
    nodes = {}
    seen_edges = {}

    def push(node):
        nonlocal count
        heapq.heappush(heap, (-node.rank, count, node))
        count += 1

    for o in outputs:
        if isinstance(o, variable.Variable):
            o = o.node
        if id(o) not in nodes:
            nodes[id(o)] = o
            push(o)

    while heap:
        _, _, cand = heapq.heappop(heap)
        if isinstance(cand, variable.VariableNode):
            heads = (cand.creator_node,)
        else:
            heads = cand.inputs or ()
        for head in heads:
            if head is None or head is cand:
                continue
            key = (id(head), id(cand))
            if key in seen_edges:
                continue
            seen_edges[key] = (head, cand)
            if id(head) not in nodes:
                nodes[id(head)] = head
                push(head)
    return ComputationalGraph(
        list(nodes.values()),
        list(seen_edges.values()),
        variable_style,
        function_style,
        rankdir,
        remove_variable,
        show_name,
    )
