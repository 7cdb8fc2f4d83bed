import math

import pytest

from chainer import serializers
from chainer import testing
from chainer.training import extensions


class _Optimizer:
    def __init__(self, lr=1.0):
        self.lr = lr


def _trainer(optimizer, tmp_path=".", stop=5):
    trainer = testing.get_trainer_with_mock_updater((stop, "iteration"))
    trainer.updater.get_optimizer = {"main": optimizer}.__getitem__
    trainer.out = str(tmp_path)
    return trainer


def _run(ext, optimizer, n):
    trainer = _trainer(optimizer)
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
    ("gamma", "step", "init", "target"),
    [
        (0.5, 3, 1.0, None),
        (2.0, 2, 0.5, None),
        (0.1, 1, 1.0, 0.005),
        (3.0, 2, 1.0, 5.0),
        (0.5, 2.5, 1.0, None),
    ],
)
def test_values_follow_formula(gamma, step, init, target):
    opt = _Optimizer()
    values = _run(extensions.StepShift("lr", gamma, step, init, target), opt, 9)
    expected = [init * gamma ** math.floor(t / step) for t in range(10)]
    if target is not None:
        clamp = min if gamma > 1 else max
        expected = [init] + [clamp(v, target) for v in expected[1:]]
    assert values == pytest.approx(expected, rel=1e-12)


def test_documented_staircase():
    values = _run(extensions.StepShift("lr", 0.1, 2, init=1.0), _Optimizer(), 5)
    assert values == pytest.approx([1.0, 1.0, 0.1, 0.1, 0.01, 0.01])


def test_init_defaults_to_the_optimizer_value():
    values = _run(extensions.StepShift("lr", 0.5, 1), _Optimizer(lr=0.4), 2)
    assert values == [0.4, 0.2, 0.1]


def test_in_trainer(tmp_path):
    opt = _Optimizer(1.0)
    trainer = _trainer(opt, tmp_path, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.StepShift("lr", 0.5, 2))
    trainer.run()
    assert seen == [1.0, 1.0, 0.5, 0.5, 0.25]


def test_explicit_optimizer():
    main, other = _Optimizer(1.0), _Optimizer(1.0)
    trainer = _trainer(main)
    ext = extensions.StepShift("lr", 0.5, 1, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_resume_continues_the_sequence():
    make = lambda: extensions.StepShift("lr", 0.5, 2, init=1.0)  # noqa: E731
    full = _run(make(), _Optimizer(), 7)
    first = make()
    _run(first, _Optimizer(), 3)
    resumed = make()
    _roundtrip(first, resumed)
    assert _run(resumed, _Optimizer(), 4) == full[3:]


def test_load_after_initialize_sets_the_restored_value():
    first = extensions.StepShift("lr", 0.5, 1, init=1.0)
    _run(first, _Optimizer(), 2)
    opt = _Optimizer()
    resumed = extensions.StepShift("lr", 0.5, 1, init=1.0)
    resumed.initialize(_trainer(opt))
    _roundtrip(first, resumed)
    assert opt.lr == 0.25


@pytest.mark.parametrize("step", [0, -2])
def test_non_positive_step(step):
    with pytest.raises(ValueError, match="step must be positive"):
        extensions.StepShift("lr", 0.5, step)


@pytest.mark.parametrize(
    "args", [(0, 0.5, 2), ("lr", None, 2), ("lr", 0.5, "2"), ("lr", 0.5, 2, "x")]
)
def test_bad_argument_types(args):
    with pytest.raises(TypeError, match="StepShift"):
        extensions.StepShift(*args)


def test_unknown_attribute():
    ext = extensions.StepShift("rl", 0.5, 2)
    with pytest.raises(AttributeError, match="no attribute 'rl'"):
        ext.initialize(_trainer(_Optimizer()))
