"""The seeds' serializer, reporter, configuration and debug-mode examples,
run as written.

References read ``000:2180`` = line 2180 of the seed file starting with
``000_``.
"""

import os

import numpy as np
import pytest

import chainer
from chainer import initializers
from chainer import optimizers
from chainer import serializers


class Model(chainer.Link):
    """A link with one parameter and two persistent values."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Normal(1.0), (2, 3))
        self.add_persistent("count", 0)
        self.add_persistent("mean", np.zeros(3, dtype=np.float32))

    def forward(self, x):
        return chainer.as_variable(x) @ self.W.T


# ---------------------------------------------------------------------------
# Serializers (000:2124-2164, 001:398-436)
# ---------------------------------------------------------------------------


def test_save_and_load_npz_of_a_link(tmp_path):
    # 000:2132-2147: parameters and persistent values only.
    model = Model()
    model.count = 5
    model.mean[...] = 1.5
    model.note = "not saved"
    path = os.path.join(tmp_path, "my.model")
    serializers.save_npz(path, model)

    loaded = Model()
    serializers.load_npz(path, loaded)
    np.testing.assert_array_equal(loaded.W.array, model.W.array)
    assert loaded.count == 5
    np.testing.assert_array_equal(loaded.mean, np.full(3, 1.5, dtype=np.float32))
    assert not hasattr(loaded, "note")
    assert sorted(np.load(path).files) == ["W", "count", "mean"]


def test_npz_keys_follow_the_link_hierarchy(tmp_path):
    # 001:2160-2166: hierarchy paths (UNIX-like, joined by slashes) name
    # what is saved.
    model = chainer.Chain()
    with model.init_scope():
        model.l1 = Model()
        model.stack = chainer.ChainList(Model())
    path = os.path.join(tmp_path, "nested.npz")
    serializers.save_npz(path, model)
    assert sorted(np.load(path).files) == [
        "l1/W",
        "l1/count",
        "l1/mean",
        "stack/0/W",
        "stack/0/count",
        "stack/0/mean",
    ]


def test_load_npz_into_a_differently_built_link_fails(tmp_path):
    # 001:2040: the loading object must be reconstructed identically.
    path = os.path.join(tmp_path, "my.model")
    serializers.save_npz(path, Model())
    other = chainer.Link()
    with other.init_scope():
        other.V = chainer.Parameter(np.zeros(2, dtype=np.float32))
    with pytest.raises(KeyError):
        serializers.load_npz(path, other)


def test_save_and_load_npz_of_an_optimizer(tmp_path):
    # 000:2148-2157: only the optimizer state (t, epoch, momentum vectors).
    model = Model()
    optimizer = optimizers.MomentumSGD(lr=0.01, momentum=0.9).setup(model)
    model.W.grad = np.ones((2, 3), dtype=np.float32)
    optimizer.update()
    optimizer.new_epoch()
    path = os.path.join(tmp_path, "my.state")
    serializers.save_npz(path, optimizer)
    assert "W" not in np.load(path).files

    fresh = optimizers.MomentumSGD(lr=0.01, momentum=0.9).setup(Model())
    serializers.load_npz(path, fresh)
    assert fresh.t == 1
    assert fresh.epoch == 1
    np.testing.assert_allclose(
        fresh.target.W.update_rule.state["v"], np.full((2, 3), -0.01), rtol=1e-6
    )


def test_save_and_load_hdf5_of_a_link(tmp_path):
    # 000:2158-2164: same as NPZ when h5py is installed.
    pytest.importorskip("h5py")
    model = Model()
    model.count = 3
    path = os.path.join(tmp_path, "my.h5")
    serializers.save_hdf5(path, model)
    loaded = Model()
    serializers.load_hdf5(path, loaded)
    np.testing.assert_array_equal(loaded.W.array, model.W.array)
    assert loaded.count == 3


class LearningRateSchedule:
    # The serialize() of PolynomialShift (000:1594-1598). The seed derives it
    # from training.Extension (not part of chainer-core) and starts
    # _last_value at the int 0; it starts at 0.0 here so that a resumed
    # float is not cast into an int slot.

    def __init__(self):
        self._t = 0
        self._last_value = 0.0

    def serialize(self, serializer):
        self._t = serializer("_t", self._t)
        self._last_value = serializer("_last_value", self._last_value)
        if isinstance(self._last_value, np.ndarray):
            self._last_value = self._last_value.item()


def test_serialize_protocol_of_a_plain_object(tmp_path):
    # 001:2432-2452: scalars come back as the type of the given value.
    schedule = LearningRateSchedule()
    schedule._t = 7
    schedule._last_value = 0.05
    path = os.path.join(tmp_path, "schedule.npz")
    serializers.save_npz(path, schedule)
    resumed = LearningRateSchedule()
    serializers.load_npz(path, resumed)
    assert resumed._t == 7
    assert type(resumed._t) is int
    assert resumed._last_value == pytest.approx(0.05)
    assert type(resumed._last_value) is float


def test_load_npz_needs_a_serializable_object(tmp_path):
    # Bad input for load_npz (000:2137-2141).
    path = os.path.join(tmp_path, "schedule.npz")
    serializers.save_npz(path, LearningRateSchedule())
    with pytest.raises(TypeError):
        serializers.load_npz(path, object())


class ParallelSequentialIterator(chainer.dataset.Iterator):
    # 000:3776-3816, 001:731-772 (the PTB iterator, first version).

    def __init__(self, dataset, batch_size, repeat=True):
        self.dataset = dataset
        self.batch_size = batch_size
        self.epoch = 0
        self.is_new_epoch = False
        self.repeat = repeat
        self.offsets = [i * len(dataset) // batch_size for i in range(batch_size)]
        self.iteration = 0

    def __next__(self):
        length = len(self.dataset)
        if not self.repeat and self.iteration * self.batch_size >= length:
            raise StopIteration
        cur_words = self.get_words()
        self.iteration += 1
        next_words = self.get_words()
        epoch = self.iteration * self.batch_size // length
        self.is_new_epoch = self.epoch < epoch
        if self.is_new_epoch:
            self.epoch = epoch
        return list(zip(cur_words, next_words, strict=True))

    @property
    def epoch_detail(self):
        return self.iteration * self.batch_size / len(self.dataset)

    def get_words(self):
        return [
            self.dataset[(offset + self.iteration) % len(self.dataset)]
            for offset in self.offsets
        ]

    def serialize(self, serializer):
        self.iteration = serializer("iteration", self.iteration)
        self.epoch = serializer("epoch", self.epoch)


def test_custom_iterator_and_its_serialization(tmp_path):
    # 000:3776-3816 and its serialize() through save_npz/load_npz.
    words = np.arange(10, dtype=np.int32)
    train_iter = ParallelSequentialIterator(words, 2)
    assert train_iter.next() == [(0, 1), (5, 6)]
    assert next(train_iter) == [(1, 2), (6, 7)]
    assert train_iter.epoch_detail == pytest.approx(0.4)
    for _ in range(3):
        train_iter.next()
    assert train_iter.epoch == 1
    assert train_iter.is_new_epoch

    path = os.path.join(tmp_path, "iterator.npz")
    serializers.save_npz(path, train_iter)
    resumed = ParallelSequentialIterator(words, 2)
    serializers.load_npz(path, resumed)
    assert (resumed.iteration, resumed.epoch) == (5, 1)
    # 000:3815-3816: the minibatch becomes integer arrays via concat_examples.
    x, t = chainer.dataset.concat_examples(resumed.next())
    np.testing.assert_array_equal(x, np.array([5, 0], dtype=np.int32))
    np.testing.assert_array_equal(t, np.array([6, 1], dtype=np.int32))
    assert x.dtype == np.int32

    val_iter = ParallelSequentialIterator(np.arange(4, dtype=np.int32), 1, False)
    assert len(list(val_iter)) == 4


# ---------------------------------------------------------------------------
# Reporter (000:2165-2325, 001:3100-3202)
# ---------------------------------------------------------------------------


def test_reporter_with_named_observer():
    # 000:2180-2213 (the 000 key 'my_observer:/x' wins over 001's).
    reporter = chainer.Reporter()
    observer = object()
    reporter.add_observer("my_observer:", observer)
    observation = {}
    with reporter.scope(observation):
        reporter.report({"x": 1}, observer)
    assert observation == {"my_observer:/x": 1}

    observation = {}
    with reporter.scope(observation):
        chainer.report({"x": 1}, observer)
    assert observation == {"my_observer:/x": 1}


def test_report_scope_of_the_current_reporter():
    # 001:3112: report_scope redirects the current reporter's observation.
    reporter = chainer.Reporter()
    observer = object()
    reporter.add_observer("my_observer:", observer)
    observation = {}
    with reporter, chainer.report_scope(observation):
        chainer.report({"x": 1}, observer)
    assert observation == {"my_observer:/x": 1}


def test_report_without_current_reporter_does_nothing():
    # 001:3156-3157: "If no reporter object is current, this function does
    # nothing."
    chainer.report({"x": 1})


def test_report_with_unregistered_observer_is_refused():
    # 000:2196-2197: "The observer name should be registered beforehand."
    reporter = chainer.Reporter()
    with reporter.scope({}), pytest.raises(KeyError):
        reporter.report({"x": 1}, object())


class Linear(chainer.Link):
    def __init__(self, n_out):
        super().__init__()
        self.n_out = n_out
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Normal(0.1))
            self.b = chainer.Parameter(0, (n_out,))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.n_out, x.shape[1]))
        return chainer.as_variable(x) @ self.W.T + self.b


def test_report_names_follow_the_link_hierarchy():
    # 000:2233-2298: 'main/loss', 'main/accuracy' and 'main/predictor/sum_y'
    # when the root link is registered as 'main' (as StandardUpdater does).
    class MLP(chainer.Chain):
        def __init__(self, n_units, n_out):
            super().__init__()
            with self.init_scope():
                self.l1 = Linear(n_units)
                self.l2 = Linear(n_out)

        def forward(self, x):
            y = self.l2(self.l1(x))
            chainer.report({"sum_y": y.mean() * y.size}, self)
            return y

    class Classifier(chainer.Chain):
        def __init__(self, predictor):
            super().__init__()
            with self.init_scope():
                self.predictor = predictor

        def forward(self, x, t):
            y = self.predictor(x)
            d = y - t
            loss = (d * d).mean()
            accuracy = (y.array.argmax(axis=1) == t.argmax(axis=1)).mean()
            chainer.report({"loss": loss, "accuracy": accuracy}, self)
            return loss

    model = Classifier(MLP(5, 3))
    reporter = chainer.Reporter()
    reporter.add_observer("main", model)
    reporter.add_observers("main", model.namedlinks(skipself=True))
    observation = {}
    x = np.random.randn(4, 6).astype(np.float32)
    t = np.eye(3, dtype=np.float32)[[0, 1, 2, 0]]
    with reporter.scope(observation):
        loss = model(x, t)
    assert sorted(observation) == [
        "main/accuracy",
        "main/loss",
        "main/predictor/sum_y",
    ]
    np.testing.assert_allclose(observation["main/loss"].array, loss.array)
    # Reported Variables do not keep the graph (keep_graph_on_report=False).
    assert observation["main/loss"].creator is None


def test_summary_and_dict_summary():
    # 001:3173-3202: mean and std online; DictSummary adds 'key.std'.
    summary = chainer.Summary()
    for v in (1.0, np.float32(3.0)):
        summary.add(v)
    assert float(summary.compute_mean()) == pytest.approx(2.0)
    mean, std = summary.make_statistics()
    assert (float(mean), float(std)) == pytest.approx((2.0, 1.0))

    summary = chainer.DictSummary()
    summary.add({"a": 1.0, "b": chainer.Variable(np.array(2.0, dtype=np.float32))})
    summary.add({"a": 3.0, "b": np.array(4.0)})
    means = summary.compute_mean()
    assert {k: float(v) for k, v in means.items()} == {"a": 2.0, "b": 3.0}
    stats = summary.make_statistics()
    assert sorted(stats) == ["a", "a.std", "b", "b.std"]
    assert float(stats["b.std"]) == pytest.approx(1.0)


def test_dict_summary_skips_non_scalar_arrays():
    # 001:3188-3189: only scalars and 0-d arrays/Variables are accumulated.
    summary = chainer.DictSummary()
    summary.add({"a": 1.0, "vec": np.ones(3)})
    assert list(summary.compute_mean()) == ["a"]


# ---------------------------------------------------------------------------
# Configuration and backprop modes (000:778-802, 000:3714-3749)
# ---------------------------------------------------------------------------


def test_using_config_is_temporary():
    # 000:4693: with chainer.using_config('train', False).
    assert chainer.config.train is True
    with chainer.using_config("train", False):
        assert chainer.config.train is False
        with chainer.using_config("train", True):
            assert chainer.config.train is True
        assert chainer.config.train is False
    assert chainer.config.train is True


def test_no_backprop_and_force_backprop_modes():
    # 001:1990-2021 (without the v1 volatile flag): no graph inside
    # no_backprop_mode, a graph again inside force_backprop_mode.
    x = chainer.Variable(np.array([1], dtype=np.float32))
    with chainer.no_backprop_mode():
        y = x + 1
        assert y.creator is None
        with chainer.force_backprop_mode():
            z = x + 1
            assert z.creator is not None
    np.testing.assert_array_equal(y.array, [2.0])
    assert (x + 1).creator is not None


def test_translate_style_evaluation_block():
    # 000:4691-4718: no_backprop_mode and using_config('train', False) together.
    with chainer.no_backprop_mode(), chainer.using_config("train", False):
        assert chainer.config.enable_backprop is False
        assert chainer.config.train is False
    assert chainer.config.enable_backprop is True


def test_get_dtype_follows_the_config():
    # 000:3298-3300: dtype = chainer.get_dtype() for generated inputs.
    assert chainer.get_dtype() == np.float32
    with chainer.using_config("dtype", np.float16):
        assert chainer.get_dtype() == np.float16
        z = np.random.uniform(-1, 1, (2, 3)).astype(chainer.get_dtype())
        assert z.dtype == np.float16


# ---------------------------------------------------------------------------
# Debug mode (001:2864-2888)
# ---------------------------------------------------------------------------


def test_debug_mode_detects_nan_in_forward_and_backward():
    # 001:2864-2866: NaN in forward or backward results -> RuntimeError.
    x = chainer.Variable(np.array([np.nan, 1.0], dtype=np.float32))
    assert chainer.is_debug() is False
    y = x * 2  # no check outside debug mode
    assert np.isnan(y.array[0])
    with chainer.DebugMode(True):
        assert chainer.is_debug() is True
        with pytest.raises(RuntimeError, match="NaN"):
            x * 2
        ok = chainer.Variable(np.array([1.0, 2.0], dtype=np.float32))
        z = ok * 2
        z.grad = np.array([np.nan, 1.0], dtype=np.float32)
        with pytest.raises(RuntimeError, match="NaN"):
            z.backward()
    assert chainer.is_debug() is False


def test_set_debug_and_debug_mode_restore():
    # 001:2868-2888: set_debug, is_debug and DebugMode restoring.
    try:
        chainer.set_debug(True)
        assert chainer.is_debug() is True
        with chainer.DebugMode(False):
            assert chainer.is_debug() is False
        assert chainer.is_debug() is True
    finally:
        chainer.set_debug(False)
    assert chainer.is_debug() is False


def test_debug_mode_needs_a_bool():
    # Bad input for DebugMode (001:2880-2888): debug is a bool.
    with pytest.raises(TypeError):
        chainer.DebugMode("yes")
