"""Fixtures shared by the tests of the data-parallel updaters."""

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers

N_IN = 5  # inputs of the examples and of the models


class _MLP(chainer.Chain):
    def __init__(self, n_hidden=8, n_out=3):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(N_IN, n_hidden)
            self.l2 = L.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


@pytest.fixture
def make_classifier():
    """``make_classifier(**kwargs)``: ``L.Classifier`` of a small MLP.

    The MLP takes 5 inputs and gives 3 classes; ``kwargs`` go to
    ``L.Classifier``.
    """

    def make(**kwargs):
        return L.Classifier(_MLP(), **kwargs)

    return make


@pytest.fixture
def make_dataset():
    """``make_dataset(n=42)``: ``n`` examples ``(x, t)`` from a fixed seed.

    ``x`` holds 5 float32 values; the label ``t`` (3 classes) follows from
    its first two values.
    """

    def make(n=42):
        rng = numpy.random.RandomState(0)
        x = rng.randn(n, N_IN).astype(numpy.float32)
        t = (x[:, 0] > 0).astype(numpy.int32) + (x[:, 1] > 0.5).astype(numpy.int32)
        return list(zip(x, t, strict=True))

    return make


@pytest.fixture
def make_pair():
    """``make_pair(model, optimizer_class=SGD, **kwargs)``: two set-up pairs.

    Returns ``[(model, optimizer), (reference, reference_optimizer)]``, the
    reference a copy of ``model``; ``kwargs`` go to ``optimizer_class``.
    """

    def make(model, optimizer_class=optimizers.SGD, **kwargs):
        pairs = []
        for m in (model, model.copy(mode="copy")):
            opt = optimizer_class(**kwargs)
            opt.setup(m)
            pairs.append((m, opt))
        return pairs

    return make


@pytest.fixture
def optimizer(make_classifier):
    """An SGD optimizer set up with a fresh classifier."""
    return optimizers.SGD().setup(make_classifier())


@pytest.fixture
def assert_same_params():
    """``assert_same_params(a, b, rtol=1e-5, atol=1e-6)`` for two links."""

    def check(a, b, rtol=1e-5, atol=1e-6):
        pa = dict(a.namedparams())
        pb = dict(b.namedparams())
        assert sorted(pa) == sorted(pb)
        for name, p in pa.items():
            numpy.testing.assert_allclose(
                p.array, pb[name].array, rtol=rtol, atol=atol, err_msg=name
            )

    return check


@pytest.fixture
def update_side_by_side(assert_same_params):
    """``update_side_by_side(updater, ref_updater, n)``: compares two updaters.

    Runs ``n`` updates of each, finalizes ``updater`` (even on failure) and
    checks that the targets of their main optimizers agree.
    """

    def run(updater, ref_updater, n):
        try:
            for _ in range(n):
                updater.update()
                ref_updater.update()
        finally:
            updater.finalize()
        assert_same_params(
            updater.get_optimizer("main").target,
            ref_updater.get_optimizer("main").target,
        )

    return run
