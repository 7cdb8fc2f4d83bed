"""The seeds' optimizer, serializer and training-loop examples, run as written.

References read ``000:1397`` = line 1397 of the seed file starting with
``000_``. Links from ``chainer.links`` are replaced by a small linear link
built with Variable operators, and ``F.sum`` by ``Variable.mean`` times the
size (the same gradient direction, scaled).
"""

import itertools
import os

import numpy as np
import pytest

import chainer
from chainer import initializers
from chainer import optimizer_hooks
from chainer import optimizers
from chainer import serializers
from chainer.backends.cuda import to_cpu
from chainer.dataset import concat_examples


class Linear(chainer.Link):
    def __init__(self, in_size, out_size):
        super().__init__()
        self.out_size = out_size
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Normal(0.5))
            if in_size is not None:
                self.W.initialize((out_size, in_size))
            self.b = chainer.Parameter(0, (out_size,))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, x.shape[1]))
        return chainer.as_variable(x) @ self.W.T + self.b


class MyChain(chainer.Chain):
    # 000:1381-1390.

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(4, 3)
            self.l2 = Linear(3, 2)

    def forward(self, x):
        h = self.l1(x)
        return self.l2(h)


def _sum(x):
    return x.mean() * x.size


def _params(model):
    return {name: p.array.copy() for name, p in model.namedparams()}


# ---------------------------------------------------------------------------
# Optimizers (000:1376-1432, 001:330-376)
# ---------------------------------------------------------------------------


def test_setup_returns_the_optimizer_and_sets_target():
    # 000:1397-1398: optimizers.SGD().setup(model).
    model = MyChain()
    optimizer = optimizers.SGD().setup(model)
    assert isinstance(optimizer, optimizers.SGD)
    assert optimizer.target is model
    assert optimizer.t == 0


def test_update_after_manual_backward_with_weight_decay_hook():
    # 000:1402-1419: WeightDecay(0.0005) hook, cleargrads, backward, update().
    model = MyChain()
    optimizer = optimizers.SGD().setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0005))
    x = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
    model.cleargrads()
    loss = _sum(model(chainer.Variable(x)))
    loss.backward()
    before = _params(model)
    grads = {name: p.grad.copy() for name, p in model.namedparams()}
    optimizer.update()
    assert optimizer.t == 1
    for name, p in model.namedparams():
        expected = before[name] - 0.01 * (grads[name] + 0.0005 * before[name])
        np.testing.assert_allclose(p.array, expected, rtol=1e-6, atol=1e-7)


def test_update_with_loss_function_clears_gradients_first():
    # 000:1424-1432: update(lossfun, *args) calls cleargrads itself.
    model = MyChain()
    optimizer = optimizers.SGD(lr=0.1).setup(model)

    def lossfun(arg1, arg2):
        loss = _sum(model(arg1 - arg2))
        return loss

    arg1 = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
    arg2 = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
    reference = model.copy(mode="copy")
    reference.cleargrads()
    _sum(reference(arg1 - arg2)).backward()
    for p in model.params():
        p.grad = np.full_like(p.array, 1e3)
    optimizer.update(lossfun, chainer.Variable(arg1), chainer.Variable(arg2))
    for (name, p), (_, q) in zip(
        sorted(model.namedparams()), sorted(reference.namedparams()), strict=True
    ):
        np.testing.assert_allclose(
            p.array, q.array - 0.1 * q.grad, rtol=1e-5, err_msg=name
        )


def test_optimizer_set_up_before_lazy_parameters_exist():
    # 000:2275-2316: MLP of Linear(None, n) layers is given to the optimizer
    # before any data has been seen; the first update initializes the state.
    class MLP(chainer.Chain):
        def __init__(self, n_units, n_out):
            super().__init__()
            with self.init_scope():
                self.l1 = Linear(None, n_units)
                self.l2 = Linear(None, n_out)

        def forward(self, x):
            return self.l2(self.l1(x))

    model = MLP(5, 2)
    optimizer = optimizers.MomentumSGD(lr=0.1, momentum=0.9)
    optimizer.setup(model)
    assert model.l1.W.array is None
    x = np.random.randn(3, 7).astype(np.float32)
    model.cleargrads()
    _sum(model(x)).backward()
    grad = model.l1.W.grad.copy()
    before = model.l1.W.array.copy()
    optimizer.update()
    assert model.l1.W.shape == (5, 7)
    np.testing.assert_allclose(model.l1.W.array, before - 0.1 * grad, rtol=1e-5)
    assert model.l1.W.update_rule.state["v"].shape == (5, 7)


def test_update_with_a_non_callable_loss_function_is_refused():
    # Bad input for Optimizer.update (001:2321-2337): lossfun is callable.
    optimizer = optimizers.SGD().setup(MyChain())
    with pytest.raises(TypeError):
        optimizer.update(np.zeros(1, dtype=np.float32))


def test_v1_optimizer_spellings_are_deprecated_but_work():
    # 001:336-346: use_cleargrads() and chainer.optimizer.WeightDecay.
    model = MyChain()
    optimizer = optimizers.SGD()
    with pytest.warns(DeprecationWarning):
        optimizer.use_cleargrads()
    optimizer.setup(model)
    with pytest.warns(DeprecationWarning):
        hook = chainer.optimizer.WeightDecay(0.0005)
    optimizer.add_hook(hook)
    model.cleargrads()
    _sum(model(np.ones((1, 4), dtype=np.float32))).backward()
    optimizer.update()
    assert optimizer.t == 1


def test_user_hook_functions_run_before_the_update_in_order():
    # 000:1403, 001:347: a hook is a function or callable taking the optimizer.
    model = MyChain()
    optimizer = optimizers.SGD().setup(model)
    calls = []

    def first(opt):
        calls.append(("first", opt.t))

    class Second:
        def __call__(self, opt):
            calls.append(("second", opt.t))

    optimizer.add_hook(first)
    optimizer.add_hook(Second(), name="second")
    model.cleargrads()
    _sum(model(np.ones((1, 4), dtype=np.float32))).backward()
    optimizer.update()
    assert calls == [("first", 0), ("second", 0)]
    optimizer.remove_hook("second")
    optimizer.update()
    assert calls[-1] == ("first", 1)
    assert len(calls) == 3


def _one_param_link(values):
    link = chainer.Link()
    with link.init_scope():
        link.p = chainer.Parameter(np.array(values, dtype=np.float32))
    return link


def test_gradient_clipping_hook():
    # 000:4135-4143, 001:2415-2420: grads rescaled to global L2 norm <= 1.
    link = _one_param_link([3.0, 4.0])
    optimizer = optimizers.SGD(lr=1.0).setup(link)
    optimizer.add_hook(optimizer_hooks.GradientClipping(1.0))
    link.p.grad = np.array([3.0, 4.0], dtype=np.float32)
    optimizer.update()
    np.testing.assert_allclose(link.p.array, [2.4, 3.2], rtol=1e-6)


def test_lasso_and_named_weight_decay_hooks():
    # 001:2401-2413, 000:3420-3421: add_hook(WeightDecay(...), 'hook_dec').
    link = _one_param_link([3.0, -4.0])
    optimizer = optimizers.SGD(lr=1.0).setup(link)
    optimizer.add_hook(optimizer_hooks.Lasso(0.5))
    optimizer.add_hook(optimizer_hooks.WeightDecay(0.1), "hook_dec")
    link.p.grad = np.zeros(2, dtype=np.float32)
    optimizer.update()
    np.testing.assert_allclose(link.p.array, [2.2, -3.1], rtol=1e-6)


def test_hooks_reject_duplicate_names():
    # Bad input for Optimizer.add_hook (000:3420): names are unique.
    optimizer = optimizers.SGD().setup(MyChain())
    optimizer.add_hook(optimizer_hooks.WeightDecay(0.1), "hook_dec")
    with pytest.raises(KeyError):
        optimizer.add_hook(optimizer_hooks.WeightDecay(0.2), "hook_dec")


def test_gradient_noise_hook_default_schedule():
    # 001:2422-2431: noise N(0, eta / (1 + t) ** 0.55) added to the gradient.
    link = _one_param_link(np.zeros(20000))
    optimizer = optimizers.SGD(lr=1.0).setup(link)
    optimizer.add_hook(optimizer_hooks.GradientNoise(1.0))
    for t in range(2):
        before = link.p.array.copy()
        link.p.grad = np.zeros(20000, dtype=np.float32)
        optimizer.update()
        step = link.p.array - before
        assert step.std() == pytest.approx(np.sqrt(1.0 / (1 + t) ** 0.55), rel=0.05)
        assert abs(step.mean()) < 0.05


def test_update_with_the_model_as_loss_function():
    # 000:1766-1776: optimizer.update(model, x, t) with a loss-returning chain.
    class Regressor(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.predictor = Linear(4, 2)

        def forward(self, x, t):
            return _squared_error(self.predictor(x), t)

    model = Regressor()
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    x = chainer.Variable(np.random.randn(8, 4).astype(np.float32))
    t = chainer.Variable(np.random.randn(8, 2).astype(np.float32))
    first = float(model(x, t).array)
    for _ in range(5):
        optimizer.update(model, x, t)
    assert optimizer.t == 5
    assert float(model(x, t).array) < first


def test_learning_rate_is_a_mutable_attribute():
    # 000:1483-1494: lr_drop multiplies the optimizer's lr by 0.1.
    link = _one_param_link([1.0])
    optimizer = optimizers.SGD(lr=1.0).setup(link)
    optimizer.lr *= 0.1
    assert optimizer.lr == pytest.approx(0.1)
    link.p.grad = np.ones(1, dtype=np.float32)
    optimizer.update()
    np.testing.assert_allclose(link.p.array, [0.9], rtol=1e-6)


def test_momentum_sgd_and_epoch_counter():
    # 000:2730-2735 MomentumSGD(lr=0.01, momentum=0.9); 001:2290 new_epoch().
    link = _one_param_link([1.0])
    optimizer = optimizers.MomentumSGD(lr=0.01, momentum=0.9)
    optimizer.setup(link)
    for _ in range(2):
        link.p.grad = np.ones(1, dtype=np.float32)
        optimizer.update()
    # v1 = -0.01, v2 = 0.9 * v1 - 0.01 = -0.019.
    np.testing.assert_allclose(link.p.array, [1.0 - 0.01 - 0.019], rtol=1e-6)
    assert optimizer.epoch == 0
    optimizer.new_epoch()
    assert optimizer.epoch == 1


# ---------------------------------------------------------------------------
# Recurrent loops (000:3665-3749, 001:599-704, 004:270-333)
# ---------------------------------------------------------------------------


class TinyRNN(chainer.Chain):
    # Stands in for RNN(embed, LSTM, Linear) of 000:3634-3650: a stateful
    # chain whose state is a Variable carried across calls.

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.mid = Linear(3, 3)
            self.out = Linear(3, 3)
        self.h = None

    def reset_state(self):
        self.h = None

    def forward(self, cur_word):
        x = chainer.as_variable(cur_word)
        self.h = self.mid(x) if self.h is None else self.mid(x) + self.h
        return self.out(self.h)


def _squared_error(y, t):
    d = y - t
    return (d * d).mean()


def _word_list(n):
    return [np.random.randn(1, 3).astype(np.float32) for _ in range(n)]


def test_rnn_loss_over_a_sequence_and_update_with_compute_loss():
    # 000:3665-3682: loss = 0; loss += model(cur, next); update(compute_loss, xs).
    rnn = TinyRNN()
    optimizer = optimizers.SGD().setup(rnn)

    def compute_loss(x_list):
        loss = 0
        for cur_word, next_word in itertools.pairwise(x_list):
            loss += _squared_error(rnn(cur_word), next_word)
        return loss

    x_list = _word_list(5)
    rnn.reset_state()
    rnn.cleargrads()
    loss = compute_loss(x_list)
    loss.backward()
    manual_grad = rnn.mid.W.grad.copy()

    rnn.reset_state()
    before = rnn.mid.W.array.copy()
    optimizer.update(compute_loss, x_list)
    np.testing.assert_allclose(rnn.mid.W.array, before - 0.01 * manual_grad, rtol=1e-5)


def test_truncated_backprop_with_unchain_backward():
    # 000:3690-3712, 004:316-333: backprop every 3 steps, then unchain.
    rnn = TinyRNN()
    optimizer = optimizers.SGD().setup(rnn)
    x_list = _word_list(8)
    loss = 0
    seqlen = len(x_list[1:])
    rnn.reset_state()
    states = []
    pairs = itertools.pairwise(x_list)
    for count, (cur_word, next_word) in enumerate(pairs, 1):
        loss += _squared_error(rnn(cur_word), next_word)
        states.append(rnn.h)
        if count % 3 == 0 or count == seqlen:
            rnn.cleargrads()
            loss.backward()
            loss.unchain_backward()
            optimizer.update()
            # The history behind the accumulated loss is cut off, the state
            # itself is kept (000:3708-3712).
            assert loss.creator is None
            assert states[-1].creator is None
            assert rnn.h is states[-1]
    assert optimizer.t == 3


def test_no_backprop_mode_for_a_fixed_feature_extractor():
    # 000:3735-3749: only predictor_func records history.
    fixed_func = Linear(3, 4)
    predictor_func = Linear(4, 1)
    fixed_func.cleargrads()
    predictor_func.cleargrads()
    x_data = np.random.randn(2, 3).astype(np.float32)
    with chainer.no_backprop_mode():
        x = chainer.Variable(x_data)
        feat = fixed_func(x)
    assert feat.creator is None
    y = predictor_func(feat)
    y.grad = np.ones((2, 1), dtype=np.float32)
    y.backward()
    assert predictor_func.W.grad is not None
    assert fixed_func.W.grad is None


def test_no_backprop_mode_evaluation_records_no_graph():
    # 000:3722-3733: loss.backward() is impossible without history.
    rnn = TinyRNN()
    rnn.cleargrads()
    with chainer.no_backprop_mode():
        x_list = [chainer.Variable(w) for w in _word_list(4)]
        loss = 0
        for cur_word, next_word in itertools.pairwise(x_list):
            loss += _squared_error(rnn(cur_word), next_word)
    assert loss.creator is None
    loss.backward()
    assert rnn.mid.W.grad is None


# ---------------------------------------------------------------------------
# Manual MNIST-style loop (000:2740-2800) on a synthetic dataset
# ---------------------------------------------------------------------------


def test_manual_training_loop_with_concat_examples(tmp_path):
    # 000:2740-2800 (MNIST replaced by a synthetic regression set).
    rng = np.random.RandomState(0)
    xs = rng.randn(64, 4).astype(np.float32)
    w_true = rng.randn(4, 2).astype(np.float32)
    train = [(x, x @ w_true) for x in xs]
    model = MyChain()
    gpu_id = -1
    optimizer = optimizers.MomentumSGD(lr=0.01, momentum=0.9)
    optimizer.setup(model)

    def epoch_loss():
        image, target = concat_examples(train, gpu_id)
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            return float(to_cpu(_squared_error(model(image), target).array))

    first = epoch_loss()
    for _ in range(10):
        order = rng.permutation(len(train))
        for i in range(0, len(train), 16):
            batch = [train[j] for j in order[i : i + 16]]
            image_train, target_train = concat_examples(batch, gpu_id)
            loss = _squared_error(model(image_train), target_train)
            model.cleargrads()
            loss.backward()
            optimizer.update()
    assert epoch_loss() < first

    # 000:2811-2830: save, then load into a fresh instance and predict.
    path = os.path.join(tmp_path, "my_mnist.model")
    serializers.save_npz(path, model)
    restored = MyChain()
    serializers.load_npz(path, restored)
    x, _ = train[0]
    y_saved = model(x[None, ...])
    y_restored = restored(x[None, ...])
    np.testing.assert_array_equal(y_restored.array, y_saved.array)
