"""Shared helpers for optimizer tests: a tiny link, a quadratic and fake serializers."""

import numpy
import pytest

import chainer
from chainer import serializer


class _Quadratic(chainer.Link):
    # loss(w) = mean((w - target)^2) over one parameter ``w``.

    def __init__(self, w, target):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(w)
        self.target = target

    def forward(self):
        diff = self.w - self.target
        return (diff * diff).mean()


class _DictSerializer(serializer.Serializer):
    def __init__(self, store=None, path=""):
        self.store = {} if store is None else store
        self.path = path

    def __getitem__(self, key):
        return _DictSerializer(self.store, self.path + key + "/")

    def __call__(self, key, value):
        stored = value.copy() if isinstance(value, numpy.ndarray) else value
        self.store[self.path + key] = stored
        return value


class _DictDeserializer(serializer.Deserializer):
    def __init__(self, store, path=""):
        self.store = store
        self.path = path

    def __getitem__(self, key):
        return _DictDeserializer(self.store, self.path + key + "/")

    def __call__(self, key, value):
        stored = self.store[self.path + key]
        if value is None:
            return numpy.array(stored)
        if isinstance(value, numpy.ndarray):
            value[...] = stored
            return value
        return type(value)(stored)


class _Helpers:
    Quadratic = _Quadratic
    DictSerializer = _DictSerializer
    DictDeserializer = _DictDeserializer

    @staticmethod
    def make_link(dtype=numpy.float32, seed=0, shape=(3, 4)):
        rng = numpy.random.RandomState(seed)
        w = rng.uniform(-1, 1, shape).astype(dtype)
        target = rng.uniform(-1, 1, shape).astype(dtype)
        return _Quadratic(w, target)

    @staticmethod
    def set_grad(link, grad):
        link.cleargrads()
        link.w.grad = numpy.asarray(grad, dtype=link.w.dtype)

    def check_decreases(
        self, make_optimizer, dtype=numpy.float32, steps=30, fp32_update=False
    ):
        """Runs ``steps`` updates on the quadratic; the loss must decrease."""
        link = self.make_link(dtype)
        opt = make_optimizer()
        if fp32_update:
            opt.use_fp32_update()
        opt.setup(link)
        initial = float(link().array)
        for _ in range(steps):
            opt.update(link)
        final = float(link().array)
        assert link.w.dtype == dtype
        assert numpy.isfinite(link.w.array).all()
        assert final < initial * 0.9, (initial, final)
        assert opt.t == steps
        return link, opt

    def check_serialize_round_trip(self, make_optimizer, steps=3):
        """Optimizer state saved after a few steps resumes identically."""
        link_a = self.make_link()
        opt_a = make_optimizer().setup(link_a)
        for _ in range(steps):
            opt_a.update(link_a)
        saver = _DictSerializer()
        opt_a.serialize(saver)
        assert saver.store["t"] == steps
        assert saver.store["epoch"] == 0
        assert saver.store["w/t"] == steps

        link_b = self.make_link()
        link_b.w.array[...] = link_a.w.array
        opt_b = make_optimizer().setup(link_b)
        opt_b.serialize(_DictDeserializer(saver.store))
        assert opt_b.t == steps
        rule_a, rule_b = link_a.w.update_rule, link_b.w.update_rule
        assert rule_b.t == steps
        assert set(rule_b.state) == set(rule_a.state)
        for key, value in rule_a.state.items():
            numpy.testing.assert_array_equal(rule_b.state[key], value)
        opt_a.update(link_a)
        opt_b.update(link_b)
        numpy.testing.assert_array_equal(link_a.w.array, link_b.w.array)
        return saver.store

    def one_step(self, make_optimizer, w, grads, dtype=numpy.float64):
        """Applies updates with the given gradients; returns (w, rule)."""
        link = _Quadratic(numpy.array(w, dtype=dtype), numpy.zeros_like(w, dtype))
        opt = make_optimizer().setup(link)
        for g in grads:
            self.set_grad(link, g)
            opt.update()
        return link.w.array, link.w.update_rule


@pytest.fixture
def helpers():
    return _Helpers()
