import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.links.rnn import n_step_gru
from chainer.utils import type_check


def _sigmoid(x):
    return 0.5 * numpy.tanh(0.5 * x) + 0.5


def _run_one(x, h, w, b):
    # One sequence through one GRU direction.
    ys = []
    for x_t in x:
        r = _sigmoid(w[0] @ x_t + b[0] + w[3] @ h + b[3])
        z = _sigmoid(w[1] @ x_t + b[1] + w[4] @ h + b[4])
        h_bar = numpy.tanh(w[2] @ x_t + b[2] + r * (w[5] @ h + b[5]))
        h = (1 - z) * h_bar + z * h
        ys.append(h)
    return numpy.array(ys).reshape(len(x), -1), h


def _reference(link, hx, xs):
    """Each sequence on its own, layer by layer, in float64."""
    n_dir = link.direction
    ws = [[w.array for w in ws_k] for ws_k in link.ws]
    bs = [[b.array for b in bs_k] for bs_k in link.bs]
    hy = hx.copy()
    ys = []
    for i, x in enumerate(xs):
        for layer in range(link.n_layers):
            outs = []
            for d in range(n_dir):
                k = layer * n_dir + d
                seq = x if d == 0 else x[::-1]
                y, hy[k, i] = _run_one(seq, hx[k, i], ws[k], bs[k])
                outs.append(y if d == 0 else y[::-1])
            x = numpy.concatenate(outs, axis=1)
        ys.append(x)
    return hy, ys


@pytest.fixture(params=[n_step_gru.NStepGRU, n_step_gru.NStepBiGRU])
def cls(request):
    return request.param


def _make(cls, n_layers=2, dropout=0.0, **kwargs):
    with chainer.using_config("dtype", numpy.float64):
        link = cls(n_layers, 3, 2, dropout, **kwargs)
    for p in link.params():
        p.array[...] = numpy.random.uniform(-1, 1, p.shape)
    return link


def test_parameters_follow_chainer_names(cls):
    link = cls(2, 3, 4, 0.0)
    n_dir = link.direction
    assert link.n_cells == 1
    shapes = dict((name, p.shape) for name, p in link.namedparams())
    assert len(shapes) == 2 * n_dir * 12
    assert shapes["/0/w2"] == (4, 3)
    assert shapes["/0/w3"] == (4, 4)
    assert shapes[f"/{n_dir}/w0"] == (4, 4 * n_dir)
    assert shapes[f"/{n_dir}/b5"] == (4,)


def test_forward_and_backward(cls):
    link = _make(cls)
    lengths = [1, 3, 2]
    xs = [numpy.random.uniform(-1, 1, (n, 3)) for n in lengths]
    hx = numpy.random.uniform(-1, 1, (2 * link.direction, 3, 2))
    hy, ys = link(hx, xs)
    ref_hy, ref_ys = _reference(link, hx, xs)
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-10, atol=1e-12)
    for y, r in zip(ys, ref_ys, strict=True):
        numpy.testing.assert_allclose(y.array, r, rtol=1e-10, atol=1e-12)

    def f(hx, *xs):
        hy, ys = link(hx, list(xs))
        return (hy, *ys)

    gys = tuple(numpy.random.uniform(-1, 1, y.shape) for y in (hy, *ys))
    gradient_check.check_backward(
        f, (hx, *xs), gys, params=tuple(link.params()), atol=1e-5, rtol=1e-4
    )


def test_none_state_and_dropout_in_test_mode(cls):
    link = _make(cls, dropout=0.5)
    xs = [numpy.random.uniform(-1, 1, (2, 3))]
    with chainer.using_config("train", False):
        hy, ys = link(None, xs)
    ref_hy, ref_ys = _reference(link, numpy.zeros(hy.shape), xs)
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(ys[0].array, ref_ys[0], rtol=1e-10, atol=1e-12)


def test_serialization_round_trip(cls):
    src = _make(cls)
    dst = _make(cls)
    testing.save_and_load_npz(src, dst)
    for (name, p), (_, q) in zip(src.namedparams(), dst.namedparams(), strict=True):
        numpy.testing.assert_array_equal(p.array, q.array, err_msg=name)


def test_initializers(cls):
    link = cls(1, 2, 2, 0.0, initialW=numpy.full((2, 2), 3.0), initial_bias=2)
    numpy.testing.assert_array_equal(link[0].w4.array, 3.0)
    numpy.testing.assert_array_equal(link[0].b0.array, 2.0)


class TestBadInputs:
    def test_wrong_input_size(self, cls):
        link = _make(cls)
        with pytest.raises(type_check.InvalidType):
            link(None, [numpy.zeros((2, 5))])

    def test_removed_arguments(self):
        with pytest.raises(ValueError, match="activation"):
            n_step_gru.NStepGRU(1, 3, 2, 0.0, activation="relu")
        with pytest.raises(ValueError, match="out_size"):
            n_step_gru.NStepBiGRU(1, 3, 0, 0.0)
