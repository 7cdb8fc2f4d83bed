import copy
import pickle

import numpy
import pytest

import chainer
from chainer import optimizer
from chainer import optimizer_hooks
from chainer import optimizers
from chainer import serializer


class _Model(chainer.Link):
    def __init__(self, dtype=numpy.float32):
        super().__init__()
        with self.init_scope():
            self.a = chainer.Parameter(numpy.array([1.0, 2.0], dtype=dtype))
            self.b = chainer.Parameter(numpy.array([[3.0]], dtype=dtype))
            self.lazy = chainer.Parameter()

    def forward(self):
        return (self.a * self.a).mean() + (self.b * self.b).mean()


class _Rule(optimizer.UpdateRule):
    # w <- w - lr * g, with a counter state.
    def init_state(self, param):
        self.state["count"] = numpy.zeros((), dtype=numpy.int64)

    def update_core_cpu(self, param):
        # As in Chainer 7, update_core also sees parameters without a
        # gradient (e.g. uninitialized ones).
        if param.grad is None:
            return
        self.state["count"] += 1
        param.array[...] -= self.hyperparam.lr * param.grad


class _Optimizer(optimizer.GradientMethod):
    def __init__(self, lr=0.1):
        super().__init__()
        self.hyperparam.lr = lr

    lr = optimizer.HyperparameterProxy("lr")

    def create_update_rule(self):
        return _Rule(self.hyperparam)


class _Save(serializer.Serializer):
    def __init__(self, store=None, path=""):
        self.store = {} if store is None else store
        self.path = path

    def __getitem__(self, key):
        return _Save(self.store, self.path + key + "/")

    def __call__(self, key, value):
        self.store[self.path + key] = copy.copy(value)
        return value


class _Load(serializer.Deserializer):
    def __init__(self, store, path="", strict=True):
        self.store = store
        self.path = path
        self.strict = strict

    def __getitem__(self, key):
        return _Load(self.store, self.path + key + "/", self.strict)

    def __call__(self, key, value):
        full = self.path + key
        if full not in self.store:
            if self.strict:
                raise KeyError(full)
            return value
        stored = self.store[full]
        if value is None:
            return numpy.array(stored)
        if isinstance(value, numpy.ndarray):
            value[...] = stored
            return value
        return type(value)(stored)


def _set_grads(model, value=1.0):
    for p in model.params(include_uninit=False):
        p.grad = numpy.full_like(p.array, value)


# -- Hyperparameter ---------------------------------------------------------


def test_hyperparameter_parent_chain():
    root = optimizer.Hyperparameter()
    root.lr = 0.1
    root.momentum = 0.9
    child = optimizer.Hyperparameter(root)
    child.lr = 0.5
    assert child.parent is root
    assert child.lr == 0.5
    assert child.momentum == 0.9
    root.momentum = 0.5
    assert child.momentum == 0.5
    assert child.get_dict() == {"lr": 0.5, "momentum": 0.5}
    assert root.get_dict() == {"lr": 0.1, "momentum": 0.5}
    assert repr(child) == "Hyperparameter(lr=0.5, momentum=0.5)"


def test_hyperparameter_missing_entry():
    hp = optimizer.Hyperparameter(optimizer.Hyperparameter())
    with pytest.raises(AttributeError, match="'lr' is not set"):
        hp.lr  # noqa: B018


def test_hyperparameter_copy_and_pickle():
    root = optimizer.Hyperparameter()
    root.lr = 0.1
    child = optimizer.Hyperparameter(root)
    for clone in (copy.deepcopy(child), pickle.loads(pickle.dumps(child))):
        assert clone.lr == 0.1
        assert clone.parent is not None


def test_hyperparameter_proxy():
    opt = _Optimizer(lr=0.3)
    assert opt.lr == 0.3
    opt.lr = 0.4
    assert opt.hyperparam.lr == 0.4
    assert isinstance(_Optimizer.lr, optimizer.HyperparameterProxy)
    assert "hyperparam.lr" in _Optimizer.lr.__doc__


# -- UpdateRule -------------------------------------------------------------


def _param(values=(1.0, 2.0), grad=(0.5, 0.5), dtype=numpy.float32):
    p = chainer.Parameter(numpy.array(values, dtype=dtype))
    if grad is not None:
        p.grad = numpy.array(grad, dtype=dtype)
    return p


def _rule(lr=0.1, **kwargs):
    hp = optimizer.Hyperparameter()
    hp.lr = lr
    return _Rule(hp, **kwargs)


def test_update_rule_update():
    rule = _rule()
    p = _param()
    assert rule.state is None
    rule.update(p)
    numpy.testing.assert_allclose(p.array, [0.95, 1.95])
    assert rule.t == 1
    assert rule.state["count"] == 1


def test_update_rule_without_grad_still_counts_and_calls_core():
    # Chainer 7: hooks and update_core run for a parameter without a
    # gradient; the built-in rules leave it unchanged.
    calls = []

    class Recording(optimizer.UpdateRule):
        def update_core_cpu(self, param):
            calls.append(("core", param.grad))

    rule = Recording()
    rule.add_hook(lambda r, param: calls.append(("hook", param.grad)), name="h")
    p = _param(grad=None)
    rule.update(p)
    assert rule.t == 1
    assert rule.state == {}
    assert calls == [("hook", None), ("core", None)]
    sgd = optimizers.SGD(lr=1.0).create_update_rule()
    sgd.update(p)
    numpy.testing.assert_array_equal(p.array, [1.0, 2.0])


def test_update_rule_disabled_does_nothing():
    rule = _rule()
    rule.enabled = False
    p = _param()
    rule.update(p)
    assert rule.t == 0
    assert rule.state is None
    numpy.testing.assert_array_equal(p.array, [1.0, 2.0])


def test_update_rule_hooks_order_and_timing():
    rule = _rule()
    calls = []

    def pre(r, param):
        calls.append(("pre", float(param.array[0])))

    class Post:
        timing = "post"

        def __call__(self, r, param):
            calls.append(("post", float(param.array[0])))

    rule.add_hook(pre)
    rule.add_hook(Post(), name="post_hook")
    rule.update(_param())
    assert calls == [("pre", 1.0), ("post", pytest.approx(0.95))]
    with pytest.raises(KeyError, match="already exists"):
        rule.add_hook(pre)
    rule.remove_hook("pre")
    rule.remove_hook("post_hook")
    with pytest.raises(KeyError, match="no hook named"):
        rule.remove_hook("pre")


def test_update_rule_bad_hooks():
    rule = _rule()
    with pytest.raises(TypeError, match="not callable"):
        rule.add_hook(3)
    with pytest.raises(ValueError, match="timing must be one of"):
        rule.add_hook(lambda r, p: None, name="x", timing="later")


def test_update_rule_base_update_core_cpu():
    rule = optimizer.UpdateRule()
    with pytest.raises(TypeError, match="does not implement update_core_cpu"):
        rule.update(_param())
    with pytest.raises(RuntimeError, match="ChainerX"):
        rule.update_core_chainerx(_param())


def test_update_rule_divides_loss_scale():
    p = _param(grad=(8.0, 8.0))
    p._loss_scale = 16.0
    _rule(lr=1.0).update(p)
    numpy.testing.assert_allclose(p.array, [0.5, 1.5])
    numpy.testing.assert_allclose(p.grad, [0.5, 0.5])


def test_update_rule_fp32_update():
    p = _param(values=(1.0, 1.0), grad=(1.0, 1.0), dtype=numpy.float16)
    p._loss_scale = 4.0
    rule = _rule(lr=1e-4)
    rule.use_fp32_update()
    array = p.array
    for _ in range(10):
        p.grad = numpy.full(2, 4.0, dtype=numpy.float16)
        rule.update(p)
    # float16 steps of 1e-4 around 1.0 would round away; the master keeps them.
    assert rule._fp32_param.array.dtype == numpy.float32
    numpy.testing.assert_allclose(rule._fp32_param.array, 0.999, rtol=1e-6)
    assert p.array is array
    assert p.array.dtype == numpy.float16
    numpy.testing.assert_allclose(p.array, 0.999, rtol=1e-3)


def test_update_rule_serialize_round_trip():
    rule = _rule()
    p = _param()
    rule.update(p)
    rule.update(p)
    saver = _Save()
    rule.serialize(saver)
    assert saver.store == {"t": 2, "count": 2}

    fresh = _rule()
    fresh.serialize(_Load(saver.store))
    assert fresh.t == 2
    assert fresh.state["count"] == 2
    fresh.update(_param())
    assert fresh.state["count"] == 3

    existing = _rule()
    existing.update(_param())
    existing.serialize(_Load(saver.store))
    assert existing.t == 2
    assert existing.state["count"] == 2


def test_update_rule_deserialize_without_state():
    fresh = _rule()
    fresh.serialize(_Load({"t": 5}, strict=False))
    assert fresh.t == 5
    assert fresh.state is None
    with pytest.raises(KeyError):
        _rule().serialize(_Load({"t": 5}))
    disabled = _rule()
    disabled.enabled = False
    disabled.serialize(_Load({"t": 5}))
    assert disabled.state is None


def test_update_rule_deserialize_fills_state_seen_by_init_state():
    # init_state may reach the rule's state through the rule itself (here a
    # closure over the original rule, not the probing copy): the loaded
    # state is the dict it filled.
    rule = optimizer.UpdateRule()

    def init_state(param):
        rule.state["a"] = 0
        rule.state["b"] = numpy.zeros(3, dtype=numpy.float32)

    rule.init_state = init_state
    rule.serialize(_Load({"t": 3, "a": 7, "b": [1.0, 2.0, 3.0]}))
    assert rule.t == 3
    assert rule.state["a"] == 7
    numpy.testing.assert_array_equal(rule.state["b"], [1.0, 2.0, 3.0])

    strict = optimizer.UpdateRule()
    strict.init_state = lambda param: strict.state.update(a=0)
    with pytest.raises(KeyError):
        strict.serialize(_Load({"t": 3}))
    assert strict.state is None


def test_update_rule_hook_with_foreign_timing_attribute_runs_before():
    # A non-string ``timing`` attribute (a mock, a timer object...) is not a
    # timing request: the hook runs before the update like a plain function.
    class Hook:
        timing = object()

        def __init__(self):
            self.seen = []

        def __call__(self, rule, param):
            self.seen.append(float(param.array[0]))

    hook = Hook()
    rule = _rule(lr=1.0)
    rule.add_hook(hook, name="hook")
    rule.update(_param(values=(1.0, 2.0), grad=(1.0, 1.0)))
    assert hook.seen == [1.0]
    with pytest.raises(ValueError, match="invalid timing"):
        bad = Hook()
        bad.timing = "later"
        rule.add_hook(bad, name="bad")


def test_update_rule_uninitialized_parameter_goes_to_update_core_cpu():
    calls = []

    class Recording(optimizer.UpdateRule):
        def update_core_cpu(self, param):
            calls.append("cpu")

        def update_core_gpu(self, param):
            calls.append("gpu")

    rule = Recording()
    rule.update(chainer.Parameter())
    assert calls == ["cpu"]
    assert rule.state is None


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_update_rule_fp32_update_uninitialized_parameter(dtype):
    def initializer(array):
        raise AssertionError("never called")

    initializer.dtype = dtype
    param = chainer.Parameter(initializer)
    seen = []
    rule = optimizer.UpdateRule()
    rule.update_core = lambda p: seen.append((p, p.dtype))
    rule.use_fp32_update()
    rule.update(param)
    ((got, got_dtype),) = seen
    if dtype == numpy.float16:
        assert got is not param
        assert got_dtype == numpy.float32
    else:
        assert got is param
        assert got_dtype == dtype
    assert param.array is None
    assert param.dtype == dtype


def test_gradient_method_update_calls_rule_for_every_parameter():
    # Uninitialized, with and without a gradient: update_core_cpu runs for
    # each of them.
    calls = []

    class Recording(optimizer.UpdateRule):
        def update_core_cpu(self, param):
            calls.append(param.name)

    class Opt(optimizer.GradientMethod):
        def create_update_rule(self):
            return Recording()

    link = chainer.Link()
    with link.init_scope():
        link.p1 = chainer.Parameter()
        link.p2 = chainer.Parameter(numpy.array([3.0, 2.0], numpy.float32))
        link.p3 = chainer.Parameter(numpy.array([5.0, 7.0], numpy.float32))
    link.p2.grad = numpy.array([1.0, 1.0], numpy.float32)
    Opt().setup(link).update()
    assert sorted(calls) == ["p1", "p2", "p3"]


# -- Optimizer / GradientMethod ---------------------------------------------


def test_setup_creates_rules():
    model = _Model()
    opt = _Optimizer()
    assert opt.setup(model) is opt
    assert opt.target is model
    rules = [p.update_rule for p in model.params()]
    assert all(isinstance(r, _Rule) for r in rules)
    assert len({id(r) for r in rules}) == 3
    assert rules[0].hyperparam.parent is opt.hyperparam


def test_setup_rejects_non_link():
    with pytest.raises(TypeError, match="optimization target must be a link"):
        _Optimizer().setup(object())


def test_update_with_computed_grads():
    model = _Model()
    opt = _Optimizer(lr=0.5).setup(model)
    _set_grads(model, 1.0)
    opt.update()
    numpy.testing.assert_allclose(model.a.array, [0.5, 1.5])
    numpy.testing.assert_allclose(model.b.array, [[2.5]])
    assert opt.t == 1
    # Chainer 7 counts the step for an uninitialized parameter too.
    assert model.lazy.update_rule.t == 1
    assert model.lazy.update_rule.state is None


def test_update_with_lossfun():
    model = _Model()
    opt = _Optimizer(lr=1.0).setup(model)
    model.a.grad = numpy.full(2, 100.0, dtype=numpy.float32)  # cleared by update
    opt.update(model)
    # d/da mean(a^2) = a, d/db mean(b^2) = 2b
    numpy.testing.assert_allclose(model.a.array, [0.0, 0.0])
    numpy.testing.assert_allclose(model.b.array, [[-3.0]])


def test_update_with_lossfun_arguments():
    model = _Model()
    opt = _Optimizer(lr=1.0).setup(model)
    seen = []

    def lossfun(x, scale=1.0):
        seen.append((x, scale))
        return model() * scale

    opt.update(lossfun, 1, scale=0.5)
    assert seen == [(1, 0.5)]
    numpy.testing.assert_allclose(model.a.array, [0.5, 1.0])


def test_update_before_setup():
    with pytest.raises(RuntimeError, match="call `setup` method before `update`"):
        _Optimizer().update()


def test_reallocate_cleared_grads():
    model = _Model()
    opt = _Optimizer().setup(model)
    model.cleargrads()
    opt.reallocate_cleared_grads()
    numpy.testing.assert_array_equal(model.a.grad, [0.0, 0.0])
    assert model.a.grad.dtype == numpy.float32
    assert model.lazy.grad is None


def test_gradients_from_one_addition_are_separate_arrays():
    # Backprop through ``a + c`` must not hand both parameters one gradient
    # array: the in-place weight decay of one would leak into the other.
    model = _Model()
    with model.init_scope():
        model.c = chainer.Parameter(numpy.array([5.0, 5.0], dtype=numpy.float32))
    opt = optimizers.SGD(lr=1.0).setup(model)
    opt.add_hook(optimizer_hooks.WeightDecay(1.0))
    y = model.a + model.c
    y.grad = numpy.ones(2, dtype=numpy.float32)
    y.backward()
    assert model.a.grad is not model.c.grad
    model.b.grad = numpy.zeros((1, 1), dtype=numpy.float32)
    a0, c0 = model.a.array.copy(), model.c.array.copy()
    opt.update()
    # each parameter moves by 1 + rate * itself, not by the other's decay too
    numpy.testing.assert_allclose(model.a.array, a0 - (1 + a0))
    numpy.testing.assert_allclose(model.c.array, c0 - (1 + c0))


def test_hooks_pre_post_and_each_param():
    model = _Model()
    opt = _Optimizer().setup(model)
    calls = []

    def pre_hook(o):
        calls.append(("pre", o.t))

    def post_hook(o):
        calls.append(("post", o.t))

    class EachParam:
        call_for_each_param = True
        timing = "pre"

        def __call__(self, rule, param):
            calls.append(("each", rule is param.update_rule))

    opt.add_hook(pre_hook)
    opt.add_hook(post_hook, timing="post")
    opt.add_hook(EachParam(), name="each")
    _set_grads(model)
    opt.update()
    assert calls == [("pre", 0)] + [("each", True)] * 3 + [("post", 1)]
    with pytest.raises(KeyError, match="already exists"):
        opt.add_hook(pre_hook)
    opt.remove_hook("pre_hook")
    opt.remove_hook("post_hook")
    opt.remove_hook("each")
    with pytest.raises(KeyError):
        opt.remove_hook("each")


def test_hook_errors():
    opt = _Optimizer()
    with pytest.raises(RuntimeError, match="before `add_hook`"):
        opt.add_hook(lambda o: None)
    opt.setup(_Model())
    with pytest.raises(TypeError, match="not callable"):
        opt.add_hook("hook")
    with pytest.raises(ValueError, match="timing"):
        opt.add_hook(lambda o: None, name="x", timing="mid")
    with pytest.raises(ValueError, match="'pre' or 'post'"):
        opt.call_hooks("mid")


def test_setup_resets_state():
    model = _Model()
    opt = _Optimizer().setup(model)
    opt.add_hook(lambda o: None, name="h")
    _set_grads(model)
    opt.update()
    opt.new_epoch()
    opt.setup(model)
    assert (opt.t, opt.epoch) == (0, 0)
    opt.add_hook(lambda o: None, name="h")


def test_new_epoch():
    opt = _Optimizer().setup(_Model())
    opt.new_epoch()
    assert opt.epoch == 1
    with pytest.raises(RuntimeError, match="auto=True"):
        opt.new_epoch(auto=True)
    opt.use_auto_new_epoch = True
    opt.new_epoch(auto=True)
    assert opt.epoch == 2
    with pytest.raises(RuntimeError, match="auto=False"):
        opt.new_epoch()


def test_serialize_round_trip():
    model = _Model()
    opt = _Optimizer().setup(model)
    _set_grads(model)
    opt.update()
    opt.update()
    opt.new_epoch()
    saver = _Save()
    opt.serialize(saver)
    assert saver.store["t"] == 2
    assert saver.store["epoch"] == 1
    assert saver.store["a/t"] == 2
    assert saver.store["b/count"] == 2
    assert saver.store["lazy/t"] == 2
    assert "lazy/count" not in saver.store

    model2 = _Model()
    opt2 = _Optimizer().setup(model2)
    opt2.serialize(_Load(saver.store, strict=False))
    assert (opt2.t, opt2.epoch) == (2, 1)
    assert model2.a.update_rule.t == 2
    assert model2.a.update_rule.state["count"] == 2
    assert model2.lazy.update_rule.state is None


def test_serialize_before_setup():
    with pytest.raises(RuntimeError, match="before `serialize`"):
        _Optimizer().serialize(_Save())


def test_use_cleargrads_is_deprecated():
    model = _Model()
    opt = _Optimizer(lr=1.0).setup(model)
    with pytest.warns(DeprecationWarning, match="use_cleargrads is deprecated"):
        opt.use_cleargrads(False)
    with pytest.warns(DeprecationWarning, match="zerograds"):
        opt.update(model)
    numpy.testing.assert_allclose(model.a.array, [0.0, 0.0])


def test_use_fp32_update():
    model = _Model(numpy.float16)
    opt = _Optimizer(lr=1e-4).setup(model)
    opt.use_fp32_update()
    assert all(p.update_rule._use_fp32_update for p in model.params())
    for _ in range(10):
        _set_grads(model, 1.0)
        opt.update()
    numpy.testing.assert_allclose(model.a.array, [0.999, 1.999], rtol=1e-3)
    opt2 = _Optimizer()
    opt2.use_fp32_update()
    opt2.setup(_Model(numpy.float16))
    assert all(p.update_rule._use_fp32_update for p in opt2.target.params())


def test_base_class_errors():
    with pytest.raises(TypeError, match="does not implement update"):
        optimizer.Optimizer().update()
    with pytest.raises(TypeError, match="create_update_rule"):
        optimizer.GradientMethod().setup(_Model())


# -- loss scaling -----------------------------------------------------------


def test_static_loss_scaling():
    model = _Model()
    opt = _Optimizer(lr=1.0).setup(model)
    opt.loss_scaling(scale=128.0)
    opt.update(model)
    numpy.testing.assert_allclose(model.a.array, [0.0, 0.0], atol=1e-6)
    numpy.testing.assert_allclose(model.b.array, [[-3.0]])
    opt.set_loss_scale(None)
    assert opt._loss_scale is None


def test_loss_scale_with_weight_decay_hook():
    # The hook sees the scaled gradient and compensates for the scale.
    model = _Model()
    opt = _Optimizer(lr=1.0).setup(model)
    opt.add_hook(optimizer_hooks.WeightDecay(0.5))
    opt.set_loss_scale(64.0)
    opt.update(model)
    numpy.testing.assert_allclose(model.a.array, [-0.5, -1.0], rtol=1e-6)


def test_dynamic_loss_scaling():
    model = _Model()
    opt = _Optimizer(lr=0.0).setup(model)
    opt.loss_scaling(interval=2)
    assert opt._loss_scale == 1.0
    for _ in range(4):
        opt.update(model)
    assert opt._loss_scale == 4.0
    assert opt.t == 4

    def bad_loss():
        return model() * numpy.float32(numpy.inf)

    a_before = model.a.array.copy()
    opt.lr = 1.0
    opt.update(bad_loss)
    assert not opt.is_safe_to_update()
    assert opt._loss_scale == 2.0
    assert opt.t == 4
    numpy.testing.assert_array_equal(model.a.array, a_before)
    opt.update(model)
    assert opt.is_safe_to_update()
    assert opt.t == 5


def test_check_nan_in_grads_only_when_dynamic():
    model = _Model()
    opt = _Optimizer().setup(model)
    _set_grads(model, numpy.nan)
    opt.check_nan_in_grads()
    assert opt.is_safe_to_update()
    opt.loss_scaling()
    opt.check_nan_in_grads()
    assert not opt.is_safe_to_update()
    opt.update_loss_scale()
    assert opt._loss_scale == 0.5


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"interval": 0}, ValueError),
        ({"interval": 1.5}, TypeError),
        ({"scale": -1.0}, ValueError),
        ({"scale": "1"}, TypeError),
    ],
)
def test_loss_scaling_bad_arguments(kwargs, error):
    opt = _Optimizer().setup(_Model())
    with pytest.raises(error):
        opt.loss_scaling(**kwargs)


# -- deprecated hook aliases ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("GradientClipping", (1.0,)),
        ("GradientHardClipping", (-1.0, 1.0)),
        ("GradientNoise", (0.01,)),
        ("Lasso", (0.1,)),
        ("WeightDecay", (0.1,)),
    ],
)
def test_deprecated_hook_aliases(name, args):
    with pytest.warns(DeprecationWarning) as record:
        hook = getattr(optimizer, name)(*args)
    assert str(record[0].message) == optimizer.make_deprecation_message(name)
    assert isinstance(hook, getattr(optimizer_hooks, name))


def test_make_deprecation_message():
    msg = optimizer.make_deprecation_message("WeightDecay")
    assert "chainer.optimizer.WeightDecay is deprecated" in msg
    assert "chainer.optimizer_hooks.WeightDecay" in msg


def test_top_level_names():
    assert chainer.Optimizer is optimizer.Optimizer
    assert chainer.GradientMethod is optimizer.GradientMethod
    assert chainer.UpdateRule is optimizer.UpdateRule
