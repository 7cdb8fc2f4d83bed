import math

import pytest

from chainer.training import extensions


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
def test_values_follow_formula(gamma, step, init, target, make_optimizer, run_shift):
    opt = make_optimizer()
    values = run_shift(extensions.StepShift("lr", gamma, step, init, target), opt, 9)
    expected = [init * gamma ** math.floor(t / step) for t in range(10)]
    if target is not None:
        clamp = min if gamma > 1 else max
        expected = [init] + [clamp(v, target) for v in expected[1:]]
    assert values == pytest.approx(expected, rel=1e-12)


def test_documented_staircase(make_optimizer, run_shift):
    values = run_shift(
        extensions.StepShift("lr", 0.1, 2, init=1.0), make_optimizer(), 5
    )
    assert values == pytest.approx([1.0, 1.0, 0.1, 0.1, 0.01, 0.01])


def test_init_defaults_to_the_optimizer_value(make_optimizer, run_shift):
    values = run_shift(extensions.StepShift("lr", 0.5, 1), make_optimizer(lr=0.4), 2)
    assert values == [0.4, 0.2, 0.1]


def test_in_trainer(make_optimizer, shift_trainer):
    opt = make_optimizer(1.0)
    trainer = shift_trainer(opt, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.StepShift("lr", 0.5, 2))
    trainer.run()
    assert seen == [1.0, 1.0, 0.5, 0.5, 0.25]


def test_explicit_optimizer(make_optimizer, shift_trainer):
    main, other = make_optimizer(1.0), make_optimizer(1.0)
    trainer = shift_trainer(main)
    ext = extensions.StepShift("lr", 0.5, 1, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_resume_continues_the_sequence(make_optimizer, run_shift, roundtrip):
    make = lambda: extensions.StepShift("lr", 0.5, 2, init=1.0)  # noqa: E731
    full = run_shift(make(), make_optimizer(), 7)
    first = make()
    run_shift(first, make_optimizer(), 3)
    resumed = make()
    roundtrip(first, resumed)
    assert run_shift(resumed, make_optimizer(), 4) == full[3:]


def test_load_after_initialize_sets_the_restored_value(
    make_optimizer, shift_trainer, run_shift, roundtrip
):
    first = extensions.StepShift("lr", 0.5, 1, init=1.0)
    run_shift(first, make_optimizer(), 2)
    opt = make_optimizer()
    resumed = extensions.StepShift("lr", 0.5, 1, init=1.0)
    resumed.initialize(shift_trainer(opt))
    roundtrip(first, resumed)
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


def test_unknown_attribute(make_optimizer, shift_trainer):
    ext = extensions.StepShift("rl", 0.5, 2)
    with pytest.raises(AttributeError, match="no attribute 'rl'"):
        ext.initialize(shift_trainer(make_optimizer()))
