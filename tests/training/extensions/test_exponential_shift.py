import pytest

from chainer import optimizers
from chainer import serializers
from chainer import testing
from chainer.training import extensions


class _Optimizer:
    def __init__(self, lr=1.0):
        self.lr = lr


def _trainer(optimizer, tmp_path, stop=5):
    trainer = testing.get_trainer_with_mock_updater((stop, "iteration"))
    trainer.updater.get_optimizer = {"main": optimizer}.__getitem__
    trainer.out = str(tmp_path)
    return trainer


def _run(ext, optimizer, n):
    trainer = _trainer(optimizer, ".")
    ext.initialize(trainer)
    values = [optimizer.lr]
    for _ in range(n):
        ext(trainer)
        values.append(optimizer.lr)
    return values


def _roundtrip(src, dst):
    s = serializers.DictionarySerializer()
    src.serialize(s)
    dst.serialize(serializers.NpzDeserializer(s.target))


@pytest.mark.parametrize(
    ("rate", "init", "target"),
    [(0.5, 2.0, None), (2.0, 0.25, None), (0.5, 2.0, 0.3), (2.0, 0.25, 3.0)],
)
def test_values_follow_formula(rate, init, target):
    opt = _Optimizer()
    values = _run(extensions.ExponentialShift("lr", rate, init, target), opt, 6)
    expected = [init * rate**t for t in range(7)]
    if target is not None:
        clamp = min if rate > 1 else max
        expected = [init] + [clamp(v, target) for v in expected[1:]]
    assert values == pytest.approx(expected, rel=1e-12)


def test_negative_values_with_target():
    opt = _Optimizer()
    values = _run(extensions.ExponentialShift("lr", 0.5, -4.0, target=-1.5), opt, 4)
    assert values == [-4.0, -2.0, -1.5, -1.5, -1.5]


def test_init_defaults_to_the_optimizer_value():
    opt = _Optimizer(lr=0.8)
    values = _run(extensions.ExponentialShift("lr", 0.5), opt, 3)
    assert values == [0.8, 0.4, 0.2, 0.1]


def test_explicit_optimizer_is_shifted_instead_of_main():
    main, other = _Optimizer(1.0), _Optimizer(1.0)
    trainer = _trainer(main, ".")
    ext = extensions.ExponentialShift("lr", 0.5, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_call_without_initialize_initializes():
    opt = _Optimizer(1.0)
    ext = extensions.ExponentialShift("lr", 0.5)
    ext(_trainer(opt, "."))
    assert opt.lr == 0.5


def test_in_trainer_each_update_sees_the_shifted_value(tmp_path):
    opt = optimizers.MomentumSGD(lr=1.0)
    trainer = _trainer(opt, tmp_path, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.ExponentialShift("lr", 0.5))
    trainer.run()
    assert seen == [1.0, 0.5, 0.25, 0.125, 0.0625]
    assert opt.hyperparam.lr == 0.03125


def test_resume_continues_the_sequence():
    full = _run(extensions.ExponentialShift("lr", 0.5, 1.0), _Optimizer(), 6)
    first = extensions.ExponentialShift("lr", 0.5, 1.0)
    _run(first, _Optimizer(), 3)
    # Loaded before initialize (load_npz(resume, trainer), then run()).
    resumed = extensions.ExponentialShift("lr", 0.5, 1.0)
    _roundtrip(first, resumed)
    opt = _Optimizer()
    assert _run(resumed, opt, 3) == full[3:]


def test_load_after_initialize_sets_the_restored_value():
    # Snapshot autoload loads the trainer after the extensions' initialize.
    first = extensions.ExponentialShift("lr", 0.5, 1.0)
    _run(first, _Optimizer(), 3)
    opt = _Optimizer()
    resumed = extensions.ExponentialShift("lr", 0.5, 1.0)
    trainer = _trainer(opt, ".")
    resumed.initialize(trainer)
    assert opt.lr == 1.0
    _roundtrip(first, resumed)
    assert opt.lr == 0.125
    resumed(trainer)
    assert opt.lr == 0.0625


def test_serialized_keys():
    ext = extensions.ExponentialShift("lr", 0.5, 1.0)
    _run(ext, _Optimizer(), 2)
    s = serializers.DictionarySerializer()
    ext.serialize(s)
    assert set(s.target) == {"_t", "_last_value"}
    assert int(s.target["_t"]) == 2
    assert float(s.target["_last_value"]) == 0.25


def test_negative_rate():
    with pytest.raises(ValueError, match="negative rate"):
        extensions.ExponentialShift("lr", -0.5)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"attr": 1, "rate": 0.5},
        {"attr": "lr", "rate": "0.5"},
        {"attr": "lr", "rate": 0.5, "init": "1"},
        {"attr": "lr", "rate": 0.5, "target": [1]},
    ],
)
def test_bad_argument_types(kwargs):
    with pytest.raises(TypeError, match="ExponentialShift"):
        extensions.ExponentialShift(**kwargs)


def test_unknown_attribute():
    ext = extensions.ExponentialShift("lrr", 0.5)
    with pytest.raises(AttributeError, match="no attribute 'lrr'"):
        ext.initialize(_trainer(_Optimizer(), "."))


def test_read_only_attribute():
    # Adam's lr is computed from alpha; it cannot be set.
    opt = optimizers.Adam()
    ext = extensions.ExponentialShift("lr", 0.5, init=0.1)
    with pytest.raises(AttributeError, match="cannot set 'lr' of the optimizer Adam"):
        ext.initialize(_trainer(opt, "."))
