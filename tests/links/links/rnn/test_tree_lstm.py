import numpy
import pytest

from chainer import gradient_check
from chainer import testing
from chainer.links.rnn import tree_lstm


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _w(layer):
    return layer.W.array.astype(numpy.float64)


def _random(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def _cell(cs, z):
    """tree_lstm on blocks a, i, o, f_1..f_N of z."""
    blocks = numpy.split(z, 3 + len(cs), axis=1)
    a, i, o = blocks[:3]
    c = numpy.tanh(a) * _sigmoid(i)
    for c_k, f in zip(cs, blocks[3:], strict=True):
        c = c + _sigmoid(f) * c_k
    return c, _sigmoid(o) * numpy.tanh(c)


def _child_sum_reference(link, cs, hs, x):
    n = link.state_size
    zx = x @ _w(link.W_x).T + link.W_x.b.array
    if not hs:
        a, i, o = numpy.split(zx[:, : 3 * n], 3, axis=1)
        c = _sigmoid(i) * numpy.tanh(a)
        return c, _sigmoid(o) * numpy.tanh(c)
    aio = zx[:, : 3 * n] + sum(hs) @ _w(link.W_h_aio).T
    fs = [zx[:, 3 * n :] + h @ _w(link.W_h_f).T for h in hs]
    return _cell(cs, numpy.concatenate([aio, *fs], axis=1))


def _nary_reference(link, cs, hs, x):
    z = x @ _w(link.W_x).T + link.W_x.b.array
    for k, h in enumerate(hs, start=1):
        z = z + h @ _w(getattr(link, f"W_h{k}")).T
    return _cell(cs, z)


def test_child_sum_parameters():
    link = tree_lstm.ChildSumTreeLSTM(3, 4)
    names = sorted(name for name, _ in link.namedparams())
    assert names == ["/W_h_aio/W", "/W_h_f/W", "/W_x/W", "/W_x/b"]
    assert link.W_x.W.shape == (16, 3)
    assert link.W_h_aio.W.shape == (12, 4)
    assert link.W_h_f.W.shape == (4, 4)


@pytest.mark.parametrize("n_children", [0, 1, 3])
def test_child_sum_forward(n_children):
    link = tree_lstm.ChildSumTreeLSTM(3, 4)
    cs = [_random(2, 4) for _ in range(n_children)]
    hs = [_random(2, 4) for _ in range(n_children)]
    x = _random(2, 3)
    c, h = link(*cs, *hs, x)
    c_ref, h_ref = _child_sum_reference(link, cs, hs, x)
    testing.assert_allclose(c.array, c_ref)
    testing.assert_allclose(h.array, h_ref)


def test_child_sum_none_inputs_are_zeros():
    link = tree_lstm.ChildSumTreeLSTM(3, 4)
    c1 = _random(2, 4)
    h1 = _random(2, 4)
    zeros = numpy.zeros((2, 4), numpy.float32)
    c, h = link(c1, None, h1, None, None)
    c_ref, h_ref = _child_sum_reference(
        link, [c1, zeros], [h1, zeros], numpy.zeros((2, 3))
    )
    testing.assert_allclose(c.array, c_ref)
    testing.assert_allclose(h.array, h_ref)


def test_child_sum_errors():
    link = tree_lstm.ChildSumTreeLSTM(3, 4)
    with pytest.raises(ValueError, match="None"):
        link(None, None, None)
    with pytest.raises(ValueError, match="odd"):
        link(_random(2, 4), _random(2, 3))


def test_child_sum_backward():
    link = tree_lstm.ChildSumTreeLSTM(2, 3)
    for p in link.params():
        p.array = p.array.astype(numpy.float64)
    inputs = [_random(2, 3, dtype=numpy.float64) for _ in range(4)]
    inputs.append(_random(2, 2, dtype=numpy.float64))
    gys = (_random(2, 3, dtype=numpy.float64), _random(2, 3, dtype=numpy.float64))
    gradient_check.check_backward(
        link, inputs, gys, params=tuple(link.params()), dtype=numpy.float64
    )


def test_nary_parameters():
    link = tree_lstm.NaryTreeLSTM(3, 4, n_ary=3)
    names = sorted(name for name, _ in link.namedparams())
    assert names == ["/W_h1/W", "/W_h2/W", "/W_h3/W", "/W_x/W", "/W_x/b"]
    assert link.W_x.W.shape == (24, 3)
    assert link.W_h2.W.shape == (24, 4)
    assert link.n_ary == 3
    with pytest.raises(ValueError, match="n_ary"):
        tree_lstm.NaryTreeLSTM(3, 4, n_ary=0)


def test_nary_forward():
    link = tree_lstm.NaryTreeLSTM(3, 4, n_ary=2)
    cs = [_random(2, 4) for _ in range(2)]
    hs = [_random(2, 4) for _ in range(2)]
    x = _random(2, 3)
    c, h = link(*cs, *hs, x)
    c_ref, h_ref = _nary_reference(link, cs, hs, x)
    testing.assert_allclose(c.array, c_ref)
    testing.assert_allclose(h.array, h_ref)


def test_nary_missing_children():
    link = tree_lstm.NaryTreeLSTM(3, 4, n_ary=2)
    c1 = _random(2, 4)
    h1 = _random(2, 4)
    x = _random(2, 3)
    c, h = link(c1, None, h1, None, x)
    zeros = numpy.zeros((2, 4))
    c_ref, h_ref = _nary_reference(link, [c1, zeros], [h1, zeros], x)
    testing.assert_allclose(c.array, c_ref)
    testing.assert_allclose(h.array, h_ref)
    c, h = link(c1, None, h1, None, None)
    c_ref, h_ref = _nary_reference(link, [c1, zeros], [h1, zeros], numpy.zeros((2, 3)))
    testing.assert_allclose(h.array, h_ref)


def test_nary_errors():
    link = tree_lstm.NaryTreeLSTM(3, 4, n_ary=2)
    with pytest.raises(ValueError, match="5 arguments"):
        link(_random(2, 4), _random(2, 4), _random(2, 3))
    with pytest.raises(ValueError, match="None"):
        link(None, None, None, None, None)


def test_nary_backward():
    link = tree_lstm.NaryTreeLSTM(2, 3, n_ary=2)
    for p in link.params():
        p.array = p.array.astype(numpy.float64)
    inputs = [_random(2, 3, dtype=numpy.float64) for _ in range(4)]
    inputs.append(_random(2, 2, dtype=numpy.float64))
    gys = (_random(2, 3, dtype=numpy.float64), _random(2, 3, dtype=numpy.float64))
    gradient_check.check_backward(
        link, inputs, gys, params=tuple(link.params()), dtype=numpy.float64
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: tree_lstm.ChildSumTreeLSTM(3, 4),
        lambda: tree_lstm.NaryTreeLSTM(3, 4, n_ary=3),
    ],
)
def test_serialization_round_trip(make):
    src = make()
    dst = make()
    testing.save_and_load_npz(src, dst)
    for (name, p), (_, q) in zip(
        sorted(src.namedparams()), sorted(dst.namedparams()), strict=True
    ):
        numpy.testing.assert_array_equal(p.array, q.array, err_msg=name)
