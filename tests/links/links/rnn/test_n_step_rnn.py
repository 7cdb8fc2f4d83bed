import numpy
import pytest

from chainer import gradient_check
from chainer.links.rnn import n_step_rnn
from chainer.utils import type_check

_CLASSES = {
    n_step_rnn.NStepRNNTanh: (1, numpy.tanh),
    n_step_rnn.NStepRNNReLU: (1, lambda a: numpy.maximum(a, 0)),
    n_step_rnn.NStepBiRNNTanh: (2, numpy.tanh),
    n_step_rnn.NStepBiRNNReLU: (2, lambda a: numpy.maximum(a, 0)),
}


def _step(link):
    act = _CLASSES[type(link)][1]

    def step(x_t, h, w, b):
        return (act(w[0] @ x_t + w[1] @ h + b[0] + b[1]),)

    return step


@pytest.fixture(params=list(_CLASSES))
def cls(request):
    return request.param


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


def test_forward_and_backward(helpers, cls):
    link = helpers.make_n_step(cls)
    xs = [numpy.random.uniform(-1, 1, (n, 3)) for n in (2, 4, 3)]
    hx = numpy.random.uniform(-1, 1, (2 * link.direction, 3, 2))
    hy, ys = link(hx, xs)
    ref_hy, ref_ys = helpers.n_step_reference(link, [hx], xs, _step(link))
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


def test_serialization_round_trip(helpers, cls):
    src = helpers.make_n_step(cls)
    dst = helpers.make_n_step(cls)
    helpers.check_serialization_round_trip(src, dst)
    xs = [numpy.random.uniform(-1, 1, (3, 3))]
    numpy.testing.assert_array_equal(src(None, xs)[0].array, dst(None, xs)[0].array)


def test_rnn_method_calls_the_function(helpers, cls):
    link = helpers.make_n_step(cls, n_layers=1)
    hx = numpy.zeros((link.direction, 1, 2))
    hy, _ = link.rnn(1, 0.0, hx, link.ws, link.bs, [numpy.ones((1, 3))])
    ref_hy, _ = helpers.n_step_reference(link, [hx], [numpy.ones((1, 3))], _step(link))
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-10, atol=1e-12)


class TestBadInputs:
    def test_wrong_input_size(self, helpers, cls):
        link = helpers.make_n_step(cls)
        with pytest.raises(type_check.InvalidType):
            link(None, [numpy.zeros((1, 2))])

    def test_arguments(self):
        with pytest.raises(ValueError, match="in_size"):
            n_step_rnn.NStepRNNTanh(1, None, 2, 0.0)
        with pytest.raises(ValueError, match="use_cudnn"):
            n_step_rnn.NStepBiRNNReLU(1, 3, 2, 0.0, use_cudnn=True)
