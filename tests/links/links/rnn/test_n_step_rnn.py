import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.links.rnn import n_step_rnn
from chainer.utils import type_check

_CLASSES = {
    n_step_rnn.NStepRNNTanh: (1, numpy.tanh),
    n_step_rnn.NStepRNNReLU: (1, lambda a: numpy.maximum(a, 0)),
    n_step_rnn.NStepBiRNNTanh: (2, numpy.tanh),
    n_step_rnn.NStepBiRNNReLU: (2, lambda a: numpy.maximum(a, 0)),
}


def _reference(link, hx, xs):
    """Each sequence on its own, layer by layer, in float64."""
    n_dir, act = _CLASSES[type(link)]
    hy = hx.copy()
    ys = []
    for i, x in enumerate(xs):
        for layer in range(link.n_layers):
            outs = []
            for d in range(n_dir):
                k = layer * n_dir + d
                w0, w1 = (w.array for w in link.ws[k])
                b0, b1 = (b.array for b in link.bs[k])
                h = hx[k, i]
                seq = x if d == 0 else x[::-1]
                y = []
                for x_t in seq:
                    h = act(w0 @ x_t + w1 @ h + b0 + b1)
                    y.append(h)
                hy[k, i] = h
                y = numpy.array(y).reshape(len(x), -1)
                outs.append(y if d == 0 else y[::-1])
            x = numpy.concatenate(outs, axis=1)
        ys.append(x)
    return hy, ys


@pytest.fixture(params=list(_CLASSES))
def cls(request):
    return request.param


def _make(cls, n_layers=2, dropout=0.0):
    with chainer.using_config("dtype", numpy.float64):
        link = cls(n_layers, 3, 2, dropout)
    for p in link.params():
        p.array[...] = numpy.random.uniform(-1, 1, p.shape)
    return link


def test_parameters_follow_chainer_names(cls):
    link = cls(2, 3, 4, 0.0)
    n_dir = _CLASSES[cls][0]
    assert link.direction == n_dir
    assert link.n_cells == 1
    shapes = dict((name, p.shape) for name, p in link.namedparams())
    assert sorted(shapes) == sorted(
        f"/{k}/{p}{j}" for k in range(2 * n_dir) for p in "wb" for j in range(2)
    )
    assert shapes["/0/w0"] == (4, 3)
    assert shapes[f"/{n_dir}/w0"] == (4, 4 * n_dir)
    assert shapes[f"/{n_dir}/w1"] == (4, 4)


def test_forward_and_backward(cls):
    link = _make(cls)
    xs = [numpy.random.uniform(-1, 1, (n, 3)) for n in (2, 4, 3)]
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
        f,
        (hx, *xs),
        gys,
        params=tuple(link.params()),
        atol=1e-5,
        rtol=1e-4,
        detect_nondifferentiable=True,
    )


def test_serialization_round_trip(cls):
    src = _make(cls)
    dst = _make(cls)
    testing.save_and_load_npz(src, dst)
    for (name, p), (_, q) in zip(src.namedparams(), dst.namedparams(), strict=True):
        numpy.testing.assert_array_equal(p.array, q.array, err_msg=name)
    xs = [numpy.random.uniform(-1, 1, (3, 3))]
    numpy.testing.assert_array_equal(src(None, xs)[0].array, dst(None, xs)[0].array)


def test_rnn_method_calls_the_function(cls):
    link = _make(cls, n_layers=1)
    hx = numpy.zeros((link.direction, 1, 2))
    hy, _ = link.rnn(1, 0.0, hx, link.ws, link.bs, [numpy.ones((1, 3))])
    ref_hy, _ = _reference(link, hx, [numpy.ones((1, 3))])
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-10, atol=1e-12)


class TestBadInputs:
    def test_wrong_input_size(self, cls):
        link = _make(cls)
        with pytest.raises(type_check.InvalidType):
            link(None, [numpy.zeros((1, 2))])

    def test_arguments(self):
        with pytest.raises(ValueError, match="in_size"):
            n_step_rnn.NStepRNNTanh(1, None, 2, 0.0)
        with pytest.raises(ValueError, match="use_cudnn"):
            n_step_rnn.NStepBiRNNReLU(1, 3, 2, 0.0, use_cudnn=True)
