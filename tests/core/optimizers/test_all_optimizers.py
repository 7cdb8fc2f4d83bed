"""Behaviour every built-in optimizer shares: any shape, hooks, pickling."""

import pickle

import numpy
import pytest

import chainer
from chainer import optimizer_hooks
from chainer import optimizers

_ALL = [getattr(optimizers, name) for name in optimizers.__all__]


def _link(shape, seed=0):
    rng = numpy.random.RandomState(seed)
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(numpy.asarray(rng.randn(*shape), numpy.float32))
    link.w.grad = numpy.asarray(rng.randn(*shape), numpy.float32)
    return link


@pytest.mark.parametrize("cls", _ALL, ids=lambda c: c.__name__)
@pytest.mark.parametrize("shape", [(), (1, 0, 2), (2, 3)])
def test_update_any_shape(cls, shape):
    # 0-d parameters keep being arrays through the in-place update.
    link = _link(shape)
    before = link.w.array.copy()
    opt = cls().setup(link)
    for _ in range(2):
        opt.update()
    w = link.w.array
    assert isinstance(w, numpy.ndarray)
    assert w.shape == shape
    assert w.dtype == numpy.float32
    assert numpy.isfinite(w).all()
    for value in link.w.update_rule.state.values():
        if isinstance(value, numpy.ndarray):
            assert value.shape == shape
    if w.size:
        assert not numpy.array_equal(w, before)


@pytest.mark.parametrize("cls", _ALL, ids=lambda c: c.__name__)
def test_pre_and_post_hooks_see_weights_around_the_update(cls):
    class Save:
        call_for_each_param = True

        def __init__(self, timing):
            self.timing = timing
            self.value = None

        def __call__(self, rule, param):
            self.value = param.array.copy()

    link = _link(())
    w_pre = link.w.array.copy()
    opt = cls().setup(link)
    pre, post = Save("pre"), Save("post")
    opt.add_hook(pre, name="pre")
    opt.add_hook(post, name="post")
    opt.update()
    assert pre.value == w_pre
    assert post.value == link.w.array
    assert pre.value != post.value


@pytest.mark.parametrize("cls", _ALL, ids=lambda c: c.__name__)
def test_pickled_optimizer_continues_identically(cls):
    link = _link(())
    opt = cls().setup(link)
    opt.update()
    copy = pickle.loads(pickle.dumps(opt))
    opt.update()
    copy.update()
    assert copy.target.w.array == link.w.array


@pytest.mark.parametrize(
    "hook",
    [
        optimizer_hooks.WeightDecay(0.1),
        optimizer_hooks.Lasso(0.1),
        optimizer_hooks.GradientClipping(0.1),
        optimizer_hooks.GradientHardClipping(-0.1, 0.1),
        optimizer_hooks.GradientLARS(threshold=0.0, weight_decay=0.1),
        optimizer_hooks.GradientNoise(0.1),
    ],
    ids=lambda h: type(h).__name__,
)
def test_hooks_on_0d_parameters(hook):
    link = _link(())
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.add_hook(hook)
    opt.update()
    assert isinstance(link.w.array, numpy.ndarray)
    assert link.w.array.shape == ()
    assert numpy.isfinite(link.w.array)
