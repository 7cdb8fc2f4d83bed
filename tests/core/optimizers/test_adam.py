import math

import numpy
import pytest

from chainer import optimizers
from chainer.optimizers import adam


def _reference(
    w0,
    grads,
    alpha=0.001,
    beta1=0.9,
    beta2=0.999,
    eps=1e-8,
    eta=1.0,
    weight_decay_rate=0.0,
    amsgrad=False,
    adabound=False,
    final_lr=0.1,
    gamma=1e-3,
):
    w = w0.copy()
    m, v, vhat = (numpy.zeros_like(w0) for _ in range(3))
    for t, g in enumerate(grads, 1):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        vhat = numpy.maximum(vhat, v) if amsgrad else v
        alpha_t = alpha * math.sqrt(1 - beta2**t) / (1 - beta1**t)
        step = alpha_t / (numpy.sqrt(vhat) + eps)
        if adabound:
            lower = final_lr * (1 - 1 / (gamma * t + 1))
            upper = final_lr * (1 + 1 / (gamma * t))
            step = numpy.clip(step, lower, upper)
        w = w - eta * (step * m + weight_decay_rate * w)
    return w, m, v, vhat


CASES = [
    {},
    {"alpha": 0.01, "beta1": 0.8, "beta2": 0.9, "eps": 1e-4},
    {"eta": 0.5, "weight_decay_rate": 0.1},
    {"amsgrad": True},
    {"adabound": True, "final_lr": 0.05, "gamma": 0.1},
    {"adabound": True, "amsgrad": True, "alpha": 0.1, "eta": 0.7},
]


@pytest.mark.parametrize("kwargs", CASES)
def test_update_matches_formula(helpers, kwargs):
    rng = numpy.random.RandomState(10)
    w0 = rng.randn(6)
    # Decreasing gradient magnitudes make vhat differ from v under AMSGrad.
    grads = rng.randn(4, 6) * numpy.array([[4.0], [2.0], [1.0], [0.5]])
    w, rule = helpers.one_step(lambda: optimizers.Adam(**kwargs), w0, grads)
    expected, m, v, vhat = _reference(w0, grads, **kwargs)
    numpy.testing.assert_allclose(w, expected, rtol=1e-10)
    numpy.testing.assert_allclose(rule.state["m"], m, rtol=1e-10)
    numpy.testing.assert_allclose(rule.state["v"], v, rtol=1e-10)
    if kwargs.get("amsgrad"):
        numpy.testing.assert_allclose(rule.state["vhat"], vhat, rtol=1e-10)
    else:
        assert "vhat" not in rule.state


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        (optimizers.AdamW, {"weight_decay_rate": 0.1}),
        (optimizers.AMSGrad, {"amsgrad": True}),
        (optimizers.AdaBound, {"adabound": True}),
        (optimizers.AMSBound, {"amsgrad": True, "adabound": True}),
    ],
)
def test_variants(helpers, cls, kwargs):
    rng = numpy.random.RandomState(11)
    w0 = rng.randn(4)
    grads = rng.randn(3, 4)
    ctor_kwargs = {"weight_decay_rate": 0.1} if cls is optimizers.AdamW else {}
    w, _ = helpers.one_step(lambda: cls(alpha=0.05, **ctor_kwargs), w0, grads)
    expected = _reference(w0, grads, alpha=0.05, **kwargs)[0]
    numpy.testing.assert_allclose(w, expected, rtol=1e-10)
    opt = cls()
    assert opt.amsgrad == kwargs.get("amsgrad", False)
    assert opt.adabound == kwargs.get("adabound", False)


@pytest.mark.parametrize(
    "cls",
    [optimizers.Adam, optimizers.AdamW, optimizers.AMSGrad, optimizers.AMSBound],
)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_quadratic_decreases(helpers, cls, dtype):
    helpers.check_decreases(lambda: cls(alpha=0.05), dtype)


def test_adabound_quadratic_decreases(helpers):
    helpers.check_decreases(lambda: optimizers.AdaBound(alpha=0.05, final_lr=0.5))


def test_float16(helpers):
    link, _ = helpers.check_decreases(
        lambda: optimizers.Adam(alpha=0.05), numpy.float16, fp32_update=True
    )
    assert link.w.update_rule.state["m"].dtype == numpy.float32
    helpers.check_decreases(
        lambda: optimizers.Adam(alpha=0.05, eps=1e-4), numpy.float16
    )
    link = helpers.make_link(numpy.float16)
    opt = optimizers.Adam().setup(link)
    with pytest.raises(ValueError, match="eps of Adam optimizer is too small"):
        opt.update(link)


def test_alpha_t_and_deprecated_lr(helpers):
    link = helpers.make_link()
    opt = optimizers.Adam(alpha=0.1, beta1=0.5, beta2=0.75).setup(link)
    with pytest.raises(RuntimeError, match="have not been started"):
        opt.alpha_t  # noqa: B018
    opt.update(link)
    opt.update(link)
    expected = 0.1 * math.sqrt(1 - 0.75**2) / (1 - 0.5**2)
    assert opt.alpha_t == pytest.approx(expected)
    assert link.w.update_rule.alpha_t == pytest.approx(expected)
    with pytest.warns(DeprecationWarning, match="alpha_t"):
        assert opt.lr == pytest.approx(expected)
    with pytest.warns(DeprecationWarning, match="alpha_t"):
        assert link.w.update_rule.lr == pytest.approx(expected)


def test_adabound_follows_alpha_schedule(helpers):
    # The bounds scale with alpha / initial alpha.
    rule = adam.AdamRule(alpha=0.1, adabound=True, final_lr=0.2, gamma=0.5)
    rule.t = 2
    rule.initial_alpha = 0.1
    rule.hyperparam.alpha = 0.05
    lower, upper = rule._bounds(rule.hyperparam)
    assert lower == pytest.approx(0.1 * (1 - 1 / 2))
    assert upper == pytest.approx(0.1 * (1 + 1 / 1))


def test_amsgrad_switched_on_later(helpers):
    link = helpers.make_link(numpy.float64)
    opt = optimizers.Adam().setup(link)
    opt.update(link)
    opt.amsgrad = True
    opt.update(link)
    state = link.w.update_rule.state
    assert (state["vhat"] >= state["v"]).all()


def test_serialize_round_trip(helpers):
    store = helpers.check_serialize_round_trip(lambda: optimizers.Adam(alpha=0.05))
    assert {"w/m", "w/v"} <= set(store)
    store = helpers.check_serialize_round_trip(lambda: optimizers.AMSBound())
    assert "w/vhat" in store


def test_proxies():
    opt = optimizers.Adam()
    for name, value in [
        ("alpha", 0.001),
        ("beta1", 0.9),
        ("beta2", 0.999),
        ("eps", 1e-8),
        ("eta", 1.0),
        ("weight_decay_rate", 0),
        ("final_lr", 0.1),
        ("gamma", 1e-3),
    ]:
        assert getattr(opt, name) == value
    opt.alpha = 0.5
    assert opt.create_update_rule().hyperparam.alpha == 0.5


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"beta1": 1.0}, ValueError, r"beta1 must be in \[0, 1\)"),
        ({"beta2": -0.1}, ValueError, "beta2"),
        ({"eps": -1.0}, ValueError, "eps must be non-negative"),
        ({"alpha": "big"}, TypeError, "alpha must be a real number"),
        ({"adabound": True, "gamma": 0}, ValueError, "gamma must be positive"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        optimizers.Adam(**kwargs)
