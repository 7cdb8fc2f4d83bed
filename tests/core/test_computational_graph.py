import re

import numpy
import pytest

import chainer
from chainer import computational_graph as c


class _Add(chainer.FunctionNode):
    def forward(self, inputs):
        a, b = inputs
        return (a + b,)

    def backward(self, indexes, grad_outputs):
        return grad_outputs * 2


class _Split(chainer.FunctionNode):
    def forward(self, inputs):
        (a,) = inputs
        return a * 1, a * 2

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0],)


_NODE = re.compile(r"(\d+) \[([^\]]*)\];")
_EDGE = re.compile(r"(\d+) -> (\d+);")


def _parse(dot):
    assert dot.startswith("digraph graphname{rankdir=")
    assert dot.endswith("}")
    body = dot[dot.index(";") + 1 : -1]
    nodes = {}
    for node_id, attrs in _NODE.findall(body):
        nodes[int(node_id)] = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', attrs))
    edges = [(int(a), int(b)) for a, b in _EDGE.findall(body)]
    leftover = _EDGE.sub("", _NODE.sub("", body))
    assert leftover == ""
    return nodes, edges


@pytest.fixture
def graph():
    x = chainer.Variable(numpy.ones(3, dtype=numpy.float32), name="x")
    w = chainer.Variable(numpy.ones(3, dtype=numpy.float32), name="w")
    (h,) = _Add().apply((x, w))
    (y,) = _Add().apply((h, x))
    return x, w, h, y


def test_dot_structure(graph):
    x, w, h, y = graph
    g = c.build_computational_graph([y])
    nodes, edges = _parse(g.dump())
    f1, f2 = h.creator_node, y.creator_node
    assert set(nodes) == {id(n) for n in (x.node, w.node, h.node, y.node, f1, f2)}
    assert set(edges) == {
        (id(x.node), id(f1)),
        (id(w.node), id(f1)),
        (id(f1), id(h.node)),
        (id(h.node), id(f2)),
        (id(x.node), id(f2)),
        (id(f2), id(y.node)),
    }
    assert len(edges) == len(set(edges))
    assert nodes[id(x.node)]["label"] == "x: (3), float32"
    assert nodes[id(x.node)]["shape"] == "octagon"
    assert nodes[id(f1)] == {
        "label": "_Add",
        "shape": "record",
        "fillcolor": "#6495ED",
        "style": "filled",
    }
    assert len(g.nodes) == 6
    assert len(g.edges) == 6


def test_single_output_and_node_inputs(graph):
    x, _, h, y = graph
    for out in (y, y.node, y.creator_node):
        g = c.build_computational_graph(out)
        assert {id(n) for n in g.nodes} >= {id(x.node), id(h.creator_node)}


def test_only_backward_reachable(graph):
    _x, _w, h, y = graph
    g = c.build_computational_graph([h])
    ids = {id(n) for n in g.nodes}
    assert id(y.node) not in ids
    assert id(y.creator_node) not in ids


def test_split_outputs_reach_only_used_branch():
    x = chainer.Variable(numpy.ones(2, dtype=numpy.float32))
    a, b = _Split().apply((x,))
    g = c.build_computational_graph([a])
    ids = {id(n) for n in g.nodes}
    assert id(a.node) in ids
    assert id(b.node) not in ids


def test_unchain_backward_stops_walk(graph):
    _x, w, h, y = graph
    h.unchain_backward()
    g = c.build_computational_graph([y])
    ids = {id(n) for n in g.nodes}
    assert id(w.node) not in ids
    assert id(h.node) in ids


def test_remove_variable(graph):
    _x, _w, h, y = graph
    g = c.build_computational_graph([y], remove_variable=True)
    nodes, edges = _parse(g.dump())
    f1, f2 = h.creator_node, y.creator_node
    assert set(nodes) == {id(f1), id(f2)}
    assert edges == [(id(f1), id(f2))]


def test_styles_rankdir_and_names(graph):
    x, _, _, y = graph
    g = c.build_computational_graph(
        [y],
        variable_style={"shape": "box", "color": "red"},
        function_style={"shape": "ellipse"},
        rankdir="LR",
        show_name=False,
    )
    dot = g.dump()
    assert dot.startswith("digraph graphname{rankdir=LR;")
    nodes, _ = _parse(dot)
    assert nodes[id(x.node)] == {
        "label": "(3), float32",
        "shape": "box",
        "color": "red",
    }
    assert nodes[id(y.creator_node)] == {"label": "_Add", "shape": "ellipse"}


def test_labels_are_escaped():
    x = chainer.Variable(numpy.ones((), dtype=numpy.float32), name='say "hi"\\')
    g = c.build_computational_graph([x])
    dot = g.dump()
    assert 'label="say \\"hi\\"\\\\: float32"' in dot
    nodes, _ = _parse(dot)
    assert len(nodes) == 1


def test_dot_node():
    x = chainer.Variable(numpy.ones(2, dtype=numpy.float32), name="x")
    node = c.DotNode(x.node, {"color": "blue"})
    assert node.id_ == id(x.node)
    assert node.attribute == {
        "label": "x: (2), float32",
        "shape": "oval",
        "color": "blue",
    }
    assert (
        node.label
        == f'{id(x.node)} [label="x: (2), float32",shape="oval",color="blue"];'
    )
    with pytest.raises(TypeError, match="VariableNode or FunctionNode"):
        c.DotNode(x)


def test_bad_arguments(graph):
    _, _, _, y = graph
    with pytest.raises(ValueError, match="remove_split"):
        c.build_computational_graph([y], remove_split=False)
    with pytest.raises(TypeError, match="element of outputs"):
        c.build_computational_graph([y, 3])
    with pytest.raises(ValueError, match="rankdir"):
        c.build_computational_graph([y], rankdir="XY")
    with pytest.raises(TypeError, match="variable_style"):
        c.build_computational_graph([y], variable_style="fancy")
    g = c.build_computational_graph([y])
    with pytest.raises(ValueError, match="only 'dot'"):
        g.dump(format="svg")
    # Chainer raises NotImplementedError for other formats; ours is both.
    with pytest.raises(NotImplementedError, match="only 'dot'"):
        g.dump("graphml")
    with pytest.raises(ValueError, match="rankdir"):
        c.ComputationalGraph([], [], rankdir="up")
