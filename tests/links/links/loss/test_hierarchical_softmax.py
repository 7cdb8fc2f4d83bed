import numpy
import pytest

import chainer
from chainer import device_resident
from chainer import gradient_check
from chainer import testing
from chainer.links.loss import hierarchical_softmax
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]
_TREE = ((0, 1), ((2, 3), (4, (5, 6))))


def _walk(tree, path=(), code=(), counter=None, out=None):
    # Reference parse: pre-order internal ids, code 1 = left, -1 = right.
    counter = [0] if counter is None else counter
    out = {} if out is None else out
    if isinstance(tree, tuple):
        node_id = counter[0]
        counter[0] += 1
        _walk(tree[0], (*path, node_id), (*code, 1), counter, out)
        _walk(tree[1], (*path, node_id), (*code, -1), counter, out)
    else:
        out[tree] = (list(path), list(code))
    return out


def _hsm(x, t, W, tree):
    table = _walk(tree)
    loss = 0.0
    for xi, ti in zip(x, t, strict=True):
        path, code = table[int(ti)]
        for node, c in zip(path, code, strict=True):
            loss += numpy.logaddexp(0, -c * W[node] @ xi)
    return loss


def _make_link(dtype, tree=_TREE, in_size=3):
    link = hierarchical_softmax.BinaryHierarchicalSoftmax(in_size, tree, dtype)
    return link


def test_tree_parser():
    parser = hierarchical_softmax.TreeParser(numpy.float32)
    parser.parse(((0, 1), 2))
    assert parser.size() == 2
    paths, codes = parser.get_paths(), parser.get_codes()
    assert {k: v.tolist() for k, v in paths.items()} == {
        0: [0, 1],
        1: [0, 1],
        2: [0],
    }
    assert {k: v.tolist() for k, v in codes.items()} == {
        0: [1, 1],
        1: [1, -1],
        2: [-1],
    }
    assert paths[0].dtype == numpy.int32
    assert codes[0].dtype == numpy.float32


def test_tree_parser_rejects_bad_trees():
    parser = hierarchical_softmax.TreeParser()
    with pytest.raises(ValueError, match="two child"):
        parser.parse(((0, 1, 2), 3))
    with pytest.raises(ValueError, match="twice"):
        parser.parse(((0, 1), 1))


def test_deep_tree_does_not_recurse():
    tree = 0
    # Deeper than Python's default recursion limit of 1000.
    for i in range(1, 1200):
        tree = (tree, i)
    func = hierarchical_softmax.BinaryHierarchicalSoftmaxFunction(tree)
    assert func.parser_size == 1199
    # Leaf 0 is 1199 deep, leaf i (i >= 1) 1200 - i deep.
    assert func.begins[-1] == 1199 + sum(range(1, 1200))


def test_huffman_tree():
    create = hierarchical_softmax.BinaryHierarchicalSoftmax.create_huffman_tree
    assert create({"a": 3, "b": 4, "c": 5, "d": 6}) == (("a", "b"), ("c", "d"))
    assert create({0: 8, 1: 5, 2: 6, 3: 4}) == ((3, 1), (2, 0))
    assert create({7: 1}) == 7
    # Ties are broken by insertion order, never by comparing subtrees.
    assert create({0: 1, 1: 1, 2: 1, 3: 1}) == ((0, 1), (2, 3))
    with pytest.raises(ValueError, match="Empty"):
        create({})


@pytest.mark.parametrize("dtype", _FLOATS)
def test_forward(dtype):
    link = _make_link(dtype)
    assert link.W.shape == (6, 3)
    assert link.W.dtype == dtype
    assert (abs(link.W.array) <= 1).all()
    x = numpy.random.uniform(-1, 1, (5, 3)).astype(dtype)
    t = numpy.array([0, 6, 3, 5, 3], numpy.int32)
    y = link(x, t)
    assert y.shape == ()
    assert y.dtype == dtype
    expected = _hsm(x.astype("d"), t, link.W.array.astype("d"), _TREE)
    tol = 1e-2 if dtype == numpy.float16 else 1e-5
    testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


def test_missing_word_has_no_loss():
    link = _make_link(numpy.float32, tree=((0, 3), 4))
    x = numpy.random.uniform(-1, 1, (3, 3)).astype(numpy.float32)
    y = link(x, numpy.array([1, 2, 1], numpy.int32))
    assert float(y.array) == 0.0


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_backward(dtype):
    link = _make_link(dtype)
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(dtype)
    t = numpy.array([0, 6, 6, 2], numpy.int32)
    gradient_check.check_backward(
        lambda x: link(x, t),
        x,
        None,
        params=(link.W,),
        dtype=numpy.float64,
        atol=1e-4,
        rtol=1e-3,
    )


def test_double_backward():
    func = hierarchical_softmax.BinaryHierarchicalSoftmaxFunction(_TREE, "d")
    x = numpy.random.uniform(-1, 1, (4, 3))
    W = numpy.random.uniform(-1, 1, (6, 3))
    t = numpy.array([0, 6, 6, 2], numpy.int32)

    def f(x, W):
        (y,) = func.__class__(_TREE, "d").apply((x, t, W))
        return y

    gradient_check.check_double_backward(
        f,
        (x, W),
        numpy.array(0.7),
        (numpy.random.uniform(-1, 1, x.shape), numpy.random.uniform(-1, 1, W.shape)),
        atol=1e-5,
        rtol=1e-4,
    )


def test_bad_inputs():
    link = _make_link(numpy.float32)
    x = numpy.zeros((2, 3), numpy.float32)
    t = numpy.zeros(2, numpy.int32)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((2, 4), numpy.float32), t)
    with pytest.raises(type_check.InvalidType):
        link(x, t.astype(numpy.float32))
    with pytest.raises(type_check.InvalidType):
        link(x.astype(numpy.float64), t)
    with pytest.raises(ValueError, match="word ids"):
        link(x, numpy.array([0, 7], numpy.int32))
    with pytest.raises(ValueError, match="word ids"):
        link(x, numpy.array([-1, 0], numpy.int32))


def test_leaves_must_be_ints():
    with pytest.raises(ValueError, match="non-negative ints"):
        hierarchical_softmax.BinaryHierarchicalSoftmax(2, ("a", "b"))
    with pytest.raises(ValueError, match="non-negative ints"):
        hierarchical_softmax.BinaryHierarchicalSoftmax(2, (0, -1))


def test_tables_follow_the_link():
    link = _make_link(numpy.float32)
    visited = []

    class _Visitor(device_resident.DeviceResidentsVisitor):
        def visit_array(self, arr):
            visited.append(arr)
            return arr.copy()

    func = link._func
    before = (func.paths, func.codes, func.begins)
    link.device_resident_accept(_Visitor())
    assert len(visited) == 3
    for old, new in zip(before, (func.paths, func.codes, func.begins), strict=True):
        assert new is not old
        numpy.testing.assert_array_equal(new, old)
    link.to_device("@numpy")
    x = numpy.zeros((1, 3), numpy.float32)
    assert link(x, numpy.zeros(1, numpy.int32)).shape == ()


def test_default_dtype():
    with chainer.using_config("dtype", numpy.float16):
        link = hierarchical_softmax.BinaryHierarchicalSoftmax(2, (0, 1))
    assert link.W.dtype == numpy.float16
    assert link._func.codes.dtype == numpy.float16


def test_serialization_round_trip():
    src = _make_link(numpy.float32)
    dst = _make_link(numpy.float32)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)


def test_first_order_paths_agree():
    # backward() takes a plain-array path; with a double-backprop graph it
    # composes differentiable ops. Both must give the same gradients.
    link = _make_link(numpy.float64)
    x = chainer.Variable(numpy.random.uniform(-1, 1, (6, 3)))
    t = numpy.array([0, 6, 6, 2, 1, 4], numpy.int32)
    grads = []
    for double in (False, True):
        link.cleargrads()
        x.grad = None
        (link(x, t) * 1.5).backward(enable_double_backprop=double)
        grads.append((x.grad.copy(), link.W.grad.copy()))
    for fast, graph in zip(grads[0], grads[1], strict=True):
        testing.assert_allclose(fast, graph, rtol=1e-10)
    assert numpy.abs(grads[0][1]).sum() > 0
